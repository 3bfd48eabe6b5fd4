package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
)

var specBody = strings.Repeat(`{"openapi":"3.1.0","paths":{}}`+"\n", 300)

// specServer serves specBody at /spec.json and 404 elsewhere; it counts
// requests.
func specServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	n := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spec.json" {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(specBody))
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

func specManifest(url string) string {
	sum := sha256.Sum256([]byte(specBody))
	return fmt.Sprintf(`[{"slug":"internal/specs/openapi.json","url":%q,"size":%d,"sha256":%q,"modTime":"2024-05-01T10:00:00Z","contentType":"application/json"}]`,
		url+"/spec.json", len(specBody), hex.EncodeToString(sum[:]))
}

// pointerRoundTrip ingests docs plus a pointer, reads it back through
// chromafs, then re-ingests without it.
func pointerRoundTrip(t *testing.T, ctx context.Context, dst Target) {
	srv, requests := specServer(t)
	ps, err := LoadPointers(strings.NewReader(specManifest(srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := ParseRules(strings.NewReader(staffRules))
	files := mapFS(docs)
	// A page that becomes a pointer.
	files["internal/specs/openapi.json"] = &fstest.MapFile{Data: []byte("old page\n"), Mode: 0o644, ModTime: mtime}
	if _, err := Run(ctx, dst, files, Options{Rules: rules, MaxChunk: 64}); err != nil {
		t.Fatal(err)
	}
	delete(files, "internal/specs/openapi.json")
	r, err := Run(ctx, dst, files, Options{Rules: rules, MaxChunk: 64, Pointers: ps})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pointers != 1 || r.Updated != 1 || r.Pages != len(docs)+1 || r.Deleted == 0 {
		t.Fatalf("pointer run:\n%s", r)
	}
	chunkIDs, err := dst.ChunkIDs(ctx, collection.DefaultLayout(), []string{"internal/specs/openapi.json"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := chunkIDs["internal/specs/openapi.json"]; len(ids) != 0 {
		t.Fatalf("the page that became a pointer keeps chunks %q", ids)
	}

	// The spec server listens on 127.0.0.1, which pointers may reach
	// only when allowed.
	policy, err := pointer.NewPolicy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	staff, err := chromafs.New(ctx, dst, chromafs.WithGroups("staff"), chromafs.WithResolver(&pointer.HTTPResolver{Policy: policy}))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := fs.Stat(staff, "internal/specs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(len(specBody)) || !fi.ModTime().Equal(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("stat: size %d, modTime %v", fi.Size(), fi.ModTime())
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("stat fetched the pointer (%d requests)", n)
	}
	data, err := fs.ReadFile(staff, "internal/specs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != specBody {
		t.Fatalf("pointer reads %d bytes, want the %d served", len(data), len(specBody))
	}
	// Access rules apply: internal/** is staff only.
	public, err := chromafs.New(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(public, "internal/specs/openapi.json"); err == nil {
		t.Fatal("a public user sees the staff-only pointer")
	}

	// Unchanged on a second run with the same manifest.
	r, err = Run(ctx, dst, files, Options{Rules: rules, MaxChunk: 64, Pointers: ps})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unchanged != r.Pages || r.Chunks != 0 {
		t.Fatalf("same manifest again:\n%s", r)
	}

	// Re-ingest without the manifest removes the pointer.
	r, err = Run(ctx, dst, files, Options{Rules: rules, MaxChunk: 64})
	if err != nil {
		t.Fatal(err)
	}
	if r.Removed != 1 || r.Pointers != 0 {
		t.Fatalf("run without the pointer:\n%s", r)
	}
	staff, err = chromafs.New(ctx, dst, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	readFS(t, staff, docs)
}

func TestPointersMemstore(t *testing.T) {
	pointerRoundTrip(t, ctx, memstore.New("c"))
}

func TestPointersChroma(t *testing.T) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	col := testbackend.Chroma(t)
	pointerRoundTrip(t, cctx, col)
}

func TestLoadPointers(t *testing.T) {
	ps, err := LoadPointers(strings.NewReader(`[{"slug":"a/b.json","url":"https://example.com/b.json"},
		{"slug":"c.bin","url":"s3://bucket/c.bin","size":0,"sha256":"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Pointer{
		{Slug: "a/b.json", URL: "https://example.com/b.json", Size: -1},
		{Slug: "c.bin", URL: "s3://bucket/c.bin", Size: 0, Hash: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	if !slices.Equal(ps, want) {
		t.Fatalf("got %+v\nwant %+v", ps, want)
	}
	if ps, err := LoadPointers(strings.NewReader(" [] ")); err != nil || len(ps) != 0 {
		t.Fatalf("empty array: %v, %v", ps, err)
	}

	bad := []struct{ name, manifest, want string }{
		{"not JSON", `[{"slug":`, "not a JSON array"},
		{"object", `{"slug":"a","url":"https://x/a"}`, "not a JSON array"},
		{"empty", ``, "empty"},
		{"trailing", `[] []`, "after the JSON array"},
		{"unknown field", `[{"slug":"a","url":"https://x/a","hash":"sha256:00"}]`, `unknown field "hash"`},
		{"dotdot", `[{"slug":"ok","url":"https://x/a"},{"slug":"../etc/passwd","url":"https://x/a"}]`, `entry 2 ("../etc/passwd"): unsafe slug`},
		{"absolute", `[{"slug":"/abs","url":"https://x/a"}]`, `entry 1 ("/abs"): unsafe slug`},
		{"backslash", `[{"slug":"a\\b","url":"https://x/a"}]`, "unsafe slug: name contains a backslash"},
		{"no slug", `[{"url":"https://x/a"}]`, "entry 1 (\"\"): no slug"},
		{"no url", `[{"slug":"a"}]`, "no url"},
		{"relative url", `[{"slug":"a","url":"x/a"}]`, "not absolute"},
		{"no host", `[{"slug":"a","url":"https:///a"}]`, "no host"},
		{"negative size", `[{"slug":"a","url":"https://x/a","size":-5}]`, "negative size"},
		{"bad hash", `[{"slug":"a","url":"https://x/a","sha256":"xyz"}]`, "bad hash"},
		{"duplicate", `[{"slug":"a","url":"https://x/a"},{"slug":"a","url":"https://x/b"}]`, "entry 2 (\"a\"): duplicate slug, also entry 1"},
		{"bad modTime", `[{"slug":"a","url":"https://x/a","modTime":"yesterday"}]`, "not a JSON array"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadPointers(strings.NewReader(tt.manifest))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestPointerClashes(t *testing.T) {
	tests := []struct {
		name string
		p    Pointer
		want string
	}{
		{"same path as a file", Pointer{Slug: "guide/intro.md", URL: "https://x/a", Size: -1}, "pointer guide/intro.md clashes with a file"},
		{"under a file", Pointer{Slug: "guide/intro.md/x", URL: "https://x/a", Size: -1}, "clash"},
		{"a directory of files", Pointer{Slug: "guide", URL: "https://x/a", Size: -1}, "clash"},
		{"unsafe slug", Pointer{Slug: "a/../b", URL: "https://x/a", Size: -1}, "unsafe slug"},
		{"bad hash", Pointer{Slug: "p", URL: "https://x/a", Size: -1, Hash: "md5:00"}, "bad hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New("c")
			_, err := Run(ctx, s, mapFS(map[string]string{"guide/intro.md": "hi\n"}), Options{Pointers: []Pointer{tt.p}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, err := s.Tree(ctx, collection.DefaultLayout().TreeID); err == nil {
				t.Fatal("a tree was written")
			}
		})
	}
}

// TestLoadPointersRedacts: a bad pointer URL is named without its
// userinfo and query, which may hold credentials.
func TestLoadPointersRedacts(t *testing.T) {
	for _, u := range []string{
		"https://user:SECRET@h:bad/x?token=SECRET",
		"https://h/%zz?token=SECRET",
		"SECRET@h/x?token=SECRET",
	} {
		_, err := LoadPointers(strings.NewReader(fmt.Sprintf(`[{"slug":"a","url":%q}]`, u)))
		if err == nil || !strings.Contains(err.Error(), "bad url") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("LoadPointers(%s) = %v; want a bad url error without the secret", u, err)
		}
	}
}
