package chromafs_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/testbackend"
)

// faultyStore answers searches as distributed Chroma's text indexes are
// documented to: with dropRegex (the token index) nothing for a $regex,
// with dropShort nothing for a $contains of fewer than 3 characters.
type faultyStore struct {
	testbackend.Target
	dropRegex, dropShort bool
}

func (f *faultyStore) Search(ctx context.Context, layout collection.Layout, scope collection.Scope, tf collection.TextFilter) ([]collection.Chunk, error) {
	if f.dropRegex {
		tf.Regexes = nil
	}
	if f.dropShort {
		tf.Contains = slices.DeleteFunc(slices.Clone(tf.Contains), func(l string) bool { return utf8.RuneCountInString(l) < 3 })
	}
	if tf.IsZero() {
		return nil, nil
	}
	return f.Target.Search(ctx, layout, scope, tf)
}

// limitedStore is a faultyStore whose regexes are limited to regexBytes
// (a collection.Limiter), so that the coarse filter sends $contains for
// literals longer than a few bytes.
type limitedStore struct {
	*faultyStore
	regexBytes int
}

func (l limitedStore) Limits() (int, int) { return l.regexBytes, 0 }

// noSearch hides the store's Searcher: the coarse filter is not used.
type noSearch struct{ collection.Store }

// logCount is a slog handler's writer that counts the lines holding a
// string.
type logCount struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logCount) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logCount) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), s)
}

