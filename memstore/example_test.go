package memstore_test

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

func Example() {
	s := memstore.New("docs")
	files := map[string]string{
		"index.md":       "# Welcome\n",
		"auth/oauth.mdx": "Use an access_token.\nRefresh it hourly.\n",
	}
	err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{
		ChunkSize: 16, // cut every 16 bytes, as some writers do
		Access: func(slug string) (bool, []string) {
			return !strings.HasPrefix(slug, "auth/"), []string{"staff"}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	chunks, err := s.Chunks(ctx, collection.DefaultLayout(), []string{"auth/oauth.mdx"})
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].Index < chunks[j].Index })
	var page strings.Builder
	for _, c := range chunks {
		page.WriteString(c.Text)
	}
	fmt.Printf("%d chunks: %q\n", len(chunks), page.String())
	fmt.Printf("%d records, requests %+v\n", s.Len(), s.Requests())
	// Output:
	// 3 chunks: "Use an access_token.\nRefresh it hourly.\n"
	// 5 records, requests {Tree:0 Chunks:1 Scan:0 IDs:0 Upsert:1 Delete:0 ChunkIDs:0 ChunksByID:0 Search:0 Metadata:0}
}
