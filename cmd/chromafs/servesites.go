package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/identity"
	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/sites"
)

// sitesFlags are serve's flags that serveSites uses.
type sitesFlags struct {
	path                          string
	httpAddr, davAddr, mcpAddr    string
	mcpEmbedding                  string
	mcpOpt                        server.MCPOptions
	usersPath                     string
	denyAnonymous, infiniteDepth  bool
	noPointerFetch, activeContent bool
	treeMaxAge, staleTree         time.Duration
	lim                           server.Limits
	rate                          server.RateLimits
	siteIdle                      time.Duration
	maxSitesLoaded                int
	maxMemory                     int64 // 0: no budget
	log                           *slog.Logger
}

// loadSites reads the sites file at path and every file it names (users
// files, Chroma token files), so that a mistake is found when the file is
// read rather than at a site's first request.
func loadSites(path string) (*sites.Config, error) {
	cfg, err := sites.Load(path)
	if err != nil {
		return nil, err
	}
	for _, s := range cfg.Sites {
		if _, _, err := siteFiles(s); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// siteFiles reads the users file and the Chroma token file of site s
// (nil and "" for those it has not).
func siteFiles(s *sites.Site) (users *server.Users, token string, err error) {
	if s.Auth.Users != "" {
		if users, err = server.LoadUsers(s.Auth.Users); err != nil {
			return nil, "", fmt.Errorf("site %s: %w", s.Name, err)
		}
	}
	if s.ChromaTokenFile != "" {
		b, err := os.ReadFile(s.ChromaTokenFile)
		if err != nil {
			return nil, "", fmt.Errorf("site %s: chroma_token_file: %w", s.Name, err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return nil, "", fmt.Errorf("site %s: chroma_token_file %s is empty", s.Name, s.ChromaTokenFile)
		}
	}
	return users, token, nil
}

// reloadSites reads the sites file at path again and serves its sites
// (Registry.Reload), logging one line: what changed, or why the file was
// refused and the sites served before are kept.
func reloadSites(reg *sites.Registry, path string, log *slog.Logger) {
	cfg, err := loadSites(path)
	if err != nil {
		log.Error("chromafs serve: sites file not reloaded, serving the sites as before", "err", err.Error())
		return
	}
	r := reg.Reload(cfg)
	log.Info("chromafs serve: sites file reloaded", "sites", reg.Len(),
		"added", r.Added, "removed", r.Removed, "changed", r.Changed, "kept", len(r.Kept))
}

// serveSites is `chromafs serve --sites FILE`: every listener routes to
// the sites of the file (package sites), each a server.Server made on
// its first request.
func serveSites(cmd *cobra.Command, g *globals, ops *opsFlags, f sitesFlags) error {
	if f.usersPath != "" || f.denyAnonymous {
		return errors.New("serve: --users and --deny-anonymous do not apply with --sites: give each site an auth: section in the sites file")
	}
	cfg, err := loadSites(f.path)
	if err != nil {
		return err
	}
	log := f.log
	obs, err := ops.start(cmd.Context(), log)
	if err != nil {
		return err
	}
	defer obs.stop(log)
	// One page cache and one Shared (trees, searches) for every site,
	// each 3/8 of the memory budget: the least recently used entries of
	// any site go first, so that each site made holds about its part of
	// the budget. Keys name the collection.
	cacheBytes := int64(0) // the defaults
	if f.maxMemory > 0 {
		cacheBytes = max(f.maxMemory/8*3, 1<<20)
	}
	shared := chromafs.NewShared(cacheBytes)
	obs.addTrees(shared)
	cache := cachepkg.Cache(cachepkg.NewMemory(cacheBytes))
	var rc *rediscache.Cache
	if g.redisURL != "" {
		if rc, err = rediscache.New(g.redisURL, rediscache.Options{Logger: log}); err != nil {
			return err
		}
		defer rc.Close()
		if h := obs.tracing.RedisHook(); h != nil {
			rc.AddHook(h)
		}
		cache = cachepkg.NewTiered(cachepkg.NewMemory(cacheBytes), rc)
	}
	obs.metrics.AddCache("redis", cache)
	var resolver chromafs.Option
	if f.noPointerFetch {
		resolver = chromafs.WithResolver(nil)
	} else {
		res, err := g.pointers.resolver()
		if err != nil {
			return err
		}
		resolver = chromafs.WithResolver(res)
	}
	build := func(s *sites.Site) (*sites.Instance, error) {
		slog := log.With("site", s.Name)
		scfg := g.storeConfig(false)
		scfg.Collection = s.Collection
		scfg.Timeout = g.net.serveChromaTimeout()
		if s.ChromaURL != "" {
			scfg.URL = s.ChromaURL
		}
		if s.Tenant != "" {
			scfg.Tenant = s.Tenant
		}
		if s.Database != "" {
			scfg.Database = s.Database
		}
		users, tok, err := siteFiles(s)
		if err != nil {
			return nil, err
		}
		if tok != "" {
			scfg.Headers = map[string]string{"x-chroma-token": tok}
		}
		if err := scfg.Validate(); err != nil {
			return nil, err
		}
		obs.instrumentStore(&scfg)
		layout := g.layout()
		if s.SlugField != "" {
			layout.SlugField = s.SlugField
		}
		if s.IndexField != "" {
			layout.IndexField = s.IndexField
		}
		if s.TreeID != "" {
			layout.TreeID = s.TreeID
		}
		sep := g.separatorValue()
		if s.Separator != nil {
			sep = *s.Separator
		}
		opts := []chromafs.Option{
			chromafs.WithLayout(layout),
			chromafs.WithSeparator(sep),
			chromafs.WithCache(cache),
			chromafs.WithShared(shared),
			chromafs.WithTreeMaxAge(f.treeMaxAge),
			chromafs.WithLogger(slog),
			resolver,
		}
		if f.staleTree > 0 {
			opts = append(opts, chromafs.WithStaleTree(f.staleTree))
		}
		var opened atomic.Pointer[chromastore.Collection]
		sc := server.Config{
			Open: func(ctx context.Context) (collection.Store, error) {
				c, err := chromastore.Open(ctx, scfg)
				if err != nil {
					return nil, err
				}
				opened.Store(c)
				return c, nil
			},
			Options: opts, Users: users, DenyAnonymous: s.DenyAnonymous(), Logger: slog,
			ResolveTimeout: min(scfg.Timeout, 10*time.Second),
			OnRefused:      obs.refusedAt(s.Name),
			Rate:           s.RateLimits(f.rate),
		}
		if rc != nil {
			sc.Cache = rc
		}
		if s.Auth.JWT != nil {
			ic := s.Identity()
			ic.Logger = slog
			v, err := identity.New(ic)
			if err != nil {
				return nil, err
			}
			sc.Tokens = v
		}
		srv := server.New(sc)
		mopt := f.mcpOpt
		mopt.ViewMaxAge = f.treeMaxAge
		mopt.Hosts = s.Hosts
		mopt.Tools.Version = shortVersion()
		mopt.Tools.Logger = slog
		mopt.Tools.Tools = s.MCP.Tools
		mopt.Tools.NameSuffix = s.MCP.Suffix
		if s.MCP.MaxSessions > 0 {
			mopt.MaxSessions = s.MCP.MaxSessions
		}
		if s.MCP.MaxUserSessions > 0 {
			mopt.MaxUserSessions = s.MCP.MaxUserSessions
		}
		mopt.Tools.Search = &lazySearch{store: opened.Load, override: f.mcpEmbedding, report: func(reason error) {
			slog.Warn("the MCP search tool ranks pages by the query's words, as no embedding function is usable (--mcp-embedding NAME names the collection's)", "err", reason)
		}}
		if err := mopt.Tools.Validate(); err != nil {
			return nil, err
		}
		obs.instrumentMCP(&mopt, s.Name)
		var sessions atomic.Int64
		onSession := mopt.OnSession
		mopt.OnSession = func(d int) {
			sessions.Add(int64(d))
			if onSession != nil {
				onSession(d)
			}
		}
		var mcpHandler http.Handler
		return &sites.Instance{
			Server:   srv,
			Sessions: func() int { return int(sessions.Load()) },
			// The site's trees and searches leave the Shared with it; its
			// pages leave the page cache as other sites' take their place.
			Close: func() error {
				if c := opened.Load(); c != nil {
					shared.Drop(c.CollectionID())
				}
				return nil
			},
			Handler: func(kind, prefix string) http.Handler {
				switch kind {
				case sites.KindHTTP:
					return httpfs.NewHandler(srv.Resolve, httpfs.Options{Prefix: prefix, Logger: slog, AllowActiveContent: f.activeContent})
				case sites.KindWebDAV:
					return webdavfs.NewHandler(srv.Resolve, webdavfs.Options{Prefix: prefix, AllowInfiniteDepth: f.infiniteDepth, AllowActiveContent: f.activeContent, Logger: slog})
				case sites.KindMCP:
					if mcpHandler == nil {
						mcpHandler = srv.MCPHandler(mopt)
					}
					return mcpHandler
				}
				return nil
			},
		}, nil
	}
	reg := sites.NewRegistry(cfg, build, log)
	defer reg.Close()
	reg.SetEviction(sites.Eviction{Idle: f.siteIdle, MaxLoaded: f.maxSitesLoaded, MaxMemory: f.maxMemory})
	// SIGHUP reloads the sites file.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			reloadSites(reg, f.path, log)
		}
	}()
	var listeners []server.Listener
	closeAll := func() {
		for _, l := range listeners {
			l.Listener.Close()
		}
	}
	for _, l := range []struct{ addr, kind string }{{f.httpAddr, sites.KindHTTP}, {f.davAddr, sites.KindWebDAV}, {f.mcpAddr, sites.KindMCP}} {
		if l.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			closeAll()
			return fmt.Errorf("serve %s: %w", l.kind, err)
		}
		endpoint := "/NAME/"
		if l.kind == sites.KindMCP {
			endpoint = "/NAME" + server.MCPPath
		}
		fmt.Fprintf(cmd.OutOrStdout(), "chromafs: %s on http://%s%s (%d sites)\n", l.kind, ln.Addr(), endpoint, len(cfg.Sites))
		listeners = append(listeners, server.Listener{Listener: ln, Handler: obs.wrap(l.kind, reg.Handler(l.kind))})
	}
	admin, err := obs.adminListener(cmd.OutOrStdout(), http.HandlerFunc(reg.ServeHealth), http.HandlerFunc(reg.ServeReady))
	if err != nil {
		closeAll()
		return err
	}
	if admin != nil {
		listeners = append(listeners, *admin)
	}
	return server.Serve(cmd.Context(), f.lim, log, listeners...)
}
