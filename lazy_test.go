package chromafs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// pointerServer serves pointer targets and counts the requests per path.
type pointerServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

const (
	specBody   = "openapi: 3.1.0\npaths:\n  /users:\n    get:\n      operationId: listUsers\n  /tokens:\n    post:\n      operationId: createToken\n"
	streamBody = "streamed without a length\noperationId: streamed\n"
	nosizeBody = "no declared size\noperationId: nosize\n"
	secretBody = "TOPSECRET operationId: hidden\n"
)

var pointerModTime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func newPointerServer(t *testing.T) *pointerServer {
	t.Helper()
	p := &pointerServer{hits: map[string]int{}}
	write := func(w http.ResponseWriter, body string, stream bool) {
		if !stream {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write([]byte(body))
			return
		}
		// Two writes with a flush between: chunked, no Content-Length.
		half := len(body) / 2
		_, _ = w.Write([]byte(body[:half]))
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte(body[half:]))
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.Path]++
		p.mu.Unlock()
		switch r.URL.Path {
		case "/spec.yaml":
			write(w, specBody, false)
		case "/stream.txt":
			write(w, streamBody, true)
		case "/nosize.txt":
			write(w, nosizeBody, false)
		case "/hidden.txt":
			write(w, secretBody, false)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case "/big":
			write(w, specBody+"EXTRA", false)
		case "/bigstream":
			write(w, specBody+"EXTRA", true)
		case "/small":
			write(w, specBody[:10], false)
		case "/smallstream":
			write(w, specBody[:10], true)
		case "/hash":
			write(w, strings.ToUpper(specBody), false)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *pointerServer) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

func (p *pointerServer) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, v := range p.hits {
		n += v
	}
	return n
}

