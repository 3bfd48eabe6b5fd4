package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/mcpserver"
)

// firstCheckTimeout bounds serve's readiness check before it listens: a
// frozen Chroma delays the start by this much at most.
const firstCheckTimeout = 5 * time.Second

func serveCommand(g *globals) *cobra.Command {
	var (
		httpAddr, davAddr, usersPath  string
		sitesPath                     string
		rateLim                       server.RateLimits
		siteIdle                      time.Duration
		maxSitesLoaded                int
		maxMemory                     = byteSize(defaultMaxMemory())
		mcpAddr, mcpEmbedding         string
		mcpOpt                        server.MCPOptions
		denyAnonymous, infiniteDepth  bool
		noPointerFetch, activeContent bool
		treeMaxAge, staleTree         time.Duration
		lim                           = server.DefaultLimits
		ops                           opsFlags
	)
	c := &cobra.Command{
		Use:   "serve --http ADDR | --webdav ADDR | --mcp ADDR",
		Short: "Serve the collection over HTTP, WebDAV and/or MCP, read-only, with per-user access",
		Long: `serve exposes the collection as a read-only file server over HTTP (GET, HEAD,
ETag, Range, directory listings) and/or WebDAV (mountable with Finder,
Explorer, davfs2, rclone) and/or to AI agents over MCP (streamable HTTP at
/mcp, the tools of chromafs mcp), each user seeing only their pages.

Users sign in with HTTP Basic (name and password) or a bearer token, listed
in --users FILE:

  # name   fields: password=BCRYPT, token-sha256=HEX, groups=a,b
  alice    password=$2a$10$...     groups=staff
  ci-bot   token-sha256=9f86d0...  groups=staff,release

(chromafs hash-password and chromafs hash-token make those fields.) Requests
without credentials see public pages only, or are refused with
--deny-anonymous; wrong credentials get 401. Failed sign-ins are limited
per client address and per user name (10 in a row, then one every 6 s):
past that a sign-in gets 429 with Retry-After.

Probes need no credentials: /healthz answers 200 while the process serves
(liveness); /readyz answers 200 when Chroma answered the last check and the
tree loaded, else 503 with a short reason, and reports Redis (which is not
needed to be ready). serve starts even while Chroma is unreachable: it
listens, answers 503 with Retry-After, and opens the collection in the
background, retrying with backoff. Each request to Chroma is bounded by
--chroma-timeout (default 30s): a Chroma that stops answering gives 504, not
a hang. SIGTERM or SIGINT shuts down gracefully.

Lazy file pointers (pages whose content lives at a URL) are fetched by the
server when read. --no-pointer-fetch stops that: they are still listed, and
reading one answers 502, so the server never requests a URL that the tree
names. Pointers are fetched from public addresses only, unless
--pointer-allow names others.

Pages of active types (HTML, SVG, XML, JavaScript) are served as text/plain
unless --allow-active-content is given, and every answer carries
X-Content-Type-Options: nosniff.

--mcp ADDR serves MCP at http://ADDR/mcp: each MCP session is a session of
its user (the same sign-in as above, on every request) with its own working
directory, and belongs to that user. Sessions are bounded in number
(--mcp-max-sessions, then 503; --mcp-max-user-sessions per user, then 429)
and closed after --mcp-session-idle without a request; request bodies are
bounded by --mcp-max-body (then 413). A request
that reaches a loopback address with a Host that is not loopback gets 403
(DNS rebinding), and so does one whose Origin is neither the server's own nor
one of --mcp-allow-origin. The search tool embeds queries with the function
that the collection's configuration records, or with --mcp-embedding NAME;
when neither can be used, it ranks pages by the query's words and says so.

To run a fleet: --admin ADDR serves /metrics (Prometheus), /healthz and
/readyz on a listener of its own (and Go's profiles with --pprof);
--otlp-endpoint URL (or OTEL_EXPORTER_OTLP_ENDPOINT) sends OpenTelemetry
traces; --mcp-stateless lets any process answer any MCP request (each call
then starts at /); --max-in-flight bounds the requests served at once (then
503 with Retry-After) and --chroma-max-concurrent those sent to Chroma.

--sites FILE serves many doc sites, each a collection with its own sign-in
and MCP tools, on the same listeners: /NAME/ is site NAME's root (HTTP,
WebDAV) and /NAME/mcp its MCP endpoint; a request whose Host is one of a
site's hosts reaches it at / and /mcp. A name that is no site gets the 404 a
missing page gets. A path with "." or ".." elements, %2F or %5C reaches no
site (404). Sites are opened on their first request. The file:

  sites:
    - name: acme                 # [a-z0-9][a-z0-9_-]*, in URLs
      collection: acme-docs      # required
      # optional, else the global flags: tenant, database, chroma_url,
      # chroma_token_file (a file holding the API key), slug_field,
      # index_field, tree_id, separator
      hosts: [docs.acme.com]     # optional
      auth:
        anonymous: public        # or deny (401 without credentials)
        users: acme.users        # optional: the --users format above
        jwt:                     # optional: tokens of an identity provider
          jwks: https://login.acme.com/.well-known/jwks.json  # or a file
          # oidc_issuer: https://login.acme.com   (instead of jwks)
          issuer: https://login.acme.com
          audience: https://docs.acme.com/mcp   # this site's own
          groups_claim: groups   # a list, or a string split at
          groups_delimiter: " "  #   groups_delimiter
          algorithms: [EdDSA, ES256, RS256]     # the default
      mcp:
        tools: [bash, search]    # of bash, read, ls, glob, grep, stat, search
        suffix: acme             # tool names bash_acme, search_acme
        max_sessions: 200        # else --mcp-max-sessions
        max_user_sessions: 10    # else --mcp-max-user-sessions
      limits:                    # requests/s, else the --*rate* flags
        rate: 20                 # of one client: its user, else its
        burst: 40                #   address (an IPv6 /64 counts as one)
        site_rate: 500           # of all the site's clients together
        site_burst: 1000

Unknown keys are errors naming their line; relative file names are relative
to the sites file. A bearer token is checked for its signature, exp, nbf,
iss and the site's own aud (a token for one site never opens another). A
site with jwt answers an MCP request it refuses with 401 and
WWW-Authenticate: Bearer resource_metadata="URL", and serves that OAuth
protected resource metadata (RFC 9728), naming its issuer as the
authorization server, at /.well-known/oauth-protected-resource/NAME/mcp (on
one of its hosts: /.well-known/oauth-protected-resource/mcp). chromafs
issues no tokens. The --mcp-* session limits apply to each site. A request
past a site's rate limits (--rate-limit and --site-rate-limit, or the
site's limits:) gets 429 with Retry-After. SIGHUP reads the sites file
again: unchanged sites keep their state and MCP sessions, changed ones are
made again at their next request (their MCP sessions end), removed ones
answer 404; a file with a mistake is refused with one log line and the
sites are served as before. --users and --deny-anonymous cannot be
combined with --sites (each site has auth:).

Sites are opened at their first request and closed (their caches dropped)
after --site-idle without a request, or least recently used first past
--max-sites-loaded or past the --max-memory budget; a site with MCP
sessions open is not closed. The page and tree caches of all sites share
the budget.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if httpAddr == "" && davAddr == "" && mcpAddr == "" {
				return errors.New("serve: give --http ADDR, --webdav ADDR, --mcp ADDR, or several")
			}
			if err := checkEmbeddingName("--mcp-embedding", mcpEmbedding); err != nil {
				return err
			}
			log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			if sitesPath == "" {
				for _, name := range []string{"rate-limit", "rate-burst", "site-rate-limit", "site-rate-burst", "site-idle", "max-sites-loaded", "max-memory"} {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("serve: --%s applies with --sites only", name)
					}
				}
			}
			if sitesPath != "" {
				return serveSites(cmd, g, &ops, sitesFlags{
					path: sitesPath, httpAddr: httpAddr, davAddr: davAddr, mcpAddr: mcpAddr, mcpEmbedding: mcpEmbedding,
					mcpOpt: mcpOpt, usersPath: usersPath, denyAnonymous: denyAnonymous, infiniteDepth: infiniteDepth,
					noPointerFetch: noPointerFetch, activeContent: activeContent, treeMaxAge: treeMaxAge, staleTree: staleTree,
					lim: lim, rate: rateLim, log: log,
					siteIdle: siteIdle, maxSitesLoaded: maxSitesLoaded, maxMemory: int64(maxMemory),
				})
			}
			var users *server.Users
			if usersPath != "" {
				var err error
				if users, err = server.LoadUsers(usersPath); err != nil {
					return err
				}
			} else if denyAnonymous {
				return errors.New("serve: --deny-anonymous without --users would refuse every request")
			}
			if g.collection == "" {
				return errors.New("no collection: set --collection or CHROMAFS_COLLECTION")
			}
			// The collection is opened by the server, with retries: serve
			// starts (and answers /healthz) while Chroma is unreachable.
			// Only a configuration that no retry can fix stops it here.
			scfg := g.storeConfig(false)
			scfg.Timeout = g.net.serveChromaTimeout()
			if err := scfg.Validate(); err != nil {
				return err
			}
			obs, err := ops.start(cmd.Context(), log)
			if err != nil {
				return err
			}
			defer obs.stop(log)
			obs.instrumentStore(&scfg)
			cache := cachepkg.Cache(cachepkg.NewMemory(0))
			var rc *rediscache.Cache
			if g.redisURL != "" {
				var err error
				if rc, err = rediscache.New(g.redisURL, rediscache.Options{Logger: log}); err != nil {
					return err
				}
				defer rc.Close()
				if h := obs.tracing.RedisHook(); h != nil {
					rc.AddHook(h)
				}
				cache = cachepkg.NewTiered(cachepkg.NewMemory(0), rc)
			}
			shared := chromafs.NewShared(0)
			obs.addTrees(shared)
			opts := []chromafs.Option{
				chromafs.WithShared(shared),
				chromafs.WithLayout(g.layout()),
				chromafs.WithSeparator(g.separatorValue()),
				chromafs.WithCache(cache),
				chromafs.WithTreeMaxAge(treeMaxAge),
				chromafs.WithLogger(log),
			}
			if noPointerFetch {
				opts = append(opts, chromafs.WithResolver(nil))
			} else {
				res, err := g.pointers.resolver()
				if err != nil {
					return err
				}
				opts = append(opts, chromafs.WithResolver(res))
			}
			if staleTree > 0 {
				opts = append(opts, chromafs.WithStaleTree(staleTree))
			}
			var opened atomic.Pointer[chromastore.Collection] // for the search tool
			cfg := server.Config{
				Open: func(ctx context.Context) (collection.Store, error) {
					c, err := chromastore.Open(ctx, scfg)
					if err != nil {
						return nil, err
					}
					opened.Store(c)
					return c, nil
				},
				Options: opts, Users: users, DenyAnonymous: denyAnonymous, Logger: log,
				// A bootstrap is a lookup and at most a tree record:
				// seconds on a healthy Chroma.
				ResolveTimeout: min(scfg.Timeout, 10*time.Second),
			}
			if rc != nil {
				cfg.Cache = rc
			}
			obs.metrics.AddCache("redis", cache)
			cfg.OnRefused = obs.refused
			srv := server.New(cfg)
			defer srv.Close()
			// One check before listening, so that a reachable collection
			// is served from the first request; then Run keeps checking.
			first, cancelFirst := context.WithTimeout(cmd.Context(), firstCheckTimeout)
			srv.Check(first)
			cancelFirst()
			rctx, stopRun := context.WithCancel(cmd.Context())
			runDone := make(chan struct{})
			go func() { srv.Run(rctx); close(runDone) }()
			defer func() { stopRun(); <-runDone }()
			var listeners []server.Listener
			add := func(addr, kind string, h http.Handler) error {
				if addr == "" {
					return nil
				}
				l, err := net.Listen("tcp", addr)
				if err != nil {
					return fmt.Errorf("serve %s: %w", kind, err)
				}
				endpoint := "/"
				if kind == "mcp" {
					endpoint = server.MCPPath
				}
				fmt.Fprintf(cmd.OutOrStdout(), "chromafs: %s on http://%s%s\n", kind, l.Addr(), endpoint)
				listeners = append(listeners, server.Listener{Listener: l, Handler: obs.wrap(kind, srv.Wrap(kind, h))})
				return nil
			}
			if err := add(httpAddr, "http", httpfs.NewHandler(srv.Resolve, httpfs.Options{Logger: log, AllowActiveContent: activeContent})); err != nil {
				return err
			}
			if err := add(davAddr, "webdav", webdavfs.NewHandler(srv.Resolve, webdavfs.Options{AllowInfiniteDepth: infiniteDepth, AllowActiveContent: activeContent, Logger: log})); err != nil {
				for _, l := range listeners {
					l.Listener.Close()
				}
				return err
			}
			mcpOpt.ViewMaxAge = treeMaxAge
			mcpOpt.Tools.Version = shortVersion()
			mcpOpt.Tools.Logger = log
			mcpOpt.Tools.Search = &lazySearch{store: opened.Load, override: mcpEmbedding, report: func(reason error) {
				log.Warn("the MCP search tool ranks pages by the query's words, as no embedding function is usable (--mcp-embedding NAME names the collection's)", "err", reason)
			}}
			obs.instrumentMCP(&mcpOpt, "")
			if err := add(mcpAddr, "mcp", srv.MCPHandler(mcpOpt)); err != nil {
				for _, l := range listeners {
					l.Listener.Close()
				}
				return err
			}
			admin, err := obs.adminListener(cmd.OutOrStdout(), http.HandlerFunc(srv.ServeHealth), http.HandlerFunc(srv.ServeReady))
			if err != nil {
				for _, l := range listeners {
					l.Listener.Close()
				}
				return err
			}
			if admin != nil {
				listeners = append(listeners, *admin)
			}
			return server.Serve(cmd.Context(), lim, log, listeners...)
		},
	}
	f := c.Flags()
	f.StringVar(&httpAddr, "http", "", "address of the HTTP file server, e.g. 127.0.0.1:8080")
	f.StringVar(&davAddr, "webdav", "", "address of the WebDAV server, e.g. 127.0.0.1:8081")
	f.StringVar(&mcpAddr, "mcp", "", "address of the MCP server (streamable HTTP at /mcp), e.g. 127.0.0.1:8082")
	f.IntVar(&mcpOpt.MaxSessions, "mcp-max-sessions", server.DefaultMCPMaxSessions, "MCP sessions open at once, of all users; past it a new session gets 503")
	f.IntVar(&mcpOpt.MaxUserSessions, "mcp-max-user-sessions", server.DefaultMCPUserSessions, "MCP sessions open at once of one user (of one client address for anonymous ones); past it a new session of that user gets 429")
	f.DurationVar(&mcpOpt.SessionIdle, "mcp-session-idle", server.DefaultMCPSessionIdle, "close an MCP session after this long without a request")
	f.Int64Var(&mcpOpt.MaxBodyBytes, "mcp-max-body", server.DefaultMCPMaxBodyBytes, "largest MCP request body in bytes (then 413)")
	f.StringSliceVar(&mcpOpt.AllowedOrigins, "mcp-allow-origin", nil, "origin (scheme://host:port) whose browsers may call the MCP endpoint besides the server's own; repeatable")
	f.IntVar(&mcpOpt.Tools.MaxOutput, "mcp-max-output", mcpserver.DefaultMaxOutput, "characters of each MCP tool's answer before it is cut (-1: no limit)")
	f.DurationVar(&mcpOpt.Tools.Timeout, "mcp-timeout", mcpserver.DefaultTimeout, "deadline of each MCP tool call")
	f.StringVar(&mcpEmbedding, "mcp-embedding", "", "embed the MCP search tool's queries with `NAME` instead of the collection's recorded function: "+strings.Join(searchEmbeddings, ", "))
	f.StringVar(&sitesPath, "sites", "", "serve the doc sites of a sites `FILE` (YAML, see above) instead of --collection: /NAME/ and /NAME/mcp, or a site's hosts")
	f.Float64Var(&rateLim.Rate, "rate-limit", 0, "with --sites: requests per second of one client of a site (its user, else its address), then 429; 0: no limit (a site's limits.rate overrides)")
	f.IntVar(&rateLim.Burst, "rate-burst", 0, "with --sites: requests one client may make at once (default the rate, at least 1)")
	f.Float64Var(&rateLim.SiteRate, "site-rate-limit", 0, "with --sites: requests per second of all clients of a site together, then 429; 0: no limit (limits.site_rate overrides)")
	f.IntVar(&rateLim.SiteBurst, "site-rate-burst", 0, "with --sites: requests of a site at once (default the site rate, at least 1)")
	f.DurationVar(&siteIdle, "site-idle", 10*time.Minute, "with --sites: close a site after this long without a request and without MCP sessions (made again at its next request); 0: never")
	f.IntVar(&maxSitesLoaded, "max-sites-loaded", 1000, "with --sites: sites kept open at once; past it the least recently used one without MCP sessions is closed; 0: no bound")
	f.Var(&maxMemory, "max-memory", "with --sites: memory budget of all sites (bytes, or with K, M, G: 2G): the page and tree caches take 3/8 of it each, and while the Go heap is past it the least recently used sites are closed; 0: no budget (default half the machine's or cgroup's memory)")
	f.StringVar(&usersPath, "users", "", "users file (see above); without it every request is anonymous")
	f.BoolVar(&denyAnonymous, "deny-anonymous", false, "refuse requests without credentials (401) instead of showing public pages")
	f.BoolVar(&infiniteDepth, "allow-infinite-depth", false, "answer WebDAV PROPFIND with Depth: infinity (a walk of the whole tree) instead of refusing it")
	f.BoolVar(&activeContent, "allow-active-content", false, "serve HTML, SVG, XML and JavaScript pages with their own content type (by default they are served as text/plain, so that no page runs script on the server's origin)")
	f.BoolVar(&noPointerFetch, "no-pointer-fetch", false, "never fetch lazy file pointers' URLs (reading one answers 502)")
	f.DurationVar(&treeMaxAge, "tree-max-age", 5*time.Second, "reuse the collection's tree for this long before checking it again")
	f.DurationVar(&staleTree, "stale-tree", 5*time.Minute, "while Chroma cannot be reached, keep serving the tree fetched last if it is younger than this (cached pages stay readable; others answer 503/504); 0 to answer every request that needs a new tree with 503/504")
	f.DurationVar(&lim.ReadHeaderTimeout, "read-header-timeout", lim.ReadHeaderTimeout, "time to read a request's headers")
	f.DurationVar(&lim.ReadTimeout, "read-timeout", lim.ReadTimeout, "time to read a whole request")
	f.DurationVar(&lim.WriteTimeout, "write-timeout", lim.WriteTimeout, "time to write a response")
	f.DurationVar(&lim.IdleTimeout, "idle-timeout", lim.IdleTimeout, "time a kept-alive connection may wait for its next request")
	f.IntVar(&lim.MaxHeaderBytes, "max-header-bytes", lim.MaxHeaderBytes, "largest request header in bytes")
	f.DurationVar(&lim.ShutdownTimeout, "shutdown-timeout", lim.ShutdownTimeout, "time running requests get to finish on SIGTERM")
	f.BoolVar(&mcpOpt.Stateless, "mcp-stateless", false, "serve MCP's stateless streamable HTTP: any process of a fleet answers any request (no load-balancer affinity); each call starts at / (cd does not carry over) and the session bounds do not apply")
	ops.flags(f)
	return c
}

// hashCommand reads a secret from standard input (one line) and prints
// the users-file field for it.
func hashCommand(use, short string, field func(secret string) (string, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			secret := strings.TrimRight(line, "\r\n")
			if secret == "" {
				return errors.New("no secret on standard input")
			}
			out, err := field(secret)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), out)
			return nil
		},
	}
}

func hashPasswordCommand() *cobra.Command {
	return hashCommand("hash-password", "Print the users-file password= field for a password read from standard input",
		func(s string) (string, error) {
			h, err := server.HashPassword(s)
			return "password=" + h, err
		})
}

func hashTokenCommand() *cobra.Command {
	return hashCommand("hash-token", "Print the users-file token-sha256= field for a token read from standard input",
		func(s string) (string, error) { return "token-sha256=" + server.HashToken(s), nil })
}
