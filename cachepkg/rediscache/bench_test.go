package rediscache_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/cachepkg/rediscache"
	"github.com/chromafs/chromafs/internal/testenv"
)

// BenchmarkHasShared times what the coarse filter asks Redis before it
// reads pages from there instead of asking Chroma: which of 849 page keys
// (4 KB values) the server holds, with pipelined EXISTS (HasShared), next
// to reading the values themselves (GetMany), on one server and on a
// cluster of 3 masters.
func BenchmarkHasShared(b *testing.B) {
	ctx := context.Background()
	const n = 849
	keys := make([]string, n)
	values := make(map[string][]byte, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("coll\x00sha256:%064x\x00\x00guides/section-%d/page-%d.md", i, i%40, i)
		values[keys[i]] = []byte(strings.Repeat("x", 4096))
	}
	for _, deploy := range []string{"single", "cluster"} {
		b.Run(deploy, func(b *testing.B) {
			var url string
			if deploy == "single" {
				url = testenv.Redis(b).URL
			} else {
				url = testenv.NewRedisCluster(b, 3).URL
			}
			r, err := rediscache.New(url, rediscache.Options{Prefix: b.Name() + ":", TTL: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			if err := r.PutMany(ctx, values); err != nil {
				b.Fatal(err)
			}
			b.Run("HasShared", func(b *testing.B) {
				for b.Loop() {
					has, err := r.HasShared(ctx, keys)
					if err != nil || !has[n-1] {
						b.Fatal(err, has[n-1])
					}
				}
			})
			b.Run("GetMany", func(b *testing.B) {
				for b.Loop() {
					got, err := r.GetMany(ctx, keys)
					if err != nil || len(got) != n {
						b.Fatal(err, len(got))
					}
				}
			})
			if err := r.Clear(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
