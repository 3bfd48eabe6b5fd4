package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/search"
	"github.com/chromafs/chromafs/shell"
)

// Defaults of Config.
const (
	// DefaultMaxOutput is the characters of a tool's answer before it is
	// cut.
	DefaultMaxOutput = 30_000
	// DefaultTimeout bounds a tool call.
	DefaultTimeout = shell.DefaultTimeout
)

// Limits of the read tool.
const (
	// ReadLimit is the lines read returns when limit is not given.
	ReadLimit = 2000
	// MaxLineLength is the characters of a line that read returns; the
	// rest is replaced by a marker.
	MaxLineLength = 2000
)

// Config configures New.
type Config struct {
	// FS returns the filesystem of a new session (the view of the
	// session's user). It is called at the session's first tool call
	// (or resource request, without Resources), with that call's
	// context; an error is that call's answer, and the next call asks
	// again. Required.
	FS func(ctx context.Context) (fs.FS, error)
	// Resources, if set, returns the filesystem that resources/list and
	// resources/read answer from, at each such request: the current view
	// of the session's user, so that after a
	// notifications/resources/list_changed (see NewNotifying) a client
	// lists and reads the new tree while the session's tools keep the
	// view they started with. Nil means the session's own filesystem
	// (FS's).
	Resources func(ctx context.Context) (fs.FS, error)
	// MaxResourceBytes bounds the text of a resources/read answer: 0
	// means DefaultMaxResourceBytes. A longer page is cut at a line's end
	// with a last line that says how to read the rest.
	MaxResourceBytes int
	// MaxOutput caps the characters (UTF-8 sequences) of each tool's
	// answer: 0 means DefaultMaxOutput, a negative value no cap.
	MaxOutput int
	// Timeout bounds each tool call, a bash command line included: 0
	// means DefaultTimeout.
	Timeout time.Duration
	// Version is the server version reported to clients.
	Version string
	// Logger receives the SDK's logs; nil means none.
	Logger *slog.Logger
	// ShellOptions are given to every shell.New after the output cap and
	// timeout (a time zone, a clock, other caps).
	ShellOptions []shell.Option
	// Search, if set, adds the search tool (semantic search over the
	// session's filesystem, answered with paths and line ranges) and the
	// shell command search to bash. *search.Engine is one; it is an
	// interface so that this package links no embedding function. Where
	// its semantic search fails with search.ErrNoEmbedder or
	// search.ErrNotSearchable, the tool answers from its lexical search
	// and says so in the answer's first line.
	Search search.Searcher
	// Tools names the tools to serve, among ToolNames; nil or empty
	// serves them all (search only with Search). Naming search needs
	// Search; bash keeps its search command whether or not the search
	// tool is served. Validate checks it.
	Tools []string
	// NameSuffix, if not empty, is appended to every tool's name after
	// an underscore ("acme": bash_acme, search_acme, ...), in tools/list,
	// in calls and wherever the descriptions and the server's
	// instructions name a tool, so that a client can hold the servers of
	// several sites at once. Validate checks it: a-z, 0-9, "_" and "-",
	// at most MaxNameSuffix characters.
	NameSuffix string
	// Middleware wraps the server's handling of each message, innermost
	// first, inside the server's own middleware: it sees each tool
	// call's *mcp.CallToolResult as the tool made it (metrics, traces).
	Middleware []mcp.Middleware
}

// server is the state behind the tools of one *mcp.Server.
type server struct {
	cfg   Config
	tools map[string]bool // the tools served, by base name

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
}

// session is what one MCP session keeps between tool calls.
type session struct {
	fsys fs.FS
	sh   *shell.Session
}

// New returns an MCP server with the tools bash, read, ls, glob, grep and
// stat (and search, with Config.Search), or those of Config.Tools, named
// with Config.NameSuffix, over the filesystems that cfg.FS gives its
// sessions (see the package documentation). Connect it to any number of
// transports; each session has its own filesystem and working directory.
// New panics when cfg.FS is nil or cfg.Validate fails.
func New(cfg Config) *mcp.Server {
	_, srv := newServer(cfg)
	return srv
}

// NewNotifying is New, and returns as well resourcesChanged, which sends
// notifications/resources/list_changed to every session of the server
// (after 10 ms without another call, so that a burst sends one): call it
// when the pages that Config.Resources gives have changed, a new tree
// version of the collection. A session that started with the protocol
// revision 2026-07-28 or later gets it only while it listens for it
// (subscriptions/listen), as the SDK sends it.
func NewNotifying(cfg Config) (srv *mcp.Server, resourcesChanged func()) {
	s, srv := newServer(cfg)
	return srv, func() { s.resourcesChanged(srv) }
}

// newServer is New, with the server whose methods are the tools.
func newServer(cfg Config) (*server, *mcp.Server) {
	if cfg.FS == nil {
		panic("mcpserver: Config.FS is nil")
	}
	if err := cfg.Validate(); err != nil {
		panic("mcpserver: " + err.Error())
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxResourceBytes <= 0 {
		cfg.MaxResourceBytes = DefaultMaxResourceBytes
	}
	version := cfg.Version
	if version == "" {
		version = "devel"
	}
	s := &server{cfg: cfg, tools: enabled(cfg), sessions: make(map[*mcp.ServerSession]*session)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "chromafs", Title: "chromafs", Version: version}, &mcp.ServerOptions{
		Instructions: s.instructions(),
		Logger:       cfg.Logger,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
	})
	s.addTools(srv)
	s.addResources(srv)
	srv.AddReceivingMiddleware(s.resourcesMiddleware)
	for _, m := range cfg.Middleware {
		srv.AddReceivingMiddleware(m)
	}
	srv.AddReceivingMiddleware(encodeResults)
	return s, srv
}

