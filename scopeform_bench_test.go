package chromafs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/collection"
)

// BenchmarkScopeForms sends Chroma, over bare HTTP, the coarse query of
// BenchmarkCoarseScope's public view (an escaped-literal $regex, ids
// only, on the 1,131-page ingest-written site with 283 pages hidden) in
// every form that keeps the hidden pages out of it, in paired rounds, and
// reports each form's median and its median ratio to the unscoped query
// (which covers the hidden pages: the baseline, not a form chromafs may
// send): the $nin of the hidden pages (what FS.Candidates sends for this
// view), the $in of the visible ones, whole or split into 2 or 4
// requests in flight together, the $and of two $nin halves, a $nin of
// one slug (what any where filter costs), and, for the rare literal, the
// ids of the visible pages' chunks.
func BenchmarkScopeForms(b *testing.B) {
	ctx := context.Background()
	store, url, hidden, visible := staffSite(b)
	var visibleIDs []string
	ids, err := store.ChunkIDs(ctx, collection.DefaultLayout(), visible)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range visible {
		visibleIDs = append(visibleIDs, ids[s]...)
	}
	get := url + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + store.CollectionID() + "/get"
	post := func(body map[string]any) error {
		data, _ := json.Marshal(body)
		resp, err := http.Post(get, "application/json", bytes.NewReader(data))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("%d: %s", resp.StatusCode, out)
		}
		return nil
	}
	for _, lit := range []string{"x-api-key", "webhook"} {
		b.Run(lit, func(b *testing.B) {
			wd := map[string]any{"$regex": "(?:" + regexp.QuoteMeta(lit) + ")"}
			one := func(where map[string]any, idList []string) func() error {
				return func() error {
					body := map[string]any{"where_document": wd, "include": []string{}}
					if where != nil {
						body["where"] = where
					}
					if idList != nil {
						body["ids"] = idList
					}
					return post(body)
				}
			}
			split := func(list []string, k int, where func([]string) map[string]any) func() error {
				return func() error {
					var wg sync.WaitGroup
					errs := make([]error, k)
					n := (len(list) + k - 1) / k
					for i := range k {
						part := list[min(i*n, len(list)):min((i+1)*n, len(list))]
						wg.Go(func() { errs[i] = one(where(part), nil)() })
					}
					wg.Wait()
					for _, e := range errs {
						if e != nil {
							return e
						}
					}
					return nil
				}
			}
			in := func(l []string) map[string]any { return map[string]any{"page_slug": map[string]any{"$in": l}} }
			nin := func(l []string) map[string]any { return map[string]any{"page_slug": map[string]any{"$nin": l}} }
			h := len(hidden) / 2
			variants := []benchVariant{
				{"unscoped", one(nil, nil)},
				{"nin-hidden", one(nin(hidden), nil)},
				{"in-visible", one(in(visible), nil)},
				{"in-visible-2", split(visible, 2, in)},
				{"in-visible-4", split(visible, 4, in)},
				{"and-nin-halves", one(map[string]any{"$and": []any{nin(hidden[:h]), nin(hidden[h:])}}, nil)},
				{"nin-1", one(nin(hidden[:1]), nil)},
			}
			if lit == "x-api-key" {
				// With "webhook" (2,000 matching chunks) this form took
				// 20 s a query on Chroma 1.0.
				variants = append(variants, benchVariant{"ids-visible", one(nil, visibleIDs)})
			}
			pairedVariants(b, variants)
		})
	}
}
