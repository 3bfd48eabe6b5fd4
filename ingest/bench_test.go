package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/memstore"
)

func BenchmarkChunk(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
		content := []byte(strings.Repeat("a line of documentation text, some words\n", size/41+1)[:size])
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				Chunk(content, DefaultMaxChunk)
			}
		})
	}
}

func BenchmarkRun(b *testing.B) {
	for _, pages := range []int{100, 1000} {
		files := map[string]string{}
		for i := range pages {
			files[fmt.Sprintf("dir%d/page%d.md", i%10, i)] = strings.Repeat(fmt.Sprintln("page", i, "text"), 200)
		}
		src := mapFS(files)
		b.Run(fmt.Sprint(pages), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(ctx, memstore.New("c"), src, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
