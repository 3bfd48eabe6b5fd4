package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/mcpserver"
)

// MCPPath is where the MCP endpoint answers.
const MCPPath = "/mcp"

// MCPOptions configure the MCP endpoint (see Server.MCPHandler). Zero
// fields take their defaults.
type MCPOptions struct {
	// MaxBodyBytes bounds a request's body (default 1 MiB): a larger one
	// gets 413.
	MaxBodyBytes int64
	// MaxSessions bounds the sessions open at once, of all users
	// (default 1000): past it, a new session gets 503 with Retry-After.
	MaxSessions int
	// MaxUserSessions bounds the sessions open at once of one user (of
	// one client address, for anonymous ones; an IPv6 /64 counts as one),
	// so that no user takes every place (default 100): past it, a new
	// session of that user gets 429 with Retry-After.
	MaxUserSessions int
	// SessionIdle is how long a session may go without a request before
	// it is closed (default 30 minutes); its client then starts a new
	// one.
	SessionIdle time.Duration
	// AllowedOrigins are the origins (scheme://host[:port]) whose
	// browsers may call the endpoint besides the server's own (an Origin
	// whose host is the request's Host). A request with any other Origin
	// header gets 403; requests without one (MCP clients that are not
	// browsers) are not concerned.
	AllowedOrigins []string
	// Hosts are host names (lower case, no port) that the operator routes
	// to this endpoint: a request with one of them as its Host passes the
	// DNS-rebinding check even when it reaches a loopback address (as it
	// does behind a proxy on the same machine). Origins with these hosts
	// are allowed too.
	Hosts []string
	// ViewMaxAge is how long the filesystem view of a group set is given
	// to new sessions before it is made again, seeing the collection's
	// current tree (default 5 s). A session's tools keep the view it
	// started with; its resources follow the group set's (see
	// MCPHandler).
	ViewMaxAge time.Duration
	// Tools configures the tools (MaxOutput, Timeout, Version, Logger);
	// its FS is set per group set.
	Tools mcpserver.Config
	// Stateless serves MCP's stateless streamable HTTP (the MCP Go SDK's
	// Stateless mode, the newest protocol revision it supports): no
	// session outlives a request, so any process of a fleet answers any
	// request and a load balancer needs no affinity. Each request starts
	// at "/" (bash's cd does not carry over), GET and DELETE get 405, and
	// the session bounds (MaxSessions, MaxUserSessions, SessionIdle) do
	// not apply: bound the work with an in-flight limit instead.
	Stateless bool
	// Middleware is added to each MCP server made (after
	// Tools.Middleware; see mcpserver.Config.Middleware): metrics and
	// traces of tool calls.
	Middleware []mcp.Middleware
	// OnSession, if not nil, is called with +1 when a session takes its
	// place and -1 when it gives it back (a gauge of sessions open).
	OnSession func(delta int)
}

// Defaults of MCPOptions.
const (
	DefaultMCPMaxBodyBytes = 1 << 20
	DefaultMCPMaxSessions  = 1000
	DefaultMCPUserSessions = 100
	DefaultMCPSessionIdle  = 30 * time.Minute
)

// mcpHandler serves MCP sessions over streamable HTTP: one
// mcpserver.New server per group set, whose sessions share that group
// set's view of the collection.
type mcpHandler struct {
	s    *Server
	opt  MCPOptions
	sdk  *mcp.StreamableHTTPHandler
	slot chan struct{} // one token per open session

	mu      sync.Mutex
	servers map[string]*mcp.Server // by group set
	changed map[string]func()      // by group set: sends resources/list_changed
	views   map[string]*mcpView    // by group set
	owners  map[string]*mcpSession // by session id
	perUser map[string]int         // open sessions by user (see userSlot)
}

// mcpSession is an open session: its owner (the userSlot of the request
// that opened it: a user's name, or for an anonymous session its client
// address), and the release of its slot (once, by DELETE or by its end,
// whichever comes first).
type mcpSession struct {
	owner   string
	release func()
}

// mcpView is the filesystem that new sessions of one group set get.
type mcpView struct {
	mu   sync.Mutex
	fsys fs.FS
	made time.Time
}