// session returns the state of the call's session, making it at the
// session's first call.
func (s *server) session(ctx context.Context, ss *mcp.ServerSession) (*session, error) {
	s.mu.Lock()
	se := s.sessions[ss]
	s.mu.Unlock()
	if se != nil {
		return se, nil
	}
	fsys, err := s.cfg.FS(ctx)
	if err != nil {
		return nil, err
	}
	opts := []shell.Option{shell.WithMaxOutput(s.cfg.MaxOutput), shell.WithTimeout(s.cfg.Timeout)}
	if s.cfg.Search != nil {
		opts = append(opts, shell.WithCommand("search", search.Command(s.cfg.Search)))
	}
	opts = append(opts, s.cfg.ShellOptions...)
	se = &session{fsys: fsys, sh: shell.New(fsys, opts...)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.sessions[ss]; old != nil {
		return old, nil // a concurrent first call won
	}
	s.sessions[ss] = se
	if ss != nil {
		// A filesystem that can load its pages in the background
		// (chromafs.FS) does so while the session lasts.
		preload, stop := context.WithCancel(context.WithoutCancel(ctx))
		if p, ok := fsys.(fscap.PreloadFS); ok {
			go p.Preload(preload)
		}
		go func() {
			_ = ss.Wait()
			stop()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
		}()
	}
	return se, nil
}

// call is what a tool handler starts with: the session, the filesystem
// bound to ctx, and ctx bounded by the timeout.
func (s *server) call(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc, *session, fs.FS, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	var ss *mcp.ServerSession
	if req != nil {
		ss = req.Session
	}
	se, err := s.session(ctx, ss)
	if err != nil {
		cancel()
		return nil, nil, nil, nil, fmt.Errorf("the filesystem cannot be opened: %w", err)
	}
	return ctx, cancel, se, fscap.Bind(ctx, se.fsys), nil
}

// resolve turns p, absolute or relative to the session's working
// directory ("" is the working directory), into an absolute path and an
// fs.FS name.
func (se *session) resolve(p string) (abs, name string) {
	if p == "" {
		p = "."
	}
	name = gnu.Resolve(se.sh.Dir(), p)
	return absPath(name), name
}

// absPath is the absolute path of an fs.FS name.
func absPath(name string) string {
	if name == "." {
		return "/"
	}
	return "/" + name
}

// stat describes name without reading content when fsys can
// (fscap.StatNoRead); the size is -1 when it is not known without a read.
func stat(fsys fs.FS, name string) (fs.FileInfo, int64, error) {
	fi, known, err := fscap.StatNoRead(fsys, name)
	if err != nil {
		return nil, 0, err
	}
	if !known {
		return fi, -1, nil
	}
	return fi, fi.Size(), nil
}

// pathError is the tool error for a failure on abs: for a path that does
// not exist (or is hidden: the filesystem cannot tell them apart, nor can
// this text), the nearest directory above it that exists, for an ls. It
// names the ls tool unsuffixed; the tools' own errors are
// server.pathError's, which name the tools as served.
func pathError(fsys fs.FS, abs string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := existingParent(fsys, abs)
		return fmt.Errorf("%s: no such file or directory (ls %s shows what %s holds)", abs, dir, dir)
	case errors.Is(err, fs.ErrInvalid):
		return fmt.Errorf("%s: invalid path", abs)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: timed out", abs)
	}
	return fmt.Errorf("%s: %s", abs, gnu.ErrText(err))
}

// pathError is the package's pathError for a tool's answer: the
// directory of a path that does not exist comes with the call, among the
// tools served, that lists it, named as served (none when no tool lists
// directories).
func (s *server) pathError(fsys fs.FS, abs string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return pathError(fsys, abs, err)
	}
	dir := existingParent(fsys, abs)
	if l := s.listCall(dir); l != "" {
		return fmt.Errorf("%s: no such file or directory (%s shows what %s holds)", abs, l, dir)
	}
	return fmt.Errorf("%s: no such file or directory", abs)
}

// listCall is the call that lists the directory abs with the tools
// served, by the names they are served under: ls, else ls in bash, else
// glob; "" when none of them is served.
func (s *server) listCall(abs string) string {
	return s.pick("", "",
		"ls", s.name("ls")+" "+abs,
		"bash", "ls "+abs+" in "+s.name("bash"),
		"glob", s.name("glob")+` "*" in `+abs)
}

// existingParent returns the nearest directory above abs that fsys
// lists; "/" at worst. Listing a directory reads no content.
func existingParent(fsys fs.FS, abs string) string {
	for dir := path.Dir(abs); ; dir = path.Dir(dir) {
		if dir == "/" {
			return dir
		}
		if fi, _, err := stat(fsys, strings.TrimPrefix(dir, "/")); err == nil && fi.IsDir() {
			return dir
		}
	}
}
