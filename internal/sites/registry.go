package sites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	rtmetrics "runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/internal/metrics"
	"github.com/chromafs/chromafs/internal/server"
)

// Kinds of listener, as server.Server.Wrap names them.
const (
	KindHTTP   = "http"
	KindWebDAV = "webdav"
	KindMCP    = "mcp"
)

// MetadataPath is the well-known path of OAuth protected resource
// metadata (RFC 9728 §3): a resource https://host/acme/mcp has its
// metadata at https://host/.well-known/oauth-protected-resource/acme/mcp.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Instance is a site being served.
type Instance struct {
	// Server checks the site's readiness and signs its users in; the
	// Registry runs it (Check, then Run) and wraps the handlers with it.
	Server *server.Server
	// Handler returns the site's handler of a kind, not wrapped (the
	// Registry wraps it with Server.Wrap), serving the site under prefix:
	// "/NAME/" when the site is reached by its path, "/" by one of its
	// hosts. The MCP handler is asked for once with prefix "/" and answers
	// at server.MCPPath (the Registry strips the prefix). A nil handler
	// means the kind is not served: 404.
	Handler func(kind, prefix string) http.Handler
	// Close, if set, is called after Run has stopped (Registry.Close, or
	// the site's retirement by a reload or an eviction): it drops what
	// the site holds (its caches).
	Close func() error
	// Sessions, if set, returns the number of the site's MCP sessions
	// open: a site with open sessions is not evicted.
	Sessions func() int
}

// Builder makes the instance of a site, at the site's first request.
type Builder func(s *Site) (*Instance, error)

// Registry routes requests to sites and makes each site's instance on
// first use. Get is the only way to an instance; Reload swaps the sites
// and retires the instances of sites changed or removed.
type Registry struct {
	routes atomic.Pointer[routes]
	build  Builder
	log    *slog.Logger
	// FirstCheck bounds the readiness check of a site made on first use,
	// before its first request is served (default 5 s).
	firstCheck time.Duration

	ctx    context.Context // ends with Close: the sites' Run
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	live    map[string]*entry
	retired map[*entry]struct{} // out of live, not closed yet (requests in flight)

	notFound map[string]http.Handler // by kind: the answer to an unknown site

	ev        Eviction
	gcCycles  func() uint64 // with the default Eviction.Memory: GC cycles so far
	memCycles uint64        // gcCycles when sites were last evicted for memory
}

// routes are the sites of one version of the sites file.
type routes struct {
	sites map[string]*Site
	hosts map[string]*Site
}

func newRoutes(cfg *Config) *routes {
	rt := &routes{sites: map[string]*Site{}, hosts: map[string]*Site{}}
	for _, s := range cfg.Sites {
		rt.sites[s.Name] = s
		for _, h := range s.Hosts {
			rt.hosts[h] = s
		}
	}
	return rt
}

// entry is a site's instance, once made.
type entry struct {
	site *Site         // the configuration it is made of
	done chan struct{} // closed when inst or err is set
	inst *Instance
	err  error

	stop    context.CancelFunc // ends the instance's Run
	stopped chan struct{}      // closed when Run has returned

	// Under Registry.mu:
	refs     int       // requests being served
	retired  bool      // out of live: closed when refs is 0
	closed   bool      // closed (or being closed)
	lastUsed time.Time // start of the latest request

	mu       sync.Mutex
	handlers map[string]http.Handler // wrapped, by kind and prefix
}

// NewRegistry returns the registry of cfg's sites, none made yet.
func NewRegistry(cfg *Config, build Builder, log *slog.Logger) *Registry {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registry{
		build: build, log: log, firstCheck: 5 * time.Second, ctx: ctx, cancel: cancel,
		live: map[string]*entry{}, retired: map[*entry]struct{}{},
	}
	r.routes.Store(newRoutes(cfg))
	// An unknown site answers as a missing page of a site does: the same
	// adapters, under a prefix no request path can have (control
	// characters are refused before).
	never := func(*http.Request) (fs.FS, error) { return nil, fs.ErrNotExist }
	r.notFound = map[string]http.Handler{
		KindHTTP:   httpfs.NewHandler(never, httpfs.Options{Prefix: "/\x00/"}),
		KindWebDAV: webdavfs.NewHandler(never, webdavfs.Options{Prefix: "/\x00", Logger: log}),
		KindMCP:    http.NotFoundHandler(),
	}
	return r
}

// Site returns the configuration of the site called name, or nil.
func (r *Registry) Site(name string) *Site { return r.routes.Load().sites[name] }