// MCPHandler returns the handler of the MCP endpoint (streamable HTTP at
// MCPPath; any other path is 404), to be wrapped by Wrap, which signs the
// user in. Each MCP session is one chromafs session of its user: the
// view of the user's groups, made once per group set and reused by every
// session of that set (see MCPOptions.ViewMaxAge), with one working
// directory.
//
// The pages are MCP resources too (see package mcpserver), answered from
// the group set's current view rather than the session's: when Run's
// readiness check loads a new tree version of the collection (a writer's
// ingest, seen within Config.CheckInterval and the tree max age), the
// group sets' views are made again at their next use and every open
// session is sent notifications/resources/list_changed, so that a client
// that lists and reads the resources again sees the new tree while the
// session's tools keep the view they started with. Without Run nothing
// is sent; in Stateless mode no session outlives a request, and nothing
// is sent either. A session belongs to the user who opened it: a request of
// another user with its id gets 404, as an unknown id does. An anonymous
// session belongs to the client address that opened it (an IPv6 /64
// counts as one), so that anonymous clients elsewhere cannot use its id
// either.
//
// The SDK's DNS-rebinding protection stays on (a request that reaches a
// loopback address with a Host that is not loopback gets 403), and the
// Origin header is checked (see MCPOptions.AllowedOrigins).
func (s *Server) MCPHandler(opt MCPOptions) http.Handler {
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMCPMaxBodyBytes
	}
	if opt.MaxSessions <= 0 {
		opt.MaxSessions = DefaultMCPMaxSessions
	}
	if opt.MaxUserSessions <= 0 {
		opt.MaxUserSessions = DefaultMCPUserSessions
	}
	if opt.SessionIdle <= 0 {
		opt.SessionIdle = DefaultMCPSessionIdle
	}
	if opt.ViewMaxAge <= 0 {
		opt.ViewMaxAge = 5 * time.Second
	}
	h := &mcpHandler{
		s:       s,
		opt:     opt,
		slot:    make(chan struct{}, opt.MaxSessions),
		servers: map[string]*mcp.Server{},
		changed: map[string]func(){},
		views:   map[string]*mcpView{},
		owners:  map[string]*mcpSession{},
		perUser: map[string]int{},
	}
	h.sdk = mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{
		SessionTimeout:      opt.SessionIdle,
		MaxRequestBodyBytes: opt.MaxBodyBytes,
		Logger:              opt.Tools.Logger,
		Stateless:           opt.Stateless,
		// With Hosts, the check is made here (see rebinding).
		DisableLocalhostProtection: len(opt.Hosts) > 0,
	})
	if !opt.Stateless {
		s.onTreeChange(h.treeChanged)
	}
	return h
}

// treeChanged is called when a readiness check loaded a new tree version
// of the collection: the views made for new sessions are dropped (the
// next one is made from the new tree), and every session of every group
// set's server is sent notifications/resources/list_changed. A session's
// tools keep the view it started with; its resources/list and
// resources/read answer from its group set's current view (see
// MCPHandler), so a client that lists again sees the new tree.
func (h *mcpHandler) treeChanged() {
	h.mu.Lock()
	views := make([]*mcpView, 0, len(h.views))
	for _, v := range h.views {
		views = append(views, v)
	}
	changed := make([]func(), 0, len(h.changed))
	for _, f := range h.changed {
		changed = append(changed, f)
	}
	h.mu.Unlock()
	for _, v := range views {
		v.mu.Lock()
		v.fsys = nil
		v.mu.Unlock()
	}
	for _, f := range changed {
		f()
	}
}

// groupKey identifies a group set.
func groupKey(groups []string) string {
	g := slices.Clone(groups)
	slices.Sort(g)
	return strings.Join(slices.Compact(g), "\x00")
}

func requestUser(r *http.Request) *User {
	u, _ := r.Context().Value(userKey{}).(*User)
	return u
}

