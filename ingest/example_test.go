package ingest_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"

	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/memstore"
)

func Example() {
	docs := fstest.MapFS{
		"index.md":            {Data: []byte("# Docs\n\nStart here.\n")},
		"auth/oauth.md":       {Data: []byte(strings.Repeat("Send the access_token header.\n", 100))},
		"internal/runbook.md": {Data: []byte("Page the on-call.\n")},
		"logo.svg":            {Data: []byte("ok.md"), Mode: fs.ModeSymlink},
	}
	rules, err := ingest.ParseRules(strings.NewReader(`
		**            public
		internal/**   private groups=staff   # only staff see the runbook
	`))
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	collection := memstore.New("docs")
	report, err := ingest.Run(ctx, collection, docs, ingest.Options{Rules: rules})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report)

	// Running again with one page changed rewrites only that page.
	docs["index.md"] = &fstest.MapFile{Data: []byte("# Docs\n\nStart here, please.\n")}
	report, err = ingest.Run(ctx, collection, docs, ingest.Options{Rules: rules})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report)
	// Output:
	// 3 pages (3 added, 0 updated, 0 unchanged), 0 removed
	// 5 chunks written, 0 records deleted
	// skipped logo.svg: symbolic link
	// 3 pages (0 added, 1 updated, 2 unchanged), 0 removed
	// 1 chunk written, 0 records deleted
	// skipped logo.svg: symbolic link
}