// Len is the number of sites configured.
func (r *Registry) Len() int { return len(r.routes.Load().sites) }

// Loaded is the number of sites made (or being made) now.
func (r *Registry) Loaded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// Reload is the outcome of Registry.Reload: the names of the sites added,
// removed, changed (made again on their next request) and kept as they
// were (their instance and its MCP sessions go on).
type Reload struct {
	Added, Removed, Changed, Kept []string
}

// Reload serves cfg's sites from now on. A site whose configuration is
// the same as before keeps its instance, and with it its MCP sessions and
// caches. The instance of a site changed or removed is retired: new
// requests no longer reach it (a changed site is made again on its next
// request, a removed one answers 404), and it is closed once the
// requests it is serving have ended, ending its MCP sessions.
func (r *Registry) Reload(cfg *Config) Reload {
	next := newRoutes(cfg)
	var out Reload
	r.mu.Lock()
	if r.ctx.Err() != nil {
		r.mu.Unlock()
		return out
	}
	prev := r.routes.Swap(next)
	for name, s := range next.sites {
		old := prev.sites[name]
		switch {
		case old == nil:
			out.Added = append(out.Added, name)
		case sameSite(old, s):
			out.Kept = append(out.Kept, name)
			if e := r.live[name]; e != nil {
				// Still served by the instance made of old.
				e.site = s
			}
		default:
			out.Changed = append(out.Changed, name)
			r.retireLocked(name)
		}
	}
	for name := range prev.sites {
		if next.sites[name] == nil {
			out.Removed = append(out.Removed, name)
			r.retireLocked(name)
		}
	}
	r.mu.Unlock()
	for _, l := range []*[]string{&out.Added, &out.Removed, &out.Changed, &out.Kept} {
		slices.Sort(*l)
	}
	return out
}

// sameSite reports whether a and b configure the same site (their lines
// in the file aside).
func sameSite(a, b *Site) bool {
	x, y := *a, *b
	x.Line, y.Line = 0, 0
	return reflect.DeepEqual(x, y)
}

// retireLocked takes the site called name out of live: it is closed
// when its last request ends. r.mu is held.
func (r *Registry) retireLocked(name string) {
	e := r.live[name]
	if e == nil {
		return
	}
	delete(r.live, name)
	e.retired = true
	if e.refs == 0 {
		e.closed = true
		go r.closeEntry(e)
		return
	}
	r.retired[e] = struct{}{}
}

// release ends a request's hold on e, closing e if it was retired and
// this was its last request.
func (r *Registry) release(e *entry) {
	r.mu.Lock()
	e.refs--
	closeIt := e.retired && e.refs == 0 && !e.closed
	if closeIt {
		e.closed = true
		delete(r.retired, e)
	}
	r.mu.Unlock()
	if closeIt {
		go r.closeEntry(e)
	}
}

// closeEntry stops e's Run and closes its instance.
func (r *Registry) closeEntry(e *entry) error {
	<-e.done
	if e.inst == nil {
		return nil
	}
	e.stop()
	<-e.stopped
	err := e.inst.Server.Close()
	if e.inst.Close != nil {
		err = errors.Join(err, e.inst.Close())
	}
	if err != nil {
		r.log.Warn("chromafs serve: closing a site", "site", e.site.Name, "err", err)
	}
	return err
}

// Get returns the instance of the site called name, making it on first
// use: Builder, one readiness check (so that a reachable collection is
// served from the first request), and Run in the background until
// Close. Concurrent first requests wait for the same making. A failed
// making is not kept: the next request tries again. The caller must not
// keep the instance beyond its request: a reload or an eviction closes
// it.
func (r *Registry) Get(name string) (*Instance, error) {
	e, err := r.acquire(name)
	if err != nil {
		return nil, err
	}
	r.release(e)
	return e.inst, nil
}

// errUnknown is Get's error for a name that is not a site.
var errUnknown = errors.New("no such site")