// server returns the MCP server of the request's user's group set.
func (h *mcpHandler) server(r *http.Request) *mcp.Server {
	u := requestUser(r)
	if u == nil {
		return nil
	}
	key := groupKey(u.Groups)
	h.mu.Lock()
	defer h.mu.Unlock()
	if srv := h.servers[key]; srv != nil {
		return srv
	}
	cfg := h.opt.Tools
	groups := slices.Clone(u.Groups)
	cfg.FS = func(ctx context.Context) (fs.FS, error) { return h.view(ctx, key, groups) }
	cfg.Resources = cfg.FS
	cfg.Middleware = append(slices.Clone(cfg.Middleware), h.opt.Middleware...)
	srv, changed := mcpserver.NewNotifying(cfg)
	h.servers[key] = srv
	h.changed[key] = changed
	return srv
}

// view returns the filesystem of a new session of the group set key,
// making it when there is none younger than ViewMaxAge. Its reads are not
// bound to ctx: the session outlives the request.
func (h *mcpHandler) view(ctx context.Context, key string, groups []string) (fs.FS, error) {
	h.mu.Lock()
	v := h.views[key]
	if v == nil {
		v = &mcpView{}
		h.views[key] = v
	}
	h.mu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.fsys != nil && time.Since(v.made) < h.opt.ViewMaxAge {
		return v.fsys, nil
	}
	store, err := h.s.openStore()
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithTimeout(ctx, h.s.cfg.ResolveTimeout)
	defer cancel()
	opts := append(slices.Clone(h.s.cfg.Options), chromafs.WithGroups(groups...))
	fsys, err := chromafs.New(bctx, store, opts...)
	if err != nil {
		if fscap.IsUnavailable(err) {
			h.s.kick()
		}
		return nil, err
	}
	v.fsys, v.made = fsys, time.Now()
	return fsys, nil
}

func (h *mcpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != MCPPath {
		http.NotFound(w, r)
		return
	}
	if h.rebinding(r) {
		http.Error(w, fmt.Sprintf("403 forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	if !h.originAllowed(r) {
		http.Error(w, "403 forbidden: origin not allowed", http.StatusForbidden)
		return
	}
	u := requestUser(r)
	if u == nil {
		http.Error(w, "401 unauthorized", http.StatusUnauthorized)
		return
	}
	if h.opt.Stateless {
		// No session, no owner: each request is whole in itself.
		h.sdk.ServeHTTP(w, r)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.mu.Lock()
		sess := h.owners[id]
		h.mu.Unlock()
		if sess == nil || sess.owner != userSlot(u, r) {
			// Another user's session (for anonymous sessions: one
			// opened from another client address) answers as one that
			// does not exist: nothing tells that it is there.
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodDelete {
			// The SDK closes the session, then answers: its place is
			// free before the client hears so.
			w = &deleteRecorder{ResponseWriter: w, sess: sess}
		}
		h.sdk.ServeHTTP(w, r)
		return
	}
	init, err := h.initializes(w, r)
	if err != nil {
		http.Error(w, fmt.Sprintf("413 request entity too large: more than %d bytes", h.opt.MaxBodyBytes), http.StatusRequestEntityTooLarge)
		return
	}
	if !init {
		// No session outlives this request: the SDK answers it.
		h.sdk.ServeHTTP(w, r)
		return
	}
	free, status := h.take(userSlot(u, r))
	if status != 0 {
		w.Header().Set("Retry-After", "30")
		msg := "503 service unavailable: too many MCP sessions"
		if status == http.StatusTooManyRequests {
			msg = "429 too many requests: too many MCP sessions of this user"
		}
		http.Error(w, msg, status)
		return
	}
	rec := &sessionRecorder{ResponseWriter: w, h: h, owner: userSlot(u, r), srv: h.server(r), free: free}
	h.sdk.ServeHTTP(rec, r)
	switch {
	case rec.sess == nil:
		rec.free() // no answer, or not a success
	case rec.ss.InitializeParams() == nil:
		// Not initialized: the SDK has closed it.
		rec.sess.release()
	}
}

// userSlot is the key that MaxUserSessions counts by: the user's name,
// or for an anonymous request its client address.
func userSlot(u *User, r *http.Request) string {
	if u == anonymous {
		return "-\x00" + clientKey(r)
	}
	return u.Name
}

// take takes a place for a new session of the user key, and returns the
// function that frees it (once), or the status that refuses it: 429 when
// the user has MaxUserSessions, 503 when all have MaxSessions.
func (h *mcpHandler) take(key string) (free func(), status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.perUser[key] >= h.opt.MaxUserSessions {
		return nil, http.StatusTooManyRequests
	}
	select {
	case h.slot <- struct{}{}:
	default:
		return nil, http.StatusServiceUnavailable
	}
	h.perUser[key]++
	if h.opt.OnSession != nil {
		h.opt.OnSession(1)
	}
	return sync.OnceFunc(func() {
		<-h.slot
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.perUser[key]--; h.perUser[key] <= 0 {
			delete(h.perUser, key)
		}
		if h.opt.OnSession != nil {
			h.opt.OnSession(-1)
		}
	}), 0
}

// initializes reads the body of a POST without a session id (within
// MaxBodyBytes: a larger one is an error), puts it back for the SDK, and
// reports whether it asks to initialize a session, the only request that
// opens one.
func (h *mcpHandler) initializes(w http.ResponseWriter, r *http.Request) (bool, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return false, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opt.MaxBodyBytes))
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return false, err
		}
		// A body cut short: the SDK says what it makes of it.
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	type message struct {
		Method string `json:"method"`
	}
	var one message
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize", nil
	}
	var batch []message
	if json.Unmarshal(body, &batch) == nil {
		return slices.ContainsFunc(batch, func(m message) bool { return m.Method == "initialize" }), nil
	}
	return false, nil
}

