package httpfs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/adapters/httpfs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// TestRangeOnPointer: a Range GET of a large lazy pointer asks the
// pointer's server for a window around the range, never the whole file;
// a GET without Range fetches it whole; a failing upstream is a 502, not a
// partial 206.
func TestRangeOnPointer(t *testing.T) {
	body := make([]byte, 1<<20)
	for i := range body {
		body[i] = byte('a' + i%23)
	}
	var (
		mu     sync.Mutex
		ranges []string
		fail   bool
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		broken := fail
		mu.Unlock()
		if broken {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		http.ServeContent(w, r, "big.bin", time.Time{}, bytes.NewReader(body))
	}))
	defer up.Close()
	sum := sha256.Sum256(body)
	doc, err := tree.Encode([]tree.Entry{{Slug: "big.bin", IsPublic: true, HasIsPublic: true, URL: up.URL + "/big.bin",
		Size: int64(len(body)), Hash: "sha256:" + hex.EncodeToString(sum[:])}}, false)
	if err != nil {
		t.Fatal(err)
	}
	newHandler := func() http.Handler {
		store := memstore.New(t.Name())
		if err := store.Upsert(context.Background(), []collection.Record{{ID: collection.DefaultLayout().TreeID, Document: string(doc), System: true}}); err != nil {
			t.Fatal(err)
		}
		// The upstream listens on 127.0.0.1, which pointers may reach
		// only when allowed.
		policy, err := pointer.NewPolicy(up.URL)
		if err != nil {
			t.Fatal(err)
		}
		fsys, err := chromafs.New(context.Background(), store, chromafs.WithResolver(&pointer.HTTPResolver{Policy: policy}))
		if err != nil {
			t.Fatal(err)
		}
		return httpfs.NewHandler(func(*http.Request) (fs.FS, error) { return fsys, nil }, httpfs.Options{})
	}
	get := func(h http.Handler, rng string) *http.Response {
		req := httptest.NewRequest(http.MethodGet, "/big.bin", nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result()
	}
	for _, tc := range []struct {
		rng      string
		from, to int // bytes wanted: body[from:to]
	}{
		{"bytes=600000-600099", 600000, 600100},
		{"bytes=1048000-", 1048000, 1 << 20},
		{"bytes=-100", 1<<20 - 100, 1 << 20},
		{"bytes=300000-700000", 300000, 700001}, // more than one window
	} {
		mu.Lock()
		ranges = nil
		mu.Unlock()
		resp := get(newHandler(), tc.rng)
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, body[tc.from:tc.to]) {
			t.Fatalf("%s: status %d, %d bytes; want 206 and %d bytes", tc.rng, resp.StatusCode, len(got), tc.to-tc.from)
		}
		mu.Lock()
		for _, r := range ranges {
			if r == "" {
				t.Fatalf("%s: the pointer was fetched whole (upstream requests: %q)", tc.rng, ranges)
			}
		}
		mu.Unlock()
	}

	mu.Lock()
	ranges = nil
	mu.Unlock()
	resp := get(newHandler(), "")
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) || len(ranges) != 1 || ranges[0] != "" {
		t.Fatalf("plain GET: status %d, %d bytes, upstream requests %q; want 200, the whole body in one request", resp.StatusCode, len(got), ranges)
	}

	mu.Lock()
	fail = true
	mu.Unlock()
	if resp := get(newHandler(), "bytes=600000-600099"); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("range GET with the upstream failing: status %d; want 502", resp.StatusCode)
	}
}