// acquire returns the entry of the site called name, made, held for one
// request: the caller must release it.
func (r *Registry) acquire(name string) (*entry, error) {
	s := r.routes.Load().sites[name]
	if s == nil {
		return nil, errUnknown
	}
	r.mu.Lock()
	if r.ctx.Err() != nil {
		r.mu.Unlock()
		return nil, errors.New("sites: the registry is closed")
	}
	if cur := r.routes.Load().sites[name]; cur != s {
		// Reloaded meanwhile.
		if s = cur; s == nil {
			r.mu.Unlock()
			return nil, errUnknown
		}
	}
	e := r.live[name]
	made := e == nil
	if made {
		e = &entry{site: s, done: make(chan struct{}), handlers: map[string]http.Handler{}}
		r.live[name] = e
	}
	e.refs++
	e.lastUsed = time.Now()
	if made && r.ev.MaxLoaded > 0 && len(r.live) > r.ev.MaxLoaded {
		c := r.candidatesLocked()
		for i := 0; i < len(c) && len(r.live) > r.ev.MaxLoaded; i++ {
			r.evictLocked(c[i], "max_loaded")
		}
	}
	r.mu.Unlock()
	if made {
		r.make(s, e)
	}
	<-e.done
	if e.err != nil {
		r.release(e)
		return nil, e.err
	}
	return e, nil
}

// make builds site s into e.
func (r *Registry) make(s *Site, e *entry) {
	defer close(e.done)
	inst, err := r.build(s)
	if err != nil {
		r.log.Error("chromafs serve: site cannot be served", "site", s.Name, "err", err)
		e.err = fmt.Errorf("site %s: %w", s.Name, err)
		r.mu.Lock()
		if r.live[s.Name] == e {
			delete(r.live, s.Name)
		}
		e.closed = true // nothing to close
		r.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.firstCheck)
	inst.Server.Check(ctx)
	cancel()
	runCtx, stop := context.WithCancel(r.ctx)
	e.stop, e.stopped = stop, make(chan struct{})
	r.wg.Go(func() {
		defer close(e.stopped)
		inst.Server.Run(runCtx)
	})
	e.inst = inst
}

// Eviction bounds the sites kept made. A site is evicted (closed, its
// Run stopped, its Instance.Close dropping its caches) when it has had no
// request for Idle; when more than MaxLoaded sites are made, the least
// recently used are; and while Memory reports more than MaxMemory, the
// least recently used are, in proportion to the excess (with the default
// Memory, once per garbage collection, so that the memory that evictions
// free is seen before more sites are evicted). An evicted site is made
// again at its next request. A site is never evicted while it serves a
// request or has MCP sessions open (Instance.Sessions): those end at
// their own idle timeout, and the site can go after them. Zero fields
// bound nothing.
type Eviction struct {
	Idle      time.Duration
	MaxLoaded int
	MaxMemory int64
	// Memory returns the bytes in use (default: the Go heap's live bytes
	// at the last garbage collection, runtime/metrics /gc/heap/live:bytes,
	// which the page and tree caches are part of).
	Memory func() int64
	// Interval is how often Idle and MaxMemory are checked (default
	// Idle/4, at most 30 s and at least 10 ms; 5 s without Idle).
	Interval time.Duration
}

// SetEviction bounds the sites kept made (see Eviction). Call it once,
// before the first request: it starts the checks, which Close stops.
func (r *Registry) SetEviction(ev Eviction) {
	if ev.Memory == nil {
		ev.Memory, r.gcCycles = heapLive()
	}
	if ev.Interval <= 0 {
		ev.Interval = 5 * time.Second
		if ev.Idle > 0 {
			ev.Interval = min(max(ev.Idle/4, 10*time.Millisecond), 30*time.Second)
		}
	}
	r.mu.Lock()
	r.ev = ev
	r.mu.Unlock()
	if ev.Idle <= 0 && ev.MaxMemory <= 0 {
		return
	}
	r.wg.Go(func() {
		t := time.NewTicker(ev.Interval)
		defer t.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return
			case now := <-t.C:
				r.sweep(now)
			}
		}
	})
}

// heapLive returns the default Eviction.Memory and a count of GC cycles.
func heapLive() (func() int64, func() uint64) {
	read := func(name string) rtmetrics.Value {
		s := []rtmetrics.Sample{{Name: name}}
		rtmetrics.Read(s)
		return s[0].Value
	}
	return func() int64 {
			if v := read("/gc/heap/live:bytes"); v.Kind() == rtmetrics.KindUint64 {
				return int64(v.Uint64())
			}
			return 0
		}, func() uint64 {
			if v := read("/gc/cycles/total:gc-cycles"); v.Kind() == rtmetrics.KindUint64 {
				return v.Uint64()
			}
			return 0
		}
}