// allowing returns a pointer policy that allows the given test servers:
// httptest listens on 127.0.0.1, a loopback address that the default
// policy refuses.
func allowing(t testing.TB, urls ...string) *pointer.Policy {
	t.Helper()
	p, err := pointer.NewPolicy(urls...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writePointerTree writes a collection with two ordinary pages and the
// pointers of srv: good ones under specs/ (with and without declared size
// and hash, one streamed), broken ones under broken/, a staff-only one
// under internal/, and one with a scheme no resolver handles.
func writePointerTree(t *testing.T, dst target, srv *pointerServer) {
	t.Helper()
	pub := func(slug, url string, size int64) tree.Entry {
		return tree.Entry{Slug: slug, IsPublic: true, HasIsPublic: true, URL: url, Size: size, ModTime: pointerModTime}
	}
	pages := map[string]string{"index.md": "# Docs\nsee specs/openapi.yaml\n", "guides/intro.md": "# Intro\noperationId in a page\n"}
	var entries []tree.Entry
	var records []collection.Record
	for slug, content := range pages {
		entries = append(entries, tree.Entry{Slug: slug, IsPublic: true, HasIsPublic: true, Size: int64(len(content)), Chunks: 1, Hash: sha(content)})
		records = append(records, collection.Record{ID: slug + ":0", Document: content,
			Metadata: map[string]any{"page_slug": slug, "chunk_index": 0}})
	}
	spec := pub("specs/openapi.yaml", srv.URL+"/spec.yaml", int64(len(specBody)))
	spec.Hash = sha(specBody)
	spec.ContentType = "application/yaml"
	secret := pub("internal/secret.yaml", srv.URL+"/hidden.txt", int64(len(secretBody)))
	secret.IsPublic, secret.Groups = false, []string{"staff"}
	hash := pub("broken/hash.md", srv.URL+"/hash", int64(len(specBody)))
	hash.Hash = sha(specBody)
	size := int64(len(specBody))
	entries = append(entries,
		spec,
		pub("specs/stream.txt", srv.URL+"/stream.txt", int64(len(streamBody))),
		pub("specs/nosize.txt", srv.URL+"/nosize.txt", -1),
		secret,
		pub("broken/missing.md", srv.URL+"/missing", 10),
		pub("broken/slow.md", srv.URL+"/slow", 10),
		pub("broken/big.md", srv.URL+"/big", size),
		pub("broken/bigstream.md", srv.URL+"/bigstream", size),
		pub("broken/small.md", srv.URL+"/small", size),
		pub("broken/smallstream.md", srv.URL+"/smallstream", size),
		hash,
		pub("s3/object.bin", "s3://bucket/object.bin", 3),
	)
	doc, err := tree.Encode(entries, false)
	if err != nil {
		t.Fatal(err)
	}
	records = append(records, collection.Record{ID: collection.DefaultLayout().TreeID, Document: string(doc),
		Metadata: map[string]any{"_system": true}, System: true})
	if err := dst.Upsert(context.Background(), records); err != nil {
		t.Fatal(err)
	}
}

// TestPointers serves lazy pointers from a real HTTP server, for each
// backend (memstore and a real Chroma).
func TestPointers(t *testing.T) {
	for _, b := range testbackend.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			srv := newPointerServer(t)
			store := b.New(t)
			writePointerTree(t, store, srv)
			ctx := context.Background()
			newFS := func(t *testing.T, opts ...chromafs.Option) *chromafs.FS {
				t.Helper()
				opts = append([]chromafs.Option{chromafs.WithResolver(&pointer.HTTPResolver{Policy: allowing(t, srv.URL)})}, opts...)
				fsys, err := chromafs.New(ctx, store, opts...)
				if err != nil {
					t.Fatal(err)
				}
				return fsys
			}

			t.Run("ls", func(t *testing.T) {
				fsys := newFS(t)
				before := srv.total()
				err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() || p == "specs/nosize.txt" {
						return err
					}
					fi, err := d.Info()
					if err != nil {
						return err
					}
					if fi2, err := fs.Stat(fsys, p); err != nil || fi2.Size() != fi.Size() {
						t.Errorf("Stat(%s) = %v, %v", p, fi2, err)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				fi, err := fs.Stat(fsys, "specs/openapi.yaml")
				if err != nil || fi.Size() != int64(len(specBody)) || !fi.ModTime().Equal(pointerModTime) || fi.Mode() != 0o444 {
					t.Fatalf("Stat(specs/openapi.yaml) = %v, %v", fi, err)
				}
				if e := fi.Sys().(*tree.Entry); e.URL != srv.URL+"/spec.yaml" || e.ContentType != "application/yaml" {
					t.Fatalf("Sys() = %+v", e)
				}
				ents, err := fs.ReadDir(fsys, "specs")
				if err != nil || len(ents) != 3 {
					t.Fatalf("ReadDir(specs) = %v, %v", ents, err)
				}
				if n := srv.total() - before; n != 0 {
					t.Fatalf("listing made %d HTTP requests; want 0", n)
				}
				// A pointer without a declared size is read once to learn it.
				for range 2 {
					fi, err = fs.Stat(fsys, "specs/nosize.txt")
					if err != nil || fi.Size() != int64(len(nosizeBody)) {
						t.Fatalf("Stat(specs/nosize.txt) = %v, %v", fi, err)
					}
				}
				if n := srv.count("/nosize.txt"); n != 1 {
					t.Fatalf("Stat of a pointer without size made %d requests; want 1", n)
				}
			})

			t.Run("read", func(t *testing.T) {
				fsys := newFS(t)
				before := srv.count("/spec.yaml")
				var wg sync.WaitGroup
				for range 8 {
					wg.Go(func() {
						got, err := fs.ReadFile(fsys, "specs/openapi.yaml")
						if err != nil || string(got) != specBody {
							t.Errorf("ReadFile = %q, %v", got, err)
						}
					})
				}
				wg.Wait()
				got, err := fs.ReadFile(fsys, "specs/stream.txt")
				if err != nil || string(got) != streamBody {
					t.Fatalf("ReadFile(stream) = %q, %v", got, err)
				}
				if n := srv.count("/spec.yaml") - before; n != 1 {
					t.Fatalf("9 reads made %d requests; want 1", n)
				}
				// An open file is a ReaderAt and Seeker over the content.
				f, err := fsys.Open("specs/openapi.yaml")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				buf := make([]byte, 7)
				if n, err := f.(interface {
					ReadAt([]byte, int64) (int, error)
				}).ReadAt(buf, 9); err != nil || string(buf[:n]) != specBody[9:16] {
					t.Fatalf("ReadAt = %q, %v", buf[:n], err)
				}
				if n := srv.count("/spec.yaml") - before; n != 1 {
					t.Fatalf("ReadAt after ReadFile made a request (%d in all)", n)
				}
			})

			t.Run("grep", func(t *testing.T) {
				fsys := newFS(t)
				q := grepx.Query{Patterns: []string{"operationId"}, Recursive: true, Paths: []string{"."}, ExcludeDir: []string{"broken", "s3"}}
				run := func() []string {
					var out []string
					_, err := grepx.Search(ctx, fsys, q, func(f *grepx.File) error {
						if f.Err != nil {
							t.Errorf("%s: %v", f.Path, f.Err)
						}
						for _, l := range f.Lines {
							out = append(out, f.Path+":"+string(l.Text))
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				before := srv.total()
				got := run()
				want := []string{
					"guides/intro.md:operationId in a page",
					"specs/nosize.txt:operationId: nosize",
					"specs/openapi.yaml:      operationId: listUsers",
					"specs/openapi.yaml:      operationId: createToken",
					"specs/stream.txt:operationId: streamed",
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("grep = %q\nwant %q", got, want)
				}
				first := srv.total() - before
				if first != 3 {
					t.Fatalf("first grep made %d HTTP requests; want 3", first)
				}
				if got := run(); len(got) != len(want) {
					t.Fatalf("second grep = %q", got)
				}
				if n := srv.total() - before - first; n != 0 {
					t.Fatalf("second grep made %d HTTP requests; want 0", n)
				}
			})

			t.Run("prefetch", func(t *testing.T) {
				fsys := newFS(t)
				before := srv.total()
				err := fsys.Prefetch(ctx, []string{"index.md", "specs/openapi.yaml", "specs/stream.txt", "internal/secret.yaml"})
				if err != nil {
					t.Fatal(err)
				}
				if n := srv.total() - before; n != 2 {
					t.Fatalf("Prefetch made %d HTTP requests; want 2", n)
				}
				for _, name := range []string{"specs/openapi.yaml", "specs/stream.txt"} {
					if _, err := fs.ReadFile(fsys, name); err != nil {
						t.Fatal(err)
					}
				}
				if n := srv.total() - before; n != 2 {
					t.Fatalf("reads after Prefetch made %d more HTTP requests", n-2)
				}
				err = fsys.Prefetch(ctx, []string{"broken/missing.md"})
				if !errors.Is(err, pointer.ErrBroken) {
					t.Fatalf("Prefetch(broken) = %v; want pointer.ErrBroken", err)
				}
			})

			t.Run("hidden", func(t *testing.T) {
				fsys := newFS(t)
				assertNotExist(t, fsys, "internal/secret.yaml")
				assertNotExist(t, fsys, "internal")
				_ = fsys.Prefetch(ctx, []string{"internal/secret.yaml"})
				q := grepx.Query{Patterns: []string{"TOPSECRET"}, Recursive: true, ExcludeDir: []string{"broken", "s3"}}
				_, err := grepx.Search(ctx, fsys, q, func(f *grepx.File) error {
					if len(f.Lines) > 0 || f.Err != nil {
						t.Errorf("grep of a hidden pointer: %s: %v %v", f.Path, f.Lines, f.Err)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if n := srv.count("/hidden.txt"); n != 0 {
					t.Fatalf("the hidden pointer's URL was requested %d times", n)
				}
				staff := newFS(t, chromafs.WithGroups("staff"))
				if got, err := fs.ReadFile(staff, "internal/secret.yaml"); err != nil || string(got) != secretBody {
					t.Fatalf("staff ReadFile = %q, %v", got, err)
				}
			})

			t.Run("fstest", func(t *testing.T) {
				fsys := newFS(t)
				sub, err := fs.Sub(fsys, "specs")
				if err != nil {
					t.Fatal(err)
				}
				if err := fstest.TestFS(sub, "openapi.yaml", "stream.txt", "nosize.txt"); err != nil {
					t.Fatal(err)
				}
			})

			t.Run("404", func(t *testing.T) {
				_, err := fs.ReadFile(newFS(t), "broken/missing.md")
				var se *pointer.StatusError
				if !errors.Is(err, pointer.ErrBroken) || errors.Is(err, fs.ErrNotExist) ||
					!errors.As(err, &se) || se.StatusCode != 404 {
					t.Fatalf("ReadFile(missing) = %v; want pointer.ErrBroken with a 404 StatusError", err)
				}
				if msg := err.Error(); !strings.Contains(msg, srv.URL+"/missing") || !strings.Contains(msg, "404 Not Found") {
					t.Fatalf("error %q does not name the URL and status", msg)
				}
			})

			t.Run("deadline", func(t *testing.T) {
				dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
				start := time.Now()
				data, err := fs.ReadFile(newFS(t).WithContext(dctx), "broken/slow.md")
				if !errors.Is(err, context.DeadlineExceeded) || data != nil {
					t.Fatalf("ReadFile(slow) = %q, %v; want DeadlineExceeded", data, err)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Fatalf("deadline of 200ms took %v", d)
				}
			})

			t.Run("size", func(t *testing.T) {
				fsys := newFS(t)
				for _, name := range []string{"broken/big.md", "broken/bigstream.md", "broken/small.md", "broken/smallstream.md", "broken/hash.md"} {
					data, err := fs.ReadFile(fsys, name)
					if !errors.Is(err, pointer.ErrBroken) || data != nil {
						t.Errorf("ReadFile(%s) = %d bytes, %v; want pointer.ErrBroken", name, len(data), err)
						continue
					}
					t.Logf("%s: %v", name, err)
					f, _ := fsys.Open(name)
					if n, err := f.Read(make([]byte, 100)); n != 0 || err == nil {
						t.Errorf("Read(%s) = %d, %v", name, n, err)
					}
					f.Close()
				}
				// MaxBytes: a pointer without declared size larger than it,
				// and one whose declared size is over it (no request).
				small := newFS(t, chromafs.WithResolver(&pointer.HTTPResolver{MaxBytes: 5, Policy: allowing(t, srv.URL)}))
				if _, err := fs.ReadFile(small, "specs/nosize.txt"); !errors.Is(err, pointer.ErrBroken) || !strings.Contains(err.Error(), "limit") {
					t.Errorf("ReadFile over MaxBytes = %v", err)
				}
				before := srv.count("/spec.yaml")
				if _, err := fs.ReadFile(small, "specs/openapi.yaml"); !errors.Is(err, pointer.ErrBroken) {
					t.Errorf("ReadFile declared over MaxBytes = %v", err)
				}
				if srv.count("/spec.yaml") != before {
					t.Error("a pointer declared over MaxBytes was requested")
				}
			})

			t.Run("resolvers", func(t *testing.T) {
				// No resolver: pointers list, but do not read.
				off := newFS(t, chromafs.WithResolver(nil))
				before := srv.total()
				if _, err := fs.ReadFile(off, "specs/openapi.yaml"); !errors.Is(err, pointer.ErrLazy) {
					t.Fatalf("ReadFile without resolver = %v; want pointer.ErrLazy", err)
				}
				if err := off.Prefetch(ctx, []string{"specs/openapi.yaml"}); err != nil {
					t.Fatal(err)
				}
				if n := srv.total() - before; n != 0 {
					t.Fatalf("without a resolver %d requests were made", n)
				}
				// The default resolver does not handle s3://.
				if _, err := fs.ReadFile(newFS(t), "s3/object.bin"); !errors.Is(err, pointer.ErrLazy) {
					t.Fatalf("ReadFile(s3) = %v; want pointer.ErrLazy", err)
				}
				// A user's resolver; its result is checked against the tree.
				objects := map[string]string{"s3://bucket/object.bin": "abc", srv.URL + "/spec.yaml": "short"}
				custom := newFS(t, chromafs.WithResolver(pointer.ResolverFunc(func(ctx context.Context, e *tree.Entry) ([]byte, error) {
					body, ok := objects[e.URL]
					if !ok {
						return nil, pointer.ErrLazy
					}
					return []byte(body), nil
				})))
				if got, err := fs.ReadFile(custom, "s3/object.bin"); err != nil || string(got) != "abc" {
					t.Fatalf("custom ReadFile = %q, %v", got, err)
				}
				if _, err := fs.ReadFile(custom, "specs/openapi.yaml"); !errors.Is(err, pointer.ErrBroken) {
					t.Fatalf("custom resolver with a wrong size = %v; want pointer.ErrBroken", err)
				}
			})
		})
	}
}
