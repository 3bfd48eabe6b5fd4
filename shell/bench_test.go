package shell_test

import (
	"context"
	"io"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/shell"
)

// BenchmarkRun measures one command line end to end in a Session over
// an in-memory filesystem: parsing, sealing, the interpreter and the
// commands.
func BenchmarkRun(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"echo", "echo hi"},
		{"ls", "ls /guides"},
		{"pipeline", "cat guides/*.md | grep -c webhook"},
		{"loop1000", "for i in {1..1000}; do :; done"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := shell.New(docs())
			for b.Loop() {
				if st, err := s.Run(context.Background(), c.line, io.Discard, io.Discard); st != 0 || err != nil {
					b.Fatalf("status %d, err %v", st, err)
				}
			}
		})
	}
}

// BenchmarkShell runs typical agent pipelines in a Session over a
// chromafs.FS of 1,000 generated pages (about 4 MB) in a memstore, warm:
// every page is in the page cache (each line ran once before timing).
func BenchmarkShell(b *testing.B) {
	ctx := context.Background()
	store := memstore.New(b.Name())
	if _, err := gen.Write(ctx, store, gen.Pages(1000, 1), gen.Options{Workers: 1}); err != nil {
		b.Fatal(err)
	}
	fsys, err := chromafs.New(ctx, store)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, line string }{
		{"grep-rn-head", "grep -rn webhook / | head -20"},
		{"grep-rn-wc", "grep -rn webhook / | wc -l"},
		{"grep-rl-wc", "grep -rl access_token / | wc -l"},
		{"find-xargs-grep", "find / -name '*.md' | xargs grep -l refresh_token | sort | head -5"},
		{"find-exec-wc", "find /guides -name '*.md' -exec wc -l {} + | tail -1"},
		{"ls-R-wc", "ls -R / | wc -l"},
		{"cat-sed-cut", "cat $(find / -name '*.md' | head -20) | sed -n '/^#/p' | cut -c1-20 | sort | uniq -c | sort -rn | head -3"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := shell.New(fsys)
			if st, err := s.Run(ctx, c.line, io.Discard, io.Discard); st != 0 || err != nil {
				b.Fatalf("status %d, err %v", st, err)
			}
			for b.Loop() {
				if st, err := s.Run(ctx, c.line, io.Discard, io.Discard); st != 0 || err != nil {
					b.Fatalf("status %d, err %v", st, err)
				}
			}
		})
	}
}
