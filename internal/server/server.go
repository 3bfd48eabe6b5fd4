// Package server is what `chromafs serve` runs: per-user views of a
// collection over HTTP (package adapters/httpfs) and WebDAV (package
// adapters/webdavfs), with sign-in from a users file, anonymous access to
// public pages (or none), liveness and readiness endpoints, request logs,
// and graceful shutdown.
//
// # Access
//
// A request signs in with HTTP Basic (a name and password from the users
// file, checked with bcrypt) or with "Authorization: Bearer TOKEN" (a
// token whose SHA-256 the users file lists); the scheme is
// case-insensitive (RFC 7235). It then sees the pages that are public or
// shared with one of the user's groups, exactly as chromafs.New with
// WithGroups gives them. A request without credentials sees public pages
// only, or gets 401 when Config.DenyAnonymous is set. Wrong credentials
// always get 401, never the anonymous view. Failed sign-ins are limited
// per client address and per user name, and password checks in flight
// are bounded (see AuthLimits): past the limits a sign-in gets 429 (or
// 503) with Retry-After.
//
// # Readiness
//
// /healthz answers 200 while the process serves. /readyz answers 200 when
// the store is open, Chroma answered the last check and the tree loaded,
// and 503 with a short reason otherwise (see Server.ServeReady). A server
// may start before its store can be opened (Config.Open): Run opens it
// in the background, with backoff, and every other request gets 503 with
// Retry-After until then. Neither endpoint needs credentials.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/internal/identity"
)

// Config describes a server.
type Config struct {
	// Store is the collection, already open. When it is nil, Open opens
	// it: Run calls Open until it succeeds, with backoff, and until then
	// every request but /healthz and /readyz gets 503 with Retry-After.
	Store collection.Store
	Open  func(ctx context.Context) (collection.Store, error)
	// Options are given to every chromafs.New (layout, separator, cache,
	// tree max age, logger). WithGroups is added per request.
	Options []chromafs.Option
	// Users may sign in; nil means nobody can (every request is
	// anonymous).
	Users *Users
	// DenyAnonymous refuses requests without credentials (401) instead
	// of showing them the public pages.
	DenyAnonymous bool
	// Tokens, if set, signs in the bearer tokens that Users does not
	// list: JWTs of the site's identity provider, checked by package
	// identity (signature, issuer, the site's own audience, expiry), whose
	// subject is the user (named "jwt:SUBJECT") and whose groups claim are
	// the user's groups. A refused token gets the status identity.Status
	// gives (401, or 400, 403, 503) and a Bearer challenge
	// (identity.Challenge) naming the resource metadata URL that the
	// request carries (see WithResourceMetadata), as the MCP
	// authorization spec wants; so does a request without credentials
	// when DenyAnonymous is set.
	Tokens *identity.Verifier
	// Auth bounds failed sign-ins and password checks; zero fields take
	// their defaults (see AuthLimits).
	Auth AuthLimits
	// Rate bounds the requests of each client and of all together (see
	// RateLimits); the zero value limits nothing.
	Rate RateLimits
	// Cache, if not nil, is pinged by every readiness check and reported
	// by /readyz; its failure does not make the server unready (pages
	// are then read from the store). *rediscache.Cache has Ping.
	Cache Pinger
	// ResolveTimeout bounds a request's bootstrap (chromafs.New: the
	// tree's version and record, when they are older than the tree max
	// age) as a whole (default 30 s), so that a frozen Chroma costs a
	// request one deadline for it, not one per call.
	ResolveTimeout time.Duration
	// DownTimeout bounds a request (its context) while the last
	// readiness check found Chroma unreachable or not answering (default
	// 5 s): requests that need Chroma then fail fast (504 or 503) instead
	// of waiting for the store's deadline; pages in the cache are still
	// served. A lazy pointer's fetch is bounded by it too then.
	DownTimeout time.Duration
	// CheckInterval is how often Run checks readiness while ready
	// (default 5 s); while not ready it retries sooner, backing off from
	// 0.5 s to CheckInterval*2. CheckTimeout bounds one check (default
	// 10 s).
	CheckInterval, CheckTimeout time.Duration
	// Logger receives one line per request and the server's errors.
	Logger *slog.Logger
	// OnRefused, if not nil, is called for each request refused before
	// it reaches a handler, with why: RefusedCredentials (401: missing or
	// wrong credentials), RefusedSignInLimit (429: too many failed
	// sign-ins), RefusedSignInBusy (503: too many sign-ins at once),
	// RefusedRate (429: past Rate). For metrics; it must be fast.
	OnRefused func(why string)
}