// sweep evicts the sites idle at now and, past the memory bound, the
// least recently used.
func (r *Registry) sweep(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return
	}
	c := r.candidatesLocked()
	rest := c[:0:0]
	for _, e := range c {
		if r.ev.Idle > 0 && now.Sub(e.lastUsed) >= r.ev.Idle {
			r.evictLocked(e, "idle")
			continue
		}
		rest = append(rest, e)
	}
	if r.ev.MaxMemory <= 0 || len(rest) == 0 {
		return
	}
	if r.gcCycles != nil && r.memCycles != 0 && r.gcCycles() == r.memCycles {
		return // what the last evictions freed is not collected yet
	}
	used := r.ev.Memory()
	if used <= r.ev.MaxMemory {
		return
	}
	// As if every site made held an equal part of what is used.
	n := int((int64(len(r.live))*(used-r.ev.MaxMemory) + used - 1) / used)
	for _, e := range rest[:min(max(n, 1), len(rest))] {
		r.evictLocked(e, "memory")
	}
	if r.gcCycles != nil {
		r.memCycles = max(r.gcCycles(), 1)
	}
}

// candidatesLocked returns the sites that can be evicted (made, serving
// no request, no MCP session open), least recently used first. r.mu is
// held.
func (r *Registry) candidatesLocked() []*entry {
	var c []*entry
	for _, e := range r.live {
		select {
		case <-e.done:
		default:
			continue // being made
		}
		if e.inst == nil || e.refs > 0 || (e.inst.Sessions != nil && e.inst.Sessions() > 0) {
			continue
		}
		c = append(c, e)
	}
	slices.SortFunc(c, func(a, b *entry) int { return a.lastUsed.Compare(b.lastUsed) })
	return c
}

// evictLocked closes site e, for reason. r.mu is held.
func (r *Registry) evictLocked(e *entry, reason string) {
	r.log.Info("chromafs serve: site evicted, made again at its next request", "site", e.site.Name, "reason", reason,
		"idle_s", int(time.Since(e.lastUsed).Seconds()))
	r.retireLocked(e.site.Name)
}

// Close stops every site's Run and closes the instances. Call it after
// the listeners have shut down.
func (r *Registry) Close() error {
	r.mu.Lock()
	r.cancel()
	var all []*entry
	for _, e := range r.live {
		all = append(all, e)
	}
	for e := range r.retired {
		all = append(all, e)
	}
	r.live, r.retired = map[string]*entry{}, map[*entry]struct{}{}
	var mine []*entry
	for _, e := range all {
		if !e.closed {
			e.closed = true
			mine = append(mine, e)
		}
	}
	r.mu.Unlock()
	r.wg.Wait()
	var errs []error
	for _, e := range mine {
		errs = append(errs, r.closeEntry(e))
	}
	return errors.Join(errs...)
}

// handler returns e's handler of kind under prefix, wrapped by its
// server; nil when the kind is not served.
func (e *entry) handler(kind, prefix string) http.Handler {
	key := kind + "\x00" + prefix
	e.mu.Lock()
	defer e.mu.Unlock()
	if h, ok := e.handlers[key]; ok {
		return h
	}
	var h http.Handler
	if raw := e.inst.Handler(kind, prefix); raw != nil {
		h = e.inst.Server.Wrap(kind, raw)
	}
	e.handlers[key] = h
	return h
}

// Handler returns the handler of a listener of kind (KindHTTP,
// KindWebDAV or KindMCP), which routes every request to one site or
// none:
//
//   - GET /healthz and /readyz are the process's probes (no credentials):
//     /readyz answers 200 with the number of sites configured and made.
//   - A request whose Host (without port, any case) is one of a site's
//     hosts is that site's, whatever its path: its root is / and its MCP
//     endpoint /mcp.
//   - Otherwise the path's first element names the site: /NAME/... is
//     under the site's root /NAME/, and /NAME/mcp is its MCP endpoint.
//   - On the MCP listener, the protected resource metadata of a site
//     with a JWT section (RFC 9728) answers at
//     /.well-known/oauth-protected-resource/NAME/mcp, and at
//     /.well-known/oauth-protected-resource/mcp on one of its hosts.
//
// A path with an element "." or "..", an encoded slash or backslash
// (%2F, %5C) or a control character reaches no site: such a path could
// name one site to this router and another to a client or proxy that
// normalizes it. Those, and names that are not sites, get the 404 a
// missing page gets.
func (r *Registry) Handler(kind string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.serve(kind, w, req)
	})
}