// deleteRecorder releases a session's place when the SDK answers its
// DELETE with success.
type deleteRecorder struct {
	http.ResponseWriter
	sess *mcpSession
}

func (d *deleteRecorder) WriteHeader(code int) {
	if code < 300 {
		d.sess.release()
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *deleteRecorder) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// rebinding reports whether r looks like DNS rebinding when the SDK's
// own check is off (MCPOptions.Hosts): it reached a loopback address
// with a Host that is neither loopback nor one of Hosts.
func (h *mcpHandler) rebinding(r *http.Request) bool {
	if len(h.opt.Hosts) == 0 {
		return false // the SDK checks
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) || isLoopback(r.Host) {
		return false
	}
	return !slices.Contains(h.opt.Hosts, hostOnly(r.Host))
}

// hostOnly is the host of a Host header, lower case, without its port
// and trailing dot.
func hostOnly(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// isLoopback reports whether a host[:port] is localhost or a loopback
// address.
func isLoopback(hostport string) bool {
	host := strings.Trim(hostOnly(hostport), "[]")
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// originAllowed reports whether the request's Origin, if it has one, is
// the server's own or an allowed one.
func (h *mcpHandler) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if slices.Contains(h.opt.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) || slices.Contains(h.opt.Hosts, hostOnly(u.Host))
}

// sessionRecorder notes the session that a request opens, when the
// SDK sets its id on the response, before the response goes out.
type sessionRecorder struct {
	http.ResponseWriter
	h     *mcpHandler
	owner string // userSlot of the request that opens the session
	srv   *mcp.Server
	done  bool

	free func() // frees the slot taken for the session, once

	ss   *mcp.ServerSession // the session opened, if any
	sess *mcpSession
}

func (s *sessionRecorder) WriteHeader(code int) {
	s.record(code)
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionRecorder) Write(p []byte) (int, error) {
	s.record(http.StatusOK)
	return s.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer (the
// SDK flushes events through it).
func (s *sessionRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// record registers the session whose id a successful response carries:
// its owner, and the release of its slot when it ends.
func (s *sessionRecorder) record(code int) {
	if s.done {
		return
	}
	s.done = true
	id := s.Header().Get("Mcp-Session-Id")
	if id == "" || s.srv == nil || code >= 300 {
		s.free() // before the client hears the answer
		return
	}
	var ss *mcp.ServerSession
	for sess := range s.srv.Sessions() {
		if sess.ID() == id {
			ss = sess
			break
		}
	}
	if ss == nil {
		s.free()
		return
	}
	h := s.h
	sess := &mcpSession{owner: s.owner}
	s.ss, s.sess = ss, sess
	sess.release = sync.OnceFunc(func() {
		h.mu.Lock()
		delete(h.owners, id)
		h.mu.Unlock()
		s.free()
	})
	h.mu.Lock()
	h.owners[id] = sess
	h.mu.Unlock()
	go func() {
		_ = ss.Wait()
		sess.release()
	}()
}