// The reasons of Config.OnRefused.
const (
	RefusedCredentials = "credentials"
	RefusedSignInLimit = "signin_limit"
	RefusedSignInBusy  = "signin_busy"
	RefusedRate        = "rate"
)

// Pinger is a service that /readyz reports on.
type Pinger interface {
	Ping(ctx context.Context) error
}

type userKey struct{}

type metadataKey struct{}

// WithResourceMetadata returns r with the URL of the protected resource
// metadata (RFC 9728) of the resource it asks for, which a 401 of a
// server with Config.Tokens names in its WWW-Authenticate challenge
// (resource_metadata="URL"). The router that knows under which URL the
// resource was reached sets it.
func WithResourceMetadata(r *http.Request, url string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), metadataKey{}, url))
}

// anonymous is the user of requests without credentials.
var anonymous = &User{Name: "-"}

// Server holds what the handlers share.
type Server struct {
	cfg   Config
	log   *slog.Logger
	guard *guard
	rate  *rateLimiter // nil: no rate limits
	// verified remembers password checks that succeeded (bcrypt costs
	// tens of milliseconds, and WebDAV clients send credentials with
	// every request), keyed by name and a digest of the password.
	verified *otter.Cache[string, *User]

	store     atomic.Pointer[storeBox] // nil until open
	opened    atomic.Bool              // the store came from Config.Open (Close closes it)
	state     atomic.Pointer[readiness]
	checkMu   sync.Mutex  // one readiness check at a time
	running   atomic.Bool // Run is running
	kicking   atomic.Bool // a check started by kick is running
	nextCheck atomic.Int64

	treeMu    sync.Mutex
	treeSeen  string   // the tree version that the last check loaded
	treeHooks []func() // called when a check loads another version
}

// storeBox holds the open store.
type storeBox struct{ collection.Store }

// New returns a server for cfg.
func New(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = 5 * time.Second
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = 10 * time.Second
	}
	if cfg.ResolveTimeout <= 0 {
		cfg.ResolveTimeout = 30 * time.Second
	}
	if cfg.DownTimeout <= 0 {
		cfg.DownTimeout = 5 * time.Second
	}
	s := &Server{
		cfg:   cfg,
		log:   log,
		guard: newGuard(cfg.Auth),
		rate:  newRateLimiter(cfg.Rate),
		verified: otter.Must(&otter.Options[string, *User]{
			MaximumSize:      10_000,
			ExpiryCalculator: otter.ExpiryWriting[string, *User](10 * time.Minute),
		}),
	}
	if cfg.Store != nil {
		s.store.Store(&storeBox{cfg.Store})
	}
	return s
}

// Resolve returns the filesystem the request's user may see, bound to the
// request's context. The handlers of the adapters call it. Before the
// store is open it returns an error wrapping ErrNotReady and the cause
// of the last failed attempt (such as syscall.ECONNREFUSED).
func (s *Server) Resolve(r *http.Request) (fs.FS, error) {
	u, _ := r.Context().Value(userKey{}).(*User)
	if u == nil {
		return nil, errors.New("server: request without a user")
	}
	store, err := s.openStore()
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	opts := append(append([]chromafs.Option(nil), s.cfg.Options...), chromafs.WithGroups(u.Groups...))
	limit := s.cfg.ResolveTimeout
	if st := s.state.Load(); st != nil && st.down {
		// Leave half of the request's DownTimeout (see Wrap) to the
		// reads, so that a tree served stale (chromafs.WithStaleTree)
		// still gets its cached pages read.
		limit = min(limit, s.cfg.DownTimeout/2)
	}
	bctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	fsys, err := chromafs.New(bctx, store, opts...)
	// The bootstrap's deadline passed: Chroma did not answer (New may
	// still have served a stale tree). Check readiness now rather than at
	// the next interval, and bound this request's reads as a request's
	// while Chroma is down.
	timedOut := bctx.Err() != nil && ctx.Err() == nil
	if timedOut || (err != nil && fscap.IsUnavailable(err)) {
		s.kick()
	}
	if err != nil {
		return nil, err
	}
	if timedOut {
		rctx, cancel := context.WithTimeout(ctx, s.cfg.DownTimeout/2)
		context.AfterFunc(ctx, cancel) // ctx ends with the request
		ctx = rctx
	}
	return fsys.WithContext(ctx), nil
}

// authResult is what authenticate decided.
type authResult int

const (
	authOK           authResult = iota
	authUnauthorized            // 401
	authLimited                 // 429: too many failures from the address or for the name
	authBusy                    // 503: no place to run a password check in time
	authRefused                 // a bearer token refused by Config.Tokens: the status of identity.Status
)

