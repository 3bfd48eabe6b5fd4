package shell_test

import (
	"context"
	"io"
	"testing"

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
