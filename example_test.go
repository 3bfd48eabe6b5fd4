package chromafs_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"sync"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

// exampleStore returns an in-memory collection written the way other
// writers do it: pages cut into small chunks, internal/ for staff only.
func exampleStore() collection.Store {
	s := memstore.New("example")
	files := map[string]string{
		"index.md":              "# Docs\n",
		"guides/quickstart.md":  "# Quickstart\nRun `acme init`.\n",
		"guides/auth/oauth.mdx": "# OAuth\nUse the access_token.\n",
		"internal/oncall.md":    "# On-call\nweekly rotation\n",
	}
	err := memstore.Load(s, collection.DefaultLayout(), files, memstore.LoadOptions{
		ChunkSize: 8,
		Access: func(slug string) (bool, []string) {
			if slug == "internal/oncall.md" {
				return false, []string{"staff"}
			}
			return true, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	return s
}

func Example() {
	ctx := context.Background()
	fsys, err := chromafs.New(ctx, exampleStore())
	if err != nil {
		log.Fatal(err)
	}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		fmt.Println(p)
		return err
	})
	data, err := fs.ReadFile(fsys, "guides/quickstart.md")
	fmt.Printf("%q %v\n", data, err)
	// Output:
	// .
	// guides
	// guides/auth
	// guides/auth/oauth.mdx
	// guides/quickstart.md
	// index.md
	// "# Quickstart\nRun `acme init`.\n" <nil>
}

func ExampleWithGroups() {
	ctx := context.Background()
	store := exampleStore()
	for _, groups := range [][]string{nil, {"staff"}} {
		fsys, err := chromafs.New(ctx, store, chromafs.WithGroups(groups...))
		if err != nil {
			log.Fatal(err)
		}
		_, err = fs.Stat(fsys, "internal/oncall.md")
		fmt.Printf("groups %v: %v\n", groups, err)
	}
	// Output:
	// groups []: stat internal/oncall.md: file does not exist
	// groups [staff]: <nil>
}

func ExampleFS_Glob() {
	fsys, err := chromafs.New(context.Background(), exampleStore())
	if err != nil {
		log.Fatal(err)
	}
	matches, err := fs.Glob(fsys, "guides/*/*.mdx")
	fmt.Println(matches, err)
	// Output: [guides/auth/oauth.mdx] <nil>
}

// PrefetchEach loads pages in one request and hands each over as soon as
// it is assembled and checked; pages the caller may not see are skipped.
func ExampleFS_PrefetchEach() {
	fsys, err := chromafs.New(context.Background(), exampleStore())
	if err != nil {
		log.Fatal(err)
	}
	names := []string{"index.md", "internal/oncall.md", "guides/quickstart.md"}
	got := map[string]string{}
	var mu sync.Mutex
	err = fsys.PrefetchEach(context.Background(), names, func(name string, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		got[name] = string(data)
	})
	fmt.Printf("%q %v\n", got, err)
	// Output: map["guides/quickstart.md":"# Quickstart\nRun `acme init`.\n" "index.md":"# Docs\n"] <nil>
}

// WalkDir walks the visible tree as fs.WalkDir does, from memory.
func ExampleFS_WalkDir() {
	fsys, err := chromafs.New(context.Background(), exampleStore())
	if err != nil {
		log.Fatal(err)
	}
	err = fsys.WalkDir(".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && name == "guides/auth" {
			return fs.SkipDir
		}
		fmt.Println(name, d.IsDir())
		return nil
	})
	fmt.Println(err)
	// Output:
	// . true
	// guides true
	// guides/quickstart.md false
	// index.md false
	// <nil>
}

// ExampleShared_Stats: sessions made with one Shared load a collection's
// tree once; Stats says so, for a server's metrics.
func ExampleShared_Stats() {
	ctx := context.Background()
	shared := chromafs.NewShared(0)
	store := exampleStore()
	for range 3 { // three sessions, as three requests of a server would make
		if _, err := chromafs.New(ctx, store, chromafs.WithShared(shared)); err != nil {
			log.Fatal(err)
		}
	}
	st := shared.Stats()
	fmt.Println(st.TreesLoaded, st.Trees, st.TreeBytes > 0, st.TreesEvicted)
	// Output: 1 1 true 0
}
