package fscap_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/fscap"
)

// files is the content of the filesystems of the tests: a.md holds "x",
// b.md "y".
func files() fstest.MapFS {
	return fstest.MapFS{
		"a.md":   {Data: []byte("x")},
		"d/b.md": {Data: []byte("y")},
	}
}

// capable implements every capability of fscap with answers that no
// fallback gives, and records the calls it gets.
type capable struct {
	fstest.MapFS
	calls []string
}

func (c *capable) record(format string, args ...any) {
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
}

func (c *capable) Candidates(ctx context.Context, names, literals []string, fold bool) ([]string, error) {
	c.record("Candidates %v %v %v", names, literals, fold)
	return names[1:], nil
}

func (c *capable) Prefetch(ctx context.Context, names []string) error {
	c.record("Prefetch %v", names)
	return errors.New("prefetch failed")
}

func (c *capable) PrefetchEach(ctx context.Context, names []string, loaded func(string, []byte)) error {
	c.record("PrefetchEach %v", names)
	for _, n := range names {
		loaded(n, []byte("handed "+n))
	}
	return nil
}

func (c *capable) Uncached(ctx context.Context, names []string) []string {
	c.record("Uncached %v", names)
	return names[:1]
}

func (c *capable) ReadFileShared(name string) ([]byte, error) {
	c.record("ReadFileShared %s", name)
	return []byte("shared " + name), nil
}

func (c *capable) StatNoRead(name string) (fs.FileInfo, bool, error) {
	c.record("StatNoRead %s", name)
	fi, err := fs.Stat(c.MapFS, name)
	return fi, false, err
}

func (c *capable) WalkDir(root string, fn fs.WalkDirFunc) error {
	c.record("WalkDir %s", root)
	return fn("own walk", nil, nil)
}

func (c *capable) BindContext(ctx context.Context) fs.FS {
	c.record("BindContext")
	return fstest.MapFS{"bound.md": {}}
}

func (c *capable) Preload(ctx context.Context) error {
	c.record("Preload")
	return errors.New("preload failed")
}

func (c *capable) IsLazy(name string) bool {
	c.record("IsLazy %s", name)
	return true
}

func (c *capable) Query(ctx context.Context, dir string, vector []float32, k int) ([]fscap.QueryHit, error) {
	c.record("Query %s %v %d", dir, vector, k)
	return []fscap.QueryHit{{Name: "a.md", Start: 1, End: 1}}, nil
}

// prefetchOnly is a PrefetchFS that is not a PrefetchEachFS.
type prefetchOnly struct {
	fstest.MapFS
	calls []string
}

func (p *prefetchOnly) Prefetch(ctx context.Context, names []string) error {
	p.calls = append(p.calls, fmt.Sprintf("Prefetch %v", names))
	return nil
}