func (r *Registry) serve(kind string, w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		switch p {
		case "/healthz":
			r.ServeHealth(w, req)
			return
		case "/readyz":
			r.ServeReady(w, req)
			return
		}
	}
	notFound := r.notFound[kind]
	if notFound == nil || !safePath(req) {
		http.NotFound(w, req)
		return
	}
	rt := r.routes.Load()
	site, prefix := rt.hosts[hostOnly(req.Host)], "/"
	if site == nil {
		if meta, ok := strings.CutPrefix(p, MetadataPath+"/"); ok && kind == KindMCP {
			name, rest, _ := strings.Cut(meta, "/")
			if s := rt.sites[name]; s != nil && rest == "mcp" {
				r.metadata(w, req, s, "/"+name+"/mcp")
				return
			}
			notFound.ServeHTTP(w, req)
			return
		}
		name, _, _ := strings.Cut(p[1:], "/")
		if site = rt.sites[name]; site == nil {
			notFound.ServeHTTP(w, req)
			return
		}
		prefix = "/" + name + "/"
	} else if kind == KindMCP && p == MetadataPath+"/mcp" {
		r.metadata(w, req, site, "/mcp")
		return
	}
	metrics.SetSite(req.Context(), site.Name)
	e, err := r.acquire(site.Name)
	if errors.Is(err, errUnknown) {
		notFound.ServeHTTP(w, req) // removed by a reload meanwhile
		return
	}
	if err != nil {
		http.Error(w, "503 service unavailable: this site cannot be served now", http.StatusServiceUnavailable)
		return
	}
	defer r.release(e)
	if kind == KindMCP {
		if p != prefix+"mcp" {
			notFound.ServeHTTP(w, req)
			return
		}
		h := e.handler(kind, "/")
		if h == nil {
			notFound.ServeHTTP(w, req)
			return
		}
		r2 := req.Clone(req.Context())
		r2.URL.Path, r2.URL.RawPath = server.MCPPath, ""
		if site.Auth.JWT != nil {
			r2 = server.WithResourceMetadata(r2, baseURL(req)+MetadataPath+p)
		}
		h.ServeHTTP(w, r2)
		return
	}
	h := e.handler(kind, prefix)
	if h == nil {
		notFound.ServeHTTP(w, req)
		return
	}
	h.ServeHTTP(w, req)
}

// Metadata is the protected resource metadata of a site (RFC 9728 §2).
type Metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// metadata answers the protected resource metadata of site s, whose MCP
// endpoint is at path on the request's host: 404 for a site without a
// JWT section (it names no authorization server).
func (r *Registry) metadata(w http.ResponseWriter, req *http.Request, s *Site, path string) {
	if s.Auth.JWT == nil {
		r.notFound[KindMCP].ServeHTTP(w, req)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != http.MethodOptions {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	// A public document: browser-based clients (the MCP Inspector) read
	// it from another origin.
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", "mcp-protocol-version")
	if req.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	b, _ := json.MarshalIndent(Metadata{
		Resource:               baseURL(req) + path,
		AuthorizationServers:   []string{s.Issuer()},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           s.Name,
	}, "", "  ")
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if req.Method != http.MethodHead {
		_, _ = w.Write(append(b, '\n'))
	}
}

// baseURL is the scheme and host the client reached: https when the
// connection is TLS or a proxy in front says so (X-Forwarded-Proto; the
// value only shapes URLs sent back to the same client).
func baseURL(req *http.Request) string {
	scheme := "http"
	if req.TLS != nil || strings.EqualFold(strings.TrimSpace(req.Header.Get("X-Forwarded-Proto")), "https") {
		scheme = "https"
	}
	return scheme + "://" + req.Host
}

// safePath reports whether req's path can be routed: absolute, without
// "." or ".." elements, encoded slashes or backslashes, or control
// characters.
func safePath(req *http.Request) bool {
	p := req.URL.Path
	if !strings.HasPrefix(p, "/") {
		return false
	}
	raw := strings.ToLower(req.URL.EscapedPath())
	if strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") || strings.ContainsRune(p, '\\') {
		return false
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
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

// ServeHealth answers /healthz: 200 "ok" while the process serves.
func (r *Registry) ServeHealth(w http.ResponseWriter, req *http.Request) { probe(w, req, "ok\n") }

// ServeReady answers /readyz: 200, with the number of sites configured
// and made. A site's own readiness (its Chroma, its tree) shows in its
// answers: 503 with Retry-After while its collection cannot be reached.
func (r *Registry) ServeReady(w http.ResponseWriter, req *http.Request) {
	probe(w, req, fmt.Sprintf("ready\nsites: %d configured, %d loaded\n", r.Len(), r.Loaded()))
}

// probe answers a probe with 200 and body.
func probe(w http.ResponseWriter, req *http.Request, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if req.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}
