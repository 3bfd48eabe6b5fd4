package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/internal/getopt"
)

// Keys of the long options without a short form.
const (
	keyPath = 1000 + iota
	keyLexical
	keyVectors
	keyHelp
)

var commandSpec = getopt.Spec{
	Short: "n:v",
	Long: []getopt.Long{
		{Name: "path", Key: keyPath, HasArg: getopt.RequiredArgument},
		{Name: "lexical", Key: keyLexical},
		{Name: "vectors", Key: keyVectors},
		{Name: "verbose", Key: 'v'},
		{Name: "help", Key: keyHelp},
	},
}

const commandHelp = `Usage: search [-n K] [--path DIR] [-v] [--lexical|--vectors] QUERY...
Find the pages that answer QUERY (the words of the operands), best first,
one a line, with the page's other matching ranges under it:

  /guides/auth/oauth.mdx:40-58  0.83  first line of the hit
    :112-118  first line of another range

START-END are the page lines a range covers (sed -n START,ENDp prints them).
Pages are ranked by the query's words and by embeddings, fused; without a
usable embedding function, by the words alone, and a line on stderr says so.

  -n K         rank the K best pages (chunks with --vectors); default 10
      --path DIR  search only the pages at or below DIR
  -v, --verbose   print each range's text after its line
      --lexical   rank by the query's words alone (BM25F; no model)
      --vectors   rank by the embeddings alone
      --help      display this help and exit

Exit status is 0 if there are hits, 1 if none, 2 on errors.
`

// Searcher runs searches: *Engine is one. Programs that build their
// Engine late (once the collection is open, say) give the shell and the
// MCP server a Searcher of their own.
type Searcher interface {
	Search(ctx context.Context, fsys fs.FS, query string, opt Options) ([]Hit, error)
}

// Command returns the shell command search over s (see shell.WithCommand):
//
//	search [-n K] [--path DIR] [-v] [--lexical|--vectors] QUERY...
//
// with the output of Format and the exit status of grep (0 with hits, 1
// without, 2 on errors). DIR resolves against the working directory;
// paths print absolute. The query is embedded by s, so there is no
// --embedding (that is chromafs search's, which builds the Embedder).
// Without --lexical or --vectors the search is hybrid; if it cannot
// embed (ErrNoEmbedder, ErrNotSearchable), the lexical ranking answers
// after one line on stderr that says why. With --vectors that is an
// error that points to --lexical.
func Command(s Searcher) gnu.Func {
	return func(ctx context.Context, env *gnu.Env, args []string) int {
		out := bufio.NewWriter(env.Stdout)
		defer out.Flush()
		fail := func(code int, format string, a ...any) int {
			out.Flush()
			fmt.Fprintf(env.Stderr, "search: "+format+"\n", a...)
			return code
		}
		opts, operands, err := commandSpec.Parse(args)
		if err != nil {
			return fail(2, "%v\nTry 'search --help' for more information.", err)
		}
		opt := Options{}
		verbose := false
		dir := env.Dir
		if dir == "" {
			dir = "/"
		}
		for _, o := range opts {
			switch o.Key {
			case 'n':
				k, err := strconv.Atoi(o.Arg)
				if err != nil || k < 1 || k > MaxK {
					return fail(2, "invalid number of results: '%s' (want 1 to %d)", o.Arg, MaxK)
				}
				opt.K = k
			case keyPath:
				if strings.HasPrefix(o.Arg, "/") {
					opt.Path = path.Clean(o.Arg)
				} else {
					opt.Path = path.Join(dir, o.Arg)
				}
			case keyLexical:
				opt.Lexical = true
			case keyVectors:
				opt.Vectors = true
			case 'v':
				verbose = true
			case keyHelp:
				out.WriteString(commandHelp)
				return 0
			}
		}
		if len(operands) == 0 {
			return fail(2, "missing query\nTry 'search --help' for more information.")
		}
		fsys := env.FS
		if fsys == nil && env.Open != nil {
			if fsys, err = env.Open(ctx); err != nil {
				return fail(2, "%v", err)
			}
		}
		if opt.Lexical && opt.Vectors {
			return fail(2, "--lexical and --vectors: give one, or neither for both fused")
		}
		query := strings.Join(operands, " ")
		hits, err := s.Search(ctx, fsys, query, opt)
		if !opt.Vectors && (errors.Is(err, ErrNoEmbedder) || errors.Is(err, ErrNotSearchable)) {
			fmt.Fprintf(env.Stderr, "search: ranked by the query's words alone (%s)\n", strings.TrimPrefix(err.Error(), "search: "))
			opt.Lexical = true
			hits, err = s.Search(ctx, fsys, query, opt)
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "search: ")
			if opt.Vectors && (errors.Is(err, ErrNoEmbedder) || errors.Is(err, ErrNotSearchable)) {
				msg += "; search --lexical ranks the pages by the query's words"
			}
			return fail(2, "%s", msg)
		}
		if err := Format(out, hits, verbose); err != nil {
			return 2
		}
		if len(hits) == 0 {
			return 1
		}
		return 0
	}
}