// authenticate finds the request's user: from Basic or Bearer
// credentials, else anonymous. The scheme is case-insensitive (RFC 7235).
// wait is the Retry-After of authLimited; err is why Config.Tokens
// refused a token (authRefused, or authUnauthorized without credentials).
func (s *Server) authenticate(r *http.Request) (u *User, res authResult, wait time.Duration, err error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if s.cfg.DenyAnonymous {
			return nil, authUnauthorized, 0, &identity.Error{Reason: identity.ErrNoToken, Detail: "this site needs sign-in"}
		}
		return anonymous, authOK, 0, nil
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(h), " ")
	cred = strings.TrimSpace(cred)
	addr := clientKey(r)
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return s.checkToken(r.Context(), addr, h, cred)
	case strings.EqualFold(scheme, "Basic"):
		name, password, ok := parseBasic(cred)
		if !ok {
			return nil, authUnauthorized, 0, nil
		}
		u, res, wait := s.checkPassword(r.Context(), addr, name, password)
		return u, res, wait, nil
	}
	return nil, authUnauthorized, 0, nil
}

// parseBasic decodes the credentials of a Basic Authorization header.
func parseBasic(cred string) (name, password string, ok bool) {
	b, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(b), ":")
}

// checkToken signs in a bearer token: one the users file lists, else a
// JWT of Config.Tokens. header is the whole Authorization value.
func (s *Server) checkToken(ctx context.Context, addr, header, token string) (*User, authResult, time.Duration, error) {
	done, wait := s.guard.attempt(addr, "")
	if wait > 0 {
		return nil, authLimited, wait, nil
	}
	if s.cfg.Users != nil {
		if u, err := s.cfg.Users.checkToken(token); err == nil {
			done(true)
			return u, authOK, 0, nil
		}
	}
	if v := s.cfg.Tokens; v != nil {
		tok, err := v.BearerToken(header)
		if err == nil {
			var sub string
			var groups []string
			if sub, groups, err = v.Verify(ctx, tok); err == nil {
				done(true)
				return &User{Name: "jwt:" + sub, Groups: groups}, authOK, 0, nil
			}
		}
		// Keys that cannot be fetched are no failure of the client's.
		done(identity.Status(err) == http.StatusServiceUnavailable)
		return nil, authRefused, 0, err
	}
	done(false)
	return nil, authUnauthorized, 0, nil
}

func (s *Server) checkPassword(ctx context.Context, addr, name, password string) (*User, authResult, time.Duration) {
	sum := sha256.Sum256([]byte(password))
	key := name + "\x00" + string(sum[:])
	if u, ok := s.verified.GetIfPresent(key); ok {
		return u, authOK, 0
	}
	done, wait := s.guard.attempt(addr, name)
	if wait > 0 {
		return nil, authLimited, wait
	}
	if s.cfg.Users == nil {
		done(false)
		return nil, authUnauthorized, 0
	}
	release, ok := s.guard.startHashing(ctx)
	if !ok {
		done(true) // not checked: no failure to count
		return nil, authBusy, time.Second
	}
	u, err := s.cfg.Users.checkPassword(name, password)
	release()
	if err != nil {
		done(false)
		return nil, authUnauthorized, 0
	}
	done(true)
	s.verified.Set(key, u)
	return u, authOK, 0
}

