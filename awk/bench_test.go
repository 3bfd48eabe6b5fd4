package awk_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromafs/chromafs/awk"
)

// benchData is a 200,000-line log of about 9 MB: a number, a word from a
// small set, a float, a path.
func benchData() []byte {
	var b bytes.Buffer
	words := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"}
	for i := range 200000 {
		fmt.Fprintf(&b, "%d %s %d.%02d /api/v%d/items/%d status=%d\n", i, words[i%len(words)], i%977, i%100, i%3, i*7%10007, 200+i%5*100)
	}
	return b.Bytes()
}

var benchPrograms = []struct{ name, src string }{
	{"print-field", `{print $2}`},
	{"sum", `{s += $3} END {print s}`},
	{"count", `{c[$2]++} END {for (k in c) print k, c[k]}`},
	{"regex", `/v2\/items\/[0-9]+5 / {n++} END {print n}`},
	{"printf", `{printf "%-8s %10.2f\n", $2, $3 * 1.5}`},
	{"gsub", `{gsub(/[0-9]+/, "N"); print}`},
}

// BenchmarkVsGawk runs each program over the same file in this package's
// interpreter and in GNU awk as a whole process (skipped without gawk);
// compare the pairs' ns/op.
func BenchmarkVsGawk(b *testing.B) {
	data := benchData()
	dir := b.TempDir()
	file := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	gawk, gawkErr := exec.LookPath("gawk")
	for _, bp := range benchPrograms {
		prog, err := awk.Compile(bp.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("awk/"+bp.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				st, err := prog.Run(context.Background(), &awk.Config{Stdin: bytes.NewReader(data), Stdout: io.Discard})
				if err != nil || st != 0 {
					b.Fatal(st, err)
				}
			}
		})
		b.Run("gawk/"+bp.name, func(b *testing.B) {
			if gawkErr != nil {
				b.Skip("no gawk")
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				cmd := exec.Command(gawk, bp.src, file)
				cmd.Env = []string{"LC_ALL=C.UTF-8"}
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
