// Package testbackend gives chromafs's tests the stores they run on: a
// fresh collection in a real Chroma ([Chroma], [OpenChroma]) and the pair
// of backends, memstore and real Chroma, that table tests range over
// ([Backends]). It is for tests only.
//
// It imports the collection contract, chromastore, memstore and testenv
// only, so that the internal tests of any other package (ingest's, for
// one) can use it. A test binary that uses the Chroma backend calls
// testenv.Main from its TestMain.
package testbackend

import (
	"context"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
)

// Target is what every backend's store implements: the read side, the
// write side, reads by id, scans and searches.
type Target interface {
	collection.Store
	collection.Writer
	collection.IDReader
	collection.Scanner
	collection.Searcher
}

// Compile-time checks that both backends are Targets.
var (
	_ Target = (*memstore.Store)(nil)
	_ Target = (*chromastore.Collection)(nil)
)

// Backend is one store implementation that table tests run on.
type Backend struct {
	// Name is "memstore" or "chroma", for subtest names.
	Name string
	// New returns a new, empty store of this backend for tb; a Chroma
	// collection is closed when tb ends.
	New func(tb testing.TB) Target
}

// Backends returns the memstore backend and the real Chroma backend (a
// fresh collection on the shared server of testenv.Chroma), in that order.
func Backends() []Backend {
	return []Backend{
		{"memstore", func(tb testing.TB) Target { return memstore.New(tb.Name()) }},
		{"chroma", func(tb testing.TB) Target { return Chroma(tb) }},
	}
}

// Chroma opens a new collection on the shared Chroma server of
// testenv.Chroma, as OpenChroma does with that server's URL.
func Chroma(tb testing.TB) *chromastore.Collection {
	tb.Helper()
	return OpenChroma(tb, chromastore.Config{URL: testenv.Chroma(tb).URL})
}

// OpenChroma opens the collection cfg names, creating it if it does not
// exist (it sets cfg.Create), and closes it when tb ends; it fails tb if
// Open fails. cfg.URL is required; an empty cfg.Collection means a name of
// its own for tb (testenv.CollectionName), so that the collection is new
// and empty. The other fields (Timeout, HTTPClient, CloudLimits,
// Embedding, Headers...) are passed to chromastore.Open as they are.
//
// Tests of chromastore.Open itself (its errors, Create false, a second
// Open of one collection) call chromastore.Open directly.
func OpenChroma(tb testing.TB, cfg chromastore.Config) *chromastore.Collection {
	tb.Helper()
	if cfg.Collection == "" {
		cfg.Collection = testenv.CollectionName(tb)
	}
	cfg.Create = true
	c, err := chromastore.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// SharedChroma opens a new collection on the shared Chroma server of
// testenv.Chroma for data that several tests of the binary read, written
// once by the first of them (see testenv.Shared): it is named by
// testenv.SharedCollectionName(base), stays open when tb ends, and is
// deleted when testenv.Main ends the tests. It fails tb if Open fails.
func SharedChroma(tb testing.TB, base string) *chromastore.Collection {
	tb.Helper()
	c, err := chromastore.Open(context.Background(), chromastore.Config{
		URL: testenv.Chroma(tb).URL, Collection: testenv.SharedCollectionName(base), Create: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