// Wrap puts authentication, the probe endpoints (/healthz and /readyz,
// no credentials needed, see ServeHealth and ServeReady) and request
// logging around h. kind names the protocol in logs. Before the store is
// open every other request gets 503 with Retry-After.
func (s *Server) Wrap(kind string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		user := "-"
		defer func() {
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("proto", kind), slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int64("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000), slog.String("user", user),
				slog.String("remote", r.RemoteAddr))
		}()
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			switch r.URL.Path {
			case "/healthz":
				s.ServeHealth(rec, r)
				return
			case "/readyz":
				s.ServeReady(rec, r)
				return
			}
		}
		if s.store.Load() == nil {
			rec.Header().Set("Retry-After", retryAfter(s.untilNextCheck()))
			http.Error(rec, "503 service unavailable: the collection cannot be reached yet", http.StatusServiceUnavailable)
			return
		}
		u, res, wait, aerr := s.authenticate(r)
		if f := s.cfg.OnRefused; f != nil {
			switch res {
			case authUnauthorized, authRefused:
				f(RefusedCredentials)
			case authLimited:
				f(RefusedSignInLimit)
			case authBusy:
				f(RefusedSignInBusy)
			}
		}
		switch res {
		case authUnauthorized:
			s.challenge(rec, r, aerr)
			http.Error(rec, "401 unauthorized", http.StatusUnauthorized)
			return
		case authRefused:
			code := identity.Status(aerr)
			s.challenge(rec, r, aerr)
			if code == http.StatusServiceUnavailable {
				rec.Header().Set("Retry-After", "5")
			}
			http.Error(rec, fmt.Sprintf("%d %s: %v", code, strings.ToLower(http.StatusText(code)), aerr), code)
			return
		case authLimited:
			rec.Header().Set("Retry-After", retryAfter(wait))
			http.Error(rec, "429 too many failed sign-ins: try again later", http.StatusTooManyRequests)
			return
		case authBusy:
			rec.Header().Set("Retry-After", retryAfter(wait))
			http.Error(rec, "503 service unavailable: too many sign-ins at once", http.StatusServiceUnavailable)
			return
		}
		user = u.Name
		if s.rate != nil {
			if wait := s.rate.allow(rateKey(r, u), time.Now()); wait > 0 {
				if f := s.cfg.OnRefused; f != nil {
					f(RefusedRate)
				}
				rec.Header().Set("Retry-After", retryAfter(wait))
				http.Error(rec, "429 too many requests: slow down and retry after the Retry-After seconds", http.StatusTooManyRequests)
				return
			}
		}
		ctx := context.WithValue(r.Context(), userKey{}, u)
		if st := s.state.Load(); st != nil && st.down {
			// Chroma did not answer the last check: fail fast rather
			// than make every request wait for its full deadline. Pages
			// in the cache need no Chroma and are still served.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.cfg.DownTimeout)
			defer cancel()
		}
		h.ServeHTTP(rec, r.WithContext(ctx))
	})
}

// challenge sets the WWW-Authenticate headers of a refused request: a
// Bearer challenge (with the request's resource metadata URL, see
// WithResourceMetadata) when Config.Tokens is set, and the Basic one when
// the users file can sign users in (or nothing else can).
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, err error) {
	if s.cfg.Tokens != nil {
		if err == nil {
			err = &identity.Error{Reason: identity.ErrNoToken}
		}
		var params []string
		if u, _ := r.Context().Value(metadataKey{}).(string); u != "" {
			params = []string{"resource_metadata", u}
		}
		w.Header().Add("WWW-Authenticate", identity.Challenge(err, params...))
		if s.cfg.Users == nil {
			return
		}
	}
	w.Header().Add("WWW-Authenticate", `Basic realm="chromafs", charset="UTF-8"`)
}

// recorder notes the status and size of a response for the log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Limits are the timeouts and header limit of every listener.
type Limits struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxHeaderBytes                                            int
	// ShutdownTimeout bounds the graceful shutdown: requests still
	// running after it are cut off.
	ShutdownTimeout time.Duration
}

// DefaultLimits suit a docs server: requests are small, responses are
// pages (a slow client gets five minutes for one).
var DefaultLimits = Limits{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      5 * time.Minute,
	IdleTimeout:       2 * time.Minute,
	MaxHeaderBytes:    64 << 10,
	ShutdownTimeout:   30 * time.Second,
}

// Listener is one address to serve and its handler.
type Listener struct {
	Listener net.Listener
	Handler  http.Handler
}

// Serve serves every listener until ctx is done (for example on SIGTERM),
// then shuts them down gracefully: it stops accepting, lets running
// requests finish within lim.ShutdownTimeout, and returns. It returns the
// first error of a server that failed for another reason.
func Serve(ctx context.Context, lim Limits, log *slog.Logger, listeners ...Listener) error {
	if log == nil {
		log = slog.Default()
	}
	var servers []*http.Server
	errc := make(chan error, len(listeners))
	var wg sync.WaitGroup
	for _, l := range listeners {
		srv := &http.Server{
			Handler:           l.Handler,
			ReadHeaderTimeout: lim.ReadHeaderTimeout,
			ReadTimeout:       lim.ReadTimeout,
			WriteTimeout:      lim.WriteTimeout,
			IdleTimeout:       lim.IdleTimeout,
			MaxHeaderBytes:    lim.MaxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
			BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		}
		servers = append(servers, srv)
		wg.Go(func() {
			if err := srv.Serve(l.Listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		})
	}
	var first error
	select {
	case <-ctx.Done():
	case first = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), lim.ShutdownTimeout)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("chromafs serve: shutdown", "err", err)
			_ = srv.Close()
		}
	}
	wg.Wait()
	return first
}