// TestHelpers calls each helper on a filesystem without the capability,
// where it must give the fallback's answer, and on one with it, where it
// must give the capability's answer after exactly one call of it.
func TestHelpers(t *testing.T) {
	ctx := context.Background()
	names := []string{"a.md", "d/b.md"}
	walk := func(fsys fs.FS) string {
		var seen []string
		err := fscap.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			seen = append(seen, p)
			return err
		})
		return fmt.Sprint(seen, err)
	}
	tests := []struct {
		name           string
		call           func(fs.FS) string
		plain, capable string // results
		calls          string // of capable
	}{
		{
			name: "Candidates",
			call: func(fsys fs.FS) string {
				got, err := fscap.Candidates(ctx, fsys, names, []string{"x"}, true)
				return fmt.Sprint(got, err)
			},
			plain:   "[a.md d/b.md] <nil>",
			capable: "[d/b.md] <nil>",
			calls:   "Candidates [a.md d/b.md] [x] true",
		},
		{
			name:    "Prefetch",
			call:    func(fsys fs.FS) string { return fmt.Sprint(fscap.Prefetch(ctx, fsys, names)) },
			plain:   "<nil>",
			capable: "prefetch failed",
			calls:   "Prefetch [a.md d/b.md]",
		},
		{
			name: "PrefetchEach",
			call: func(fsys fs.FS) string {
				var got []string
				err := fscap.PrefetchEach(ctx, fsys, names, func(n string, data []byte) { got = append(got, string(data)) })
				return fmt.Sprint(got, err)
			},
			plain:   "[] <nil>",
			capable: "[handed a.md handed d/b.md] <nil>",
			calls:   "PrefetchEach [a.md d/b.md]",
		},
		{
			name:    "Uncached",
			call:    func(fsys fs.FS) string { return fmt.Sprint(fscap.Uncached(ctx, fsys, names)) },
			plain:   "[a.md d/b.md]",
			capable: "[a.md]",
			calls:   "Uncached [a.md d/b.md]",
		},
		{
			name: "ReadFileShared",
			call: func(fsys fs.FS) string {
				data, err := fscap.ReadFileShared(fsys, "a.md")
				return fmt.Sprintf("%s %v", data, err)
			},
			plain:   "x <nil>",
			capable: "shared a.md <nil>",
			calls:   "ReadFileShared a.md",
		},
		{
			name: "ReadFileShared of a missing file",
			call: func(fsys fs.FS) string {
				_, err := fscap.ReadFileShared(fsys, "none")
				return fmt.Sprint(errors.Is(err, fs.ErrNotExist))
			},
			plain:   "true",
			capable: "false", // the fake answers every name
			calls:   "ReadFileShared none",
		},
		{
			name: "StatNoRead",
			call: func(fsys fs.FS) string {
				fi, known, err := fscap.StatNoRead(fsys, "a.md")
				return fmt.Sprintf("%s %d %v %v", fi.Name(), fi.Size(), known, err)
			},
			plain:   "a.md 1 true <nil>",
			capable: "a.md 1 false <nil>",
			calls:   "StatNoRead a.md",
		},
		{
			name: "StatNoRead of a missing file",
			call: func(fsys fs.FS) string {
				fi, known, err := fscap.StatNoRead(fsys, "none")
				return fmt.Sprint(fi, known, errors.Is(err, fs.ErrNotExist))
			},
			plain:   "<nil> false true",
			capable: "<nil> false true",
			calls:   "StatNoRead none",
		},
		{
			name:    "WalkDir",
			call:    walk,
			plain:   "[. a.md d d/b.md] <nil>",
			capable: "[own walk] <nil>",
			calls:   "WalkDir .",
		},
		{
			name: "Bind",
			call: func(fsys fs.FS) string {
				_, err := fs.Stat(fscap.Bind(ctx, fsys), "bound.md")
				return fmt.Sprint(err == nil)
			},
			plain:   "false",
			capable: "true",
			calls:   "BindContext",
		},
		{
			name: "Bind with a nil context",
			call: func(fsys fs.FS) string {
				//lint:ignore SA1012 a nil context is what this case tests
				_, err := fs.Stat(fscap.Bind(nil, fsys), "a.md")
				return fmt.Sprint(err == nil)
			},
			plain:   "true",
			capable: "true",
		},
		{
			name:    "Preload",
			call:    func(fsys fs.FS) string { return fmt.Sprint(fscap.Preload(ctx, fsys)) },
			plain:   "<nil>",
			capable: "preload failed",
			calls:   "Preload",
		},
		{
			name:    "IsLazy",
			call:    func(fsys fs.FS) string { return fmt.Sprint(fscap.IsLazy(fsys, "a.md")) },
			plain:   "false",
			capable: "true",
			calls:   "IsLazy a.md",
		},
		{
			name: "Query",
			call: func(fsys fs.FS) string {
				hits, err := fscap.Query(ctx, fsys, "d", []float32{1}, 3)
				var pe *fs.PathError
				if errors.As(err, &pe) {
					return fmt.Sprintf("%v %s %s %v", hits, pe.Op, pe.Path, errors.Is(err, errors.ErrUnsupported))
				}
				return fmt.Sprint(hits, err)
			},
			plain:   "[] query d true",
			capable: "[{a.md 0  0 1 1}] <nil>",
			calls:   "Query d [1] 3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.call(files()); got != tt.plain {
				t.Errorf("without the capability: %s", diff(got, tt.plain))
			}
			c := &capable{MapFS: files()}
			if got := tt.call(c); got != tt.capable {
				t.Errorf("with the capability: %s", diff(got, tt.capable))
			}
			var want []string
			if tt.calls != "" {
				want = []string{tt.calls}
			}
			if !slices.Equal(c.calls, want) {
				t.Errorf("calls of the capability = %q, want %q", c.calls, want)
			}
		})
	}
}

func diff(got, want string) string {
	return fmt.Sprintf("got %q, want %q", got, want)
}

// TestPrefetchEachFallsBackToPrefetch: a PrefetchFS without PrefetchEach
// is prefetched, and nothing is handed over.
func TestPrefetchEachFallsBackToPrefetch(t *testing.T) {
	p := &prefetchOnly{MapFS: files()}
	handed := 0
	err := fscap.PrefetchEach(context.Background(), p, []string{"a.md"}, func(string, []byte) { handed++ })
	if err != nil || handed != 0 || strings.Join(p.calls, ";") != "Prefetch [a.md]" {
		t.Errorf("PrefetchEach on a PrefetchFS: err %v, %d handed over, calls %q; want Prefetch [a.md] and nothing handed over", err, handed, p.calls)
	}
}

// TestBindNilView: a BindContext that returns nil leaves the filesystem
// as it is.
func TestBindNilView(t *testing.T) {
	n := &nilBinder{files()}
	if got := fscap.Bind(context.Background(), n); got != fs.FS(n) {
		t.Errorf("Bind with a nil view = %v, want the filesystem itself", got)
	}
}

type nilBinder struct{ fstest.MapFS }

func (*nilBinder) BindContext(context.Context) fs.FS { return nil }
