package aferofs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"syscall"

	"github.com/spf13/afero"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/aferofs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
)

func Example() {
	// An in-memory collection; chromastore.Open gives a real one.
	store := memstore.New("docs")
	err := memstore.Load(store, collection.DefaultLayout(), map[string]string{
		"index.md":             "# Docs\n",
		"guides/quickstart.md": "# Quickstart\n",
		"internal/oncall.md":   "# On-call\n",
	}, memstore.LoadOptions{Access: func(slug string) (bool, []string) {
		return slug != "internal/oncall.md", []string{"staff"}
	}})
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), store) // no groups: public pages only
	if err != nil {
		log.Fatal(err)
	}

	afs := aferofs.New(fsys)
	_ = afero.Walk(afs, "/", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			fmt.Println(p, fi.Size())
		}
		return err
	})
	data, _ := afero.ReadFile(afs, "/guides/quickstart.md")
	fmt.Printf("%q\n", data)
	ok, _ := afero.Exists(afs, "/internal/oncall.md")
	fmt.Println("hidden page exists:", ok)

	err = afero.WriteFile(afs, "/new.md", []byte("x"), 0o644)
	fmt.Println(err, errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS))
	// Output:
	// /guides/quickstart.md 13
	// /index.md 7
	// "# Quickstart\n"
	// hidden page exists: false
	// open /new.md: read-only file system true true
}
