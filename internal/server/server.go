// Package server is what `chromafs serve` runs: per-user views of a
// collection over HTTP (package adapters/httpfs) and WebDAV (package
// adapters/webdavfs), with sign-in from a users file, anonymous access to
// public pages (or none), a health endpoint, request logs, and graceful
// shutdown.
//
// # Access
//
// A request signs in with HTTP Basic (a name and password from the users
// file, checked with bcrypt) or with "Authorization: Bearer TOKEN" (a
// token whose SHA-256 the users file lists). It then sees the pages that
// are public or shared with one of the user's groups, exactly as
// chromafs.New with WithGroups gives them. A request without credentials
// sees public pages only, or gets 401 when Config.DenyAnonymous is set.
// Wrong credentials always get 401, never the anonymous view.
package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/chromafs/chromafs"
)

// Config describes a server.
type Config struct {
	// Store is the collection; Options are given to every chromafs.New
	// (layout, separator, cache, tree max age, logger). WithGroups is
	// added per request.
	Store   chromafs.Store
	Options []chromafs.Option
	// Users may sign in; nil means nobody can (every request is
	// anonymous).
	Users *Users
	// DenyAnonymous refuses requests without credentials (401) instead
	// of showing them the public pages.
	DenyAnonymous bool
	// Logger receives one line per request and the server's errors.
	Logger *slog.Logger
}

type userKey struct{}

// anonymous is the user of requests without credentials.
var anonymous = &User{Name: "-"}

// Server holds what the handlers share.
type Server struct {
	cfg Config
	log *slog.Logger
	// verified remembers password checks that succeeded (bcrypt costs
	// tens of milliseconds, and WebDAV clients send credentials with
	// every request), keyed by name and a digest of the password.
	verified *otter.Cache[string, *User]
}

// New returns a server for cfg.
func New(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Server{
		cfg: cfg,
		log: log,
		verified: otter.Must(&otter.Options[string, *User]{
			MaximumSize:      10_000,
			ExpiryCalculator: otter.ExpiryWriting[string, *User](10 * time.Minute),
		}),
	}
}

// Resolve returns the filesystem the request's user may see, bound to the
// request's context. The handlers of the adapters call it.
func (s *Server) Resolve(r *http.Request) (fs.FS, error) {
	u, _ := r.Context().Value(userKey{}).(*User)
	if u == nil {
		return nil, errors.New("server: request without a user")
	}
	opts := append(append([]chromafs.Option(nil), s.cfg.Options...), chromafs.WithGroups(u.Groups...))
	fsys, err := chromafs.New(r.Context(), s.cfg.Store, opts...)
	if err != nil {
		return nil, err
	}
	return fsys.WithContext(r.Context()), nil
}

// authenticate finds the request's user: from Basic or Bearer
// credentials, else anonymous. ok is false for wrong credentials, or no
// credentials when anonymous access is denied.
func (s *Server) authenticate(r *http.Request) (*User, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return anonymous, !s.cfg.DenyAnonymous
	}
	if s.cfg.Users == nil {
		return nil, false
	}
	if token, ok := strings.CutPrefix(h, "Bearer "); ok {
		u, err := s.cfg.Users.checkToken(strings.TrimSpace(token))
		return u, err == nil
	}
	name, password, ok := r.BasicAuth()
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256([]byte(password))
	key := name + "\x00" + string(sum[:])
	if u, ok := s.verified.GetIfPresent(key); ok {
		return u, true
	}
	u, err := s.cfg.Users.checkPassword(name, password)
	if err != nil {
		return nil, false
	}
	s.verified.Set(key, u)
	return u, true
}

// Wrap puts authentication, a health endpoint (/healthz, no credentials
// needed) and request logging around h. kind names the protocol in logs.
func (s *Server) Wrap(kind string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		user := "-"
		defer func() {
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("proto", kind), slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", time.Since(start)), slog.String("user", user),
				slog.String("remote", r.RemoteAddr))
		}()
		if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
			rec.WriteHeader(http.StatusOK)
			_, _ = rec.Write([]byte("ok\n"))
			return
		}
		u, ok := s.authenticate(r)
		if !ok {
			rec.Header().Set("WWW-Authenticate", `Basic realm="chromafs", charset="UTF-8"`)
			http.Error(rec, "401 unauthorized", http.StatusUnauthorized)
			return
		}
		user = u.Name
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
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
