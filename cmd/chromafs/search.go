package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/search"
)

// searchCommand is `chromafs search`: hybrid search (or, with --lexical,
// BM25F; with --vectors, embeddings alone) over the visible pages,
// answered with one line a page: its path, best line range and score, and
// its other ranges under it.
func searchCommand(g *globals) *cobra.Command {
	var (
		k         int
		dir       string
		verbose   bool
		lexical   bool
		vectors   bool
		embedding string
	)
	c := &cobra.Command{
		Use:   "search [options] QUERY...",
		Short: "Find the pages that answer a query: path:START-END, score, first line, more ranges",
		// The use line names the options already: no " [flags]" after it
		// (and it fits 80 columns).
		DisableFlagsInUseLine: true,
		Long: `search ranks the pages you may see by QUERY (the words of the arguments) twice,
by its words (BM25F over path, title, description, headings and body, with
stemming) and by the similarity of their chunks' embeddings, fuses the two
rankings (reciprocal rank fusion, the words' ranking weighing 5 times the
embeddings') and prints the best pages, one a line, with the page's other
matching ranges under it:

  /guides/auth/oauth.mdx:40-58  0.83  first line of the hit
    :112-118  first line of another range

START-END are the page lines a range covers (for sed -n START,ENDp or the read
tool). With -v each line is followed by its text. The query is embedded with
the embedding function that the collection's configuration records (API keys
from the environment variables it names); --embedding NAME names another.
Without a usable one, pages are ranked by the words alone and a line on stderr
says so. --lexical ranks by the words alone (no model), --vectors by the
embeddings alone (-n then counts chunks). Pages hidden from --groups never
take part. Exit status: 0 with hits, 1 without, 2 on errors.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
			defer cancel()
			stderr := cmd.ErrOrStderr()
			fail := func(err error) error {
				fmt.Fprintf(stderr, "chromafs search: %v\n", err)
				return exitError{2}
			}
			if k < 1 || k > search.MaxK {
				return usageErrorf("invalid argument '%d' for '-n': want 1 to %d", k, search.MaxK)
			}
			if lexical && vectors {
				return usageErrorf("--lexical and --vectors: give one, or neither for both fused")
			}
			fsys, err := g.openFS(ctx)
			if err != nil {
				return fail(err)
			}
			eng := &search.Engine{}
			if !lexical {
				store := g.openedStore()
				spec := store.Embedding()
				ef, err := newQueryEmbedder(spec, store.Dimension(), embedding)
				hashed := errors.Is(err, search.ErrNoEmbedder) && embedding == "" && spec.Name == "" && store.WrittenWith() == chromastore.HashName
				switch {
				case hashed && vectors:
					return fail(fmt.Errorf("collection %q was embedded with ingest's default, hash, whose vectors carry no meaning: rank the pages by the query's words with --lexical, or embed it with a function that has one (chromafs ingest --recreate --embedding ngram DIR)", g.collection))
				case errors.Is(err, search.ErrNoEmbedder) && vectors:
					return fail(fmt.Errorf("%w; name the function the collection was written with (--embedding NAME, one of %s), or rank the pages by the query's words with --lexical", err, strings.Join(searchEmbeddings, ", ")))
				case hashed:
					fmt.Fprintf(stderr, "chromafs search: ranked by the query's words alone: collection %q was embedded with hash, whose vectors carry no meaning (chromafs ingest --recreate --embedding ngram DIR gives it some)\n", g.collection)
					lexical = true
				case errors.Is(err, search.ErrNoEmbedder):
					fmt.Fprintf(stderr, "chromafs search: ranked by the query's words alone: %v (--embedding NAME names the function the collection was written with: %s)\n", err, strings.Join(searchEmbeddings, ", "))
					lexical = true
				case err != nil:
					return fail(err)
				default:
					defer ef.Close()
					eng.Embedder, eng.Space = ef, spec.Space
				}
			}
			opt := search.Options{K: k, Path: dir, Lexical: lexical, Vectors: vectors}
			hits, err := eng.Search(ctx, fsys, strings.Join(args, " "), opt)
			if !vectors && !lexical && errors.Is(err, search.ErrNotSearchable) {
				fmt.Fprintf(stderr, "chromafs search: ranked by the query's words alone: %v\n", strings.TrimPrefix(err.Error(), "search: "))
				opt.Lexical = true
				hits, err = eng.Search(ctx, fsys, strings.Join(args, " "), opt)
			}
			if err != nil {
				return fail(err)
			}
			if err := search.Format(cmd.OutOrStdout(), hits, verbose); err != nil {
				return fail(err)
			}
			if len(hits) == 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f := c.Flags()
	f.IntVarP(&k, "n", "n", search.DefaultK, "how many pages (chunks with --vectors) to rank")
	f.StringVar(&dir, "path", "/", "search only the pages at or below `DIR`")
	f.BoolVarP(&verbose, "verbose", "v", false, "print each hit's text after its line")
	f.BoolVar(&lexical, "lexical", false, "rank pages by the query's words alone (BM25F; no embedding model)")
	f.BoolVar(&vectors, "vectors", false, "rank chunks by the embeddings alone")
	f.StringVar(&embedding, "embedding", "", "embed the query with `NAME` instead of the collection's recorded function: "+strings.Join(searchEmbeddings, ", "))
	return c
}

// checkEmbeddingName refuses a query embedding function name (of flag)
// that chromafs-embed does not know, so that a misspelt name fails at
// start rather than at every search; "" (the collection's own function)
// is fine.
func checkEmbeddingName(flag, name string) error {
	if n := strings.TrimSpace(name); n == "" || n == chromastore.NgramName || slices.Contains(searchEmbeddings, n) {
		return nil
	}
	return usageErrorf("invalid argument %q for %s: want one of %s", name, flag, strings.Join(searchEmbeddings, ", "))
}

// lazySearch is the search of the sh, mcp and serve --mcp commands: their
// collection may open after they start, so the query embedder is built
// from its configuration at the first semantic search. A failure to build
// it is that search's error: one that wraps search.ErrNoEmbedder (see
// newQueryEmbedder) is kept for the collection, whose configuration,
// like the environment, does not change while it is open (so a search
// costs no chromafs-embed process that fails again); another is tried
// again at the next search. Lexical searches need no embedder.
type lazySearch struct {
	store    func() *chromastore.Collection // nil until the collection is open
	override string                         // --embedding
	// report, if set, is told why no embedding function is usable, once
	// for each collection, and a semantic search's error then says only
	// that none is (wrapping search.ErrNoEmbedder): for the MCP server,
	// whose agent can do nothing about the reason (an option, an API
	// key) while its operator can. Without it, the error is the reason.
	report func(reason error)

	mu      sync.Mutex
	eng     *search.Engine
	failed  *chromastore.Collection // whose embedder cannot be built
	failErr error                   // why
}

func (l *lazySearch) Search(ctx context.Context, fsys fs.FS, query string, opt search.Options) ([]search.Hit, error) {
	if opt.Lexical {
		return (&search.Engine{}).Search(ctx, fsys, query, opt)
	}
	eng, err := l.engine()
	if err != nil {
		return nil, err
	}
	return eng.Search(ctx, fsys, query, opt)
}

func (l *lazySearch) engine() (*search.Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.eng != nil {
		return l.eng, nil
	}
	st := l.store()
	if st == nil {
		return nil, errors.New("the collection is not open yet")
	}
	if st != l.failed {
		spec := st.Embedding()
		ef, err := newQueryEmbedder(spec, st.Dimension(), l.override)
		if err == nil {
			l.eng = &search.Engine{Embedder: ef, Space: spec.Space}
			return l.eng, nil
		}
		if !errors.Is(err, search.ErrNoEmbedder) {
			return nil, err
		}
		l.failed, l.failErr = st, err
		if l.report != nil {
			l.report(err)
		}
	}
	if l.report != nil {
		return nil, fmt.Errorf("%w for this collection", search.ErrNoEmbedder)
	}
	return nil, l.failErr
}