// grepR runs grep -r (with -i when fold) for pattern over fsys and
// returns its output, as GNU grep prints it, and its stats.
func grepR(t *testing.T, fsys fs.FS, pattern string, fold bool) (string, grepx.Stats) {
	t.Helper()
	var b strings.Builder
	q := grepx.Query{Patterns: []string{pattern}, IgnoreCase: fold, Recursive: true, Paths: []string{"."}}
	st, err := grepx.Search(context.Background(), fsys, q, func(f *grepx.File) error {
		if f.Err != nil {
			return f.Err
		}
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "%s:%s\n", f.Path, l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), st
}

// selfCheckFiles are 48 pages (more than grep's threshold for the
// coarse filter), a few holding "token_x" or "éa" (two characters, three
// bytes: grep sends it to the coarse filter).
func selfCheckFiles() map[string]string {
	files := map[string]string{}
	for i := range 48 {
		body := fmt.Sprintf("# Page %d\nplain text of page %d\n", i, i)
		if i%7 == 3 {
			body += "the token_x lives here, in a line long enough to be cut into chunks by the foreign writer\n"
		}
		if i%9 == 4 {
			body += "une page idéale\n"
		}
		files[fmt.Sprintf("notes/p%02d.md", i)] = body
	}
	return files
}

const offWarning = "the coarse filter is off"

// TestCoarseSelfCheck: a store whose text search misses pages that match
// (no $regex, or no $contains under 3 characters) is caught by the first
// search that takes along a page held in memory: the coarse filter goes
// off for the collection with one warning, and grep -r prints what it
// prints without a coarse filter. A healthy store keeps the filter (grep
// reads fewer files than it searches) and its answers are verified; a
// store that fails only short $contains keeps the filter for long
// literals, for which it is never sent one.
func TestCoarseSelfCheck(t *testing.T) {
	type search struct {
		pattern string
		fold    bool
		// regex and short: the class the search is of.
		regex, short bool
	}
	cases := []struct {
		name                 string
		dropRegex, dropShort bool
		regexBytes           int // > 0: a Limiter: $contains for literals longer than a few bytes
		searches             []search
		wantOff              bool
	}{
		{name: "healthy", searches: []search{{"token_x", false, true, false}, {"TOKEN_X", true, true, false}, {"éa", false, true, true}}},
		{name: "healthy-contains", regexBytes: 6, searches: []search{{"token_x", false, false, false}, {"éa", false, false, true}}},
		{name: "no-regex", dropRegex: true, searches: []search{{"token_x", false, true, false}, {"TOKEN_X", true, true, false}}, wantOff: true},
		{name: "no-short-contains", dropShort: true, regexBytes: 6, searches: []search{{"éa", false, false, true}, {"token_x", false, false, false}}, wantOff: true},
		{name: "no-short-contains-long-literal", dropShort: true, regexBytes: 6, searches: []search{{"token_x", false, false, false}}},
	}
	files := selfCheckFiles()
	for _, b := range testbackend.Backends() {
		for _, wr := range writers {
			if wr.name == "sharded" {
				continue // ingest's layout again; foreign's 97-byte chunks need the boundary queries
			}
			{
				for _, tc := range cases {
					if tc.regexBytes > 0 && wr.name == "foreign" {
						// The boundary regexes do not fit the limit: every
						// page is a candidate, no $contains is sent.
						continue
					}
					t.Run(b.Name+"/"+wr.name+"/"+tc.name, func(t *testing.T) {
						inner := b.New(t)
						wr.write(t, inner, files)
						faulty := &faultyStore{Target: inner, dropRegex: tc.dropRegex, dropShort: tc.dropShort}
						var store collection.Store = faulty
						if tc.regexBytes > 0 {
							store = limitedStore{faulty, tc.regexBytes}
						}
						logs := &logCount{}
						sh := chromafs.NewShared(0)
						fsys := mustNew(t, store, chromafs.WithShared(sh), chromafs.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
						plain := mustNew(t, noSearch{inner}, chromafs.WithShared(chromafs.NewShared(0)))
						// Pages in memory that the searches match.
						for _, name := range []string{"notes/p03.md", "notes/p04.md"} {
							if _, err := fs.ReadFile(fsys, name); err != nil {
								t.Fatal(err)
							}
						}
						for i, s := range tc.searches {
							want, wst := grepR(t, plain, s.pattern, s.fold)
							if wst.Candidates != wst.Files || want == "" {
								t.Fatalf("grep -r %q without a coarse filter: read %d of %d files, output %q", s.pattern, wst.Candidates, wst.Files, want)
							}
							got, st := grepR(t, fsys, s.pattern, s.fold)
							if got != want {
								t.Errorf("grep -r %q (fold %v):\n%s\nwant (without a coarse filter):\n%s", s.pattern, s.fold, got, want)
							}
							verified, off := chromafs.CoarseHealth(fsys, s.regex, s.short)
							if off != tc.wantOff {
								t.Errorf("after grep -r %q: coarse filter off = %v, want %v", s.pattern, off, tc.wantOff)
							}
							if tc.wantOff {
								if st.Candidates != st.Files {
									t.Errorf("grep -r %q with the filter off read %d of %d files; want all", s.pattern, st.Candidates, st.Files)
								}
								continue
							}
							if !st.Coarse || st.Candidates >= st.Files || st.Candidates == 0 {
								t.Errorf("grep -r %q on a healthy store: coarse %v, read %d of %d files; want the coarse filter to leave some out", s.pattern, st.Coarse, st.Candidates, st.Files)
							}
							if !verified {
								t.Errorf("grep -r %q (search %d): its class was not verified against the page in memory", s.pattern, i)
							}
						}
						// Another session of the Shared: still off (or on), no
						// second warning.
						again := mustNew(t, store, chromafs.WithShared(sh), chromafs.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
						s := tc.searches[0]
						want, _ := grepR(t, plain, s.pattern, s.fold)
						if got, _ := grepR(t, again, s.pattern, s.fold); got != want {
							t.Errorf("another session: grep -r %q:\n%s\nwant:\n%s", s.pattern, got, want)
						}
						wantWarnings := 0
						if tc.wantOff {
							wantWarnings = 1
						}
						if n := logs.count(offWarning); n != wantWarnings {
							t.Errorf("%d warnings %q; want %d. Log:\n%s", n, offWarning, wantWarnings, logs.buf.String())
						}
					})
				}
			}
		}
	}
}

// TestCoarseSelfCheckAsked: the page held in memory may be one that
// Candidates is asked about (callers other than grep ask about cached
// pages too), or one that an earlier answer for the same literals left
// out (then no search is needed to find the fault): a store that misses
// it turns the filter off, and Candidates returns every file asked
// about. Without a page in memory nothing can be checked: the store's
// answer is returned as it is.
func TestCoarseSelfCheckAsked(t *testing.T) {
	files := selfCheckFiles()
	inner := testbackend.Backends()[0].New(t)
	ingested(t, inner, files)
	store := &faultyStore{Target: inner, dropRegex: true}
	ctx := context.Background()
	lits := []string{"token_x"}
	for _, cold := range []bool{false, true} {
		t.Run(fmt.Sprintf("cold=%v", cold), func(t *testing.T) {
			logs := &logCount{}
			fsys := mustNew(t, store, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
			names := allFiles(t, fsys)
			if cold {
				got, err := fsys.Candidates(ctx, names, lits, false)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 0 || logs.count(offWarning) != 0 {
					t.Fatalf("with no page in memory: Candidates = %q, %d warnings; want the store's answer (none) and no warning", got, logs.count(offWarning))
				}
			}
			if _, err := fs.ReadFile(fsys, "notes/p10.md"); err != nil {
				t.Fatal(err)
			}
			got, err := fsys.Candidates(ctx, names, lits, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, names) {
				t.Errorf("Candidates after the store missed a page in memory = %q; want every name", got)
			}
			if _, off := chromafs.CoarseHealth(fsys, true, false); !off || logs.count(offWarning) != 1 {
				t.Errorf("off = %v, %d warnings; want off, 1 warning", off, logs.count(offWarning))
			}
		})
	}
}
