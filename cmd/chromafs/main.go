// Command chromafs explores, validates and writes chromafs collections:
// ls, cat, stat, tree and find over a Chroma collection as a read-only
// filesystem, ingest of a docs folder, and validation of a collection.
//
// Global flags mirror environment variables: --chroma-url (CHROMA_URL,
// default http://localhost:8000), --collection (CHROMAFS_COLLECTION) and
// --groups (CHROMAFS_GROUPS, comma-separated). Paths are absolute from the
// collection root; relative paths resolve against the root.
//
// ls, cat, stat, tree and find are package gnu's: they parse their own
// arguments GNU-style and exit with the statuses of the GNU tools (ls: 1
// for minor problems, 2 for an operand that does not exist or a usage
// error; cat, stat, find: 1 for both; tree: 2 for an operand that does
// not exist, 1 for a usage error; all: 2 when the collection cannot be
// opened).
// Every other command exits 0 on success, 1 when validation finds
// problems, and 2 on usage and internal errors. Usage errors print as
// GNU tools print them: "chromafs ingest: unrecognized option '--bogus'"
// and "Try 'chromafs ingest --help' for more information.". Only --help
// asks for help; -h is ls's human-readable sizes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
)

func main() {
	trace = traceFromEnv(os.Stderr)
	ctx, stop, _ := notifyContext(os.Stderr, &signalExit, os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	trace.phase("exit")
	os.Exit(code)
}

// globals are the flags every command shares.
type globals struct {
	chromaURL  string
	collection string
	groups     string
	slugField  string
	indexField string
	treeID     string
	separator  string
	redisURL   string
	// Chroma Cloud: API key, tenant and database, and its request limits
	tenant, database, token string
	cloudLimits             bool
	timeout                 time.Duration
	net                     netFlags
	pointers                *pointerFlags // --pointer-allow, --pointer-timeout
	stderr                  io.Writer
	// store is the collection that newFS opened last (search reads its
	// embedding configuration).
	store atomic.Pointer[chromastore.Collection]
}

// openedStore returns the collection that newFS opened last, or nil.
func (g *globals) openedStore() *chromastore.Collection { return g.store.Load() }

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// run executes the command line and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ue *cliUsageError
	if errors.As(err, &ue) {
		return ue.print(cmd, stderr)
	}
	if name, ok := strings.CutPrefix(err.Error(), "unknown command "); ok {
		// cobra: unknown command "x" for "chromafs"
		name, _, _ = strings.Cut(name, " for ")
		return (&cliUsageError{msg: "unknown command " + strings.ReplaceAll(name, `"`, "'")}).print(root, stderr)
	}
	fmt.Fprintf(stderr, "chromafs: %v\n", err)
	return 2
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stderr: stderr}
	root := &cobra.Command{
		Use:   "chromafs",
		Short: "A read-only filesystem over a Chroma collection of chunked docs",
		Long: `chromafs turns a Chroma collection of chunked documentation into a read-only,
access-controlled filesystem, and writes docs folders into collections.

Paths are absolute from the collection root ("/" is the root); relative paths
resolve against the root.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// root prints --version itself, and its help when run alone, as
		// cobra would. cobra's own --version prints through a template,
		// and a text/template that can run makes every exported method
		// of every linked type reachable (it may call them by name): the
		// linker would keep them all, a binary half as large again.
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				fmt.Fprint(cmd.OutOrStdout(), longVersion())
				return nil
			}
			return cmd.Help()
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Its help shows root as cobra shows a command that only groups
	// others (no "chromafs [flags]" line): RunE is only there for
	// --version.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == root {
			run := c.RunE
			c.RunE = nil
			defer func() { c.RunE = run }()
		}
		help(c, args)
	})
	// Flag tables wrap at 80 columns, as the rest of the help does.
	root.SetUsageFunc(usage)
	root.SetFlagErrorFunc(flagError)
	// Only --help asks for help (cobra would take -h too, which is ls's
	// human-readable sizes); only --version for the version.
	root.PersistentFlags().Bool("help", false, "print help for the command and exit")
	root.Flags().Bool("version", false, "print the version and its VCS revision and exit")
	pf := root.PersistentFlags()
	pf.StringVar(&g.chromaURL, "chroma-url", envOr("CHROMA_URL", "http://localhost:8000"), "Chroma server URL (env CHROMA_URL)")
	pf.StringVar(&g.collection, "collection", envOr("CHROMAFS_COLLECTION", ""), "collection name (env CHROMAFS_COLLECTION)")
	pf.StringVar(&g.groups, "groups", envOr("CHROMAFS_GROUPS", ""), "comma-separated groups of the user (env CHROMAFS_GROUPS); without groups only public pages are visible")
	pf.StringVar(&g.slugField, "slug-field", envOr("CHROMAFS_SLUG_FIELD", collection.DefaultLayout().SlugField), "metadata field holding a chunk's page slug (env CHROMAFS_SLUG_FIELD)")
	pf.StringVar(&g.indexField, "index-field", envOr("CHROMAFS_INDEX_FIELD", collection.DefaultLayout().IndexField), "metadata field holding a chunk's index (env CHROMAFS_INDEX_FIELD)")
	pf.StringVar(&g.treeID, "tree-id", envOr("CHROMAFS_TREE_ID", collection.DefaultLayout().TreeID), "id of the path tree record (env CHROMAFS_TREE_ID)")
	pf.StringVar(&g.separator, "separator", envOr("CHROMAFS_SEPARATOR", ""), `string between chunks when a page is reassembled, e.g. "\n" (env CHROMAFS_SEPARATOR)`)
	pf.StringVar(&g.redisURL, "redis-url", envOr("CHROMAFS_REDIS_URL", ""), "Redis shared as a page cache by every process that uses it: a redis:// (one server), redis+cluster:// (a Redis Cluster) or redis+sentinel:// URL (env CHROMAFS_REDIS_URL)")
	pf.DurationVar(&g.timeout, "timeout", 60*time.Second, "deadline for the whole command")
	// The help shows CHROMAFS_REDIS_URL as the default: without its
	// password.
	pf.Lookup("redis-url").DefValue = rediscache.RedactURL(g.redisURL)
	pf.StringVar(&g.tenant, "tenant", envOr("CHROMA_TENANT", ""), "Chroma tenant (env CHROMA_TENANT; default default_tenant)")
	pf.StringVar(&g.database, "database", envOr("CHROMA_DATABASE", ""), "Chroma database (env CHROMA_DATABASE; default default_database)")
	pf.StringVar(&g.token, "chroma-token", envOr("CHROMA_API_KEY", ""), "API key sent as x-chroma-token, as Chroma Cloud wants (env CHROMA_API_KEY)")
	// Secrets from the environment never reach --help: the key shows as
	// set, a URL without its password.
	if g.token != "" {
		pf.Lookup("chroma-token").DefValue = "(set)"
	}
	pf.Lookup("chroma-url").DefValue = rediscache.RedactURL(g.chromaURL)
	pf.BoolVar(&g.cloudLimits, "cloud-limits", envOr("CHROMAFS_CLOUD_LIMITS", "") == "1", "keep every request within Chroma Cloud's limits, and shard path trees over 16 KiB on ingest (env CHROMAFS_CLOUD_LIMITS=1)")
	addNetFlags(pf, &g.net, stderr)
	g.pointers = addPointerFlags(pf, stderr)

	for _, c := range gnuCommands {
		root.AddCommand(gnuCommand(g, c.name, c.use, c.short))
	}
	root.AddCommand(
		grepCommand(g), searchCommand(g), shCommand(g), mcpCommand(g),
		ingestCommand(g), adoptCommand(g), validateCommand(g),
		serveCommand(g), loadtestCommand(), hashPasswordCommand(), hashTokenCommand(),
		versionCommand(),
	)
	gnuArgs(root)
	return root
}

func (g *globals) layout() collection.Layout {
	return collection.Layout{SlugField: g.slugField, IndexField: g.indexField, TreeID: g.treeID}
}

func (g *globals) groupList() []string {
	var out []string
	for _, s := range strings.Split(g.groups, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (g *globals) separatorValue() string {
	return unescapeSep(g.separator)
}

// openStore connects to the collection.
// storeConfig is the chromastore configuration the global flags give.
func (g *globals) storeConfig(create bool) chromastore.Config {
	cfg := chromastore.Config{URL: g.chromaURL, Collection: g.collection, Create: create, HTTPClient: trace.httpClient(),
		Tenant: g.tenant, Database: g.database, CloudLimits: g.cloudLimits, Timeout: g.net.chromaTimeout}
	if g.token != "" {
		cfg.Headers = map[string]string{"x-chroma-token": g.token}
	}
	return cfg
}

func (g *globals) openStore(ctx context.Context, create bool) (*chromastore.Collection, error) {
	if g.collection == "" {
		return nil, errors.New("no collection: set --collection or CHROMAFS_COLLECTION")
	}
	cfg := g.storeConfig(create)
	return chromastore.Open(ctx, cfg)
}

// openFS connects and bootstraps the filesystem for the user's groups;
// its reads use ctx.
func (g *globals) openFS(ctx context.Context) (*chromafs.FS, error) {
	fsys, err := g.newFS(ctx)
	if err != nil {
		return nil, err
	}
	return fsys.WithContext(ctx), nil
}

// newFS connects and bootstraps the filesystem for the user's groups
// within ctx; its reads are not bound to ctx.
func (g *globals) newFS(ctx context.Context) (*chromafs.FS, error) {
	log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// A bad --redis-url is reported before Chroma is asked anything.
	var rc *rediscache.Cache
	if g.redisURL != "" {
		var err error
		if rc, err = rediscache.New(g.redisURL, rediscache.Options{Logger: log}); err != nil {
			return nil, err
		}
	}
	store, err := g.openStore(ctx, false)
	if err != nil {
		return nil, err
	}
	g.store.Store(store)
	trace.phase("open store (collection lookup)")
	res, err := g.pointers.resolver()
	if err != nil {
		return nil, err
	}
	opts := []chromafs.Option{
		chromafs.WithLayout(g.layout()),
		chromafs.WithGroups(g.groupList()...),
		chromafs.WithSeparator(g.separatorValue()),
		chromafs.WithLogger(log),
		chromafs.WithResolver(res),
	}
	if rc != nil {
		opts = append(opts, chromafs.WithCache(cachepkg.NewTiered(cachepkg.NewMemory(0), rc)))
		trace.phase("redis client")
	}
	fsys, err := chromafs.New(ctx, store, opts...)
	if err != nil {
		return nil, err
	}
	trace.phase("session (tree fetch and parse, view)")
	return fsys, nil
}
