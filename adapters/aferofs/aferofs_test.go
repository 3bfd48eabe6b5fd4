package aferofs_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/chromafs/chromafs/adapters/aferofs"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/internal/testcorpus"
)

// checkReadOnly asserts that err is the read-only error, as an
// *os.PathError naming name.
func checkReadOnly(t *testing.T, what, name string, err error) {
	t.Helper()
	var pe *os.PathError
	switch {
	case err == nil:
		t.Errorf("%s: no error; want read-only", what)
	case !errors.Is(err, fs.ErrPermission) || !errors.Is(err, syscall.EROFS) || !errors.Is(err, fscap.ErrReadOnly):
		t.Errorf("%s: error %v is not fs.ErrPermission, syscall.EROFS and fscap.ErrReadOnly", what, err)
	case !errors.As(err, &pe) || pe.Path != name:
		t.Errorf("%s: error %#v is not an *os.PathError for %q", what, err, name)
	}
}

func TestReadOnly(t *testing.T) {
	files := testcorpus.Files(t)
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			afs := aferofs.New(v.FS)
			// An existing file, a directory, the root, a hidden page, a
			// missing one, an escaping one: all refused alike.
			for _, name := range []string{"/index.md", "guides", "/", "", "internal/secret/plan.md", "/nope/x.md", "../x"} {
				ops := []struct {
					op  string
					err func() error
				}{
					{"Create", func() error { _, err := afs.Create(name); return err }},
					{"Mkdir", func() error { return afs.Mkdir(name, 0o755) }},
					{"MkdirAll", func() error { return afs.MkdirAll(name, 0o755) }},
					{"Remove", func() error { return afs.Remove(name) }},
					{"RemoveAll", func() error { return afs.RemoveAll(name) }},
					{"Rename", func() error { return afs.Rename(name, "/moved.md") }},
					{"Chmod", func() error { return afs.Chmod(name, 0o644) }},
					{"Chown", func() error { return afs.Chown(name, 1, 1) }},
					{"Chtimes", func() error { return afs.Chtimes(name, time.Now(), time.Now()) }},
					{"Symlink", func() error { return afs.(afero.Linker).SymlinkIfPossible("/index.md", name) }},
				}
				for _, flag := range []int{
					os.O_WRONLY, os.O_RDWR, os.O_APPEND, os.O_CREATE, os.O_TRUNC, os.O_EXCL,
					os.O_RDONLY | os.O_CREATE, os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_RDWR | os.O_APPEND,
					os.O_CREATE | os.O_EXCL,
				} {
					ops = append(ops, struct {
						op  string
						err func() error
					}{"OpenFile flag " + flagString(flag), func() error {
						f, err := afs.OpenFile(name, flag, 0o644)
						if f != nil {
							t.Errorf("OpenFile(%q, %s) returned a file", name, flagString(flag))
						}
						return err
					}})
				}
				for _, op := range ops {
					checkReadOnly(t, op.op+"("+name+")", name, op.err())
				}
			}

			// Writes through an open file.
			f, err := afs.OpenFile("/guides/quickstart.md", os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, op := range []struct {
				op  string
				err func() error
			}{
				{"Write", func() error { _, err := f.Write([]byte("x")); return err }},
				{"WriteAt", func() error { _, err := f.WriteAt([]byte("x"), 0); return err }},
				{"WriteString", func() error { _, err := f.WriteString("x"); return err }},
				{"Truncate", func() error { return f.Truncate(0) }},
				{"Sync", func() error { return f.Sync() }},
			} {
				checkReadOnly(t, "file."+op.op, "/guides/quickstart.md", op.err())
			}
			// Nothing changed.
			got, err := afero.ReadFile(afs, "/guides/quickstart.md")
			if err != nil || string(got) != files["guides/quickstart.md"] {
				t.Fatalf("after refused writes: %q, %v", got, err)
			}
		})
	}
}

func flagString(flag int) string {
	var parts []string
	for _, f := range []struct {
		v int
		s string
	}{{os.O_WRONLY, "O_WRONLY"}, {os.O_RDWR, "O_RDWR"}, {os.O_APPEND, "O_APPEND"}, {os.O_CREATE, "O_CREATE"}, {os.O_TRUNC, "O_TRUNC"}, {os.O_EXCL, "O_EXCL"}} {
		if flag&f.v != 0 {
			parts = append(parts, f.s)
		}
	}
	return strings.Join(parts, "|")
}

// TestRead: afero's helpers over chromafs (memstore and real Chroma) see
// exactly the visible pages with their content.
func TestRead(t *testing.T) {
	files := testcorpus.Files(t)
	want := testcorpus.Visible(files)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			afs := aferofs.New(v.FS)

			// afero.Walk from the root, spelled three ways.
			for _, root := range []string{"/", ".", ""} {
				var got []string
				dirs := map[string]bool{}
				err := afero.Walk(afs, root, func(p string, fi os.FileInfo, err error) error {
					if err != nil {
						return err
					}
					rel := strings.TrimPrefix(strings.TrimPrefix(p, "/"), "./")
					if fi.IsDir() {
						dirs[rel] = true
						return nil
					}
					got = append(got, rel)
					if fi.Size() != int64(len(want[rel])) {
						t.Errorf("Walk: %s size %d, want %d", p, fi.Size(), len(want[rel]))
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Walk(%q): %v", root, err)
				}
				if !slices.Equal(got, names) {
					t.Fatalf("Walk(%q) files = %q\nwant %q", root, got, names)
				}
				for _, d := range testcorpus.HiddenDirs(files, want) {
					if dirs[d] {
						t.Errorf("Walk(%q) visited hidden directory %s", root, d)
					}
				}
			}

			// afero.ReadFile of every visible page, with and without a
			// leading slash.
			for _, name := range names {
				for _, p := range []string{name, "/" + name, "./" + name} {
					data, err := afero.ReadFile(afs, p)
					if err != nil {
						t.Fatalf("ReadFile(%q): %v", p, err)
					}
					if string(data) != want[name] {
						t.Fatalf("ReadFile(%q) = %q\nwant %q", p, data, want[name])
					}
				}
				if ok, err := afero.Exists(afs, "/"+name); !ok || err != nil {
					t.Errorf("Exists(%q) = %v, %v", name, ok, err)
				}
			}

			// afero.ReadDir of every visible directory matches fs.ReadDir.
			dirs := map[string]bool{".": true}
			for _, name := range names {
				for d := path.Dir(name); d != "."; d = path.Dir(d) {
					dirs[d] = true
				}
			}
			for d := range dirs {
				infos, err := afero.ReadDir(afs, "/"+d)
				if err != nil {
					t.Fatalf("ReadDir(%q): %v", d, err)
				}
				ents, err := fs.ReadDir(v.FS, d)
				if err != nil {
					t.Fatal(err)
				}
				if len(infos) != len(ents) {
					t.Fatalf("ReadDir(%q): %d entries, want %d", d, len(infos), len(ents))
				}
				for i, fi := range infos {
					if fi.Name() != ents[i].Name() || fi.IsDir() != ents[i].IsDir() {
						t.Errorf("ReadDir(%q)[%d] = %s, want %s", d, i, fi.Name(), ents[i].Name())
					}
				}
				if ok, err := afero.DirExists(afs, d); !ok || err != nil {
					t.Errorf("DirExists(%q) = %v, %v", d, ok, err)
				}
			}

			// afero.Glob agrees with fs.Glob, with OS-style patterns.
			for _, pat := range []string{"*.md", "guides/*", "guides/*/*.mdx", "*/*", "internal/*", "i18n/*/*.md", "nope/*"} {
				got, err := afero.Glob(afs, pat)
				if err != nil {
					t.Fatal(err)
				}
				w, _ := fs.Glob(v.FS, pat)
				if !slices.Equal(got, w) {
					t.Errorf("Glob(%q) = %q, want %q", pat, got, w)
				}
				got, err = afero.Glob(afs, "/"+pat)
				if err != nil {
					t.Fatal(err)
				}
				for i := range w {
					w[i] = "/" + w[i]
				}
				if !slices.Equal(got, w) {
					t.Errorf("Glob(/%q) = %q, want %q", pat, got, w)
				}
			}

			// Hidden pages and directories, missing ones and escaping ones
			// do not exist.
			absent := []string{"../index.md", "guides/../../index.md", "nope.md", "/nope/"}
			for slug := range files {
				if _, ok := want[slug]; !ok {
					absent = append(absent, slug, "/"+slug)
				}
			}
			absent = append(absent, testcorpus.HiddenDirs(files, want)...)
			for _, name := range absent {
				if ok, err := afero.Exists(afs, name); ok || err != nil {
					t.Errorf("Exists(%q) = %v, %v; want false, nil", name, ok, err)
				}
				if _, err := afs.Stat(name); !os.IsNotExist(err) {
					t.Errorf("Stat(%q) error = %v; want not exist", name, err)
				}
				if _, err := afs.Open(name); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("Open(%q) error = %v; want not exist", name, err)
				}
				if _, err := afero.ReadFile(afs, name); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("ReadFile(%q) error = %v; want not exist", name, err)
				}
			}
			if m, err := afero.Glob(afs, "internal/*"); err != nil || len(m) != 0 {
				t.Errorf("Glob(internal/*) = %q, %v", m, err)
			}
		})
	}
}

// TestFile: Seek, ReadAt, Readdir and Readdirnames with counts, Name.
func TestFile(t *testing.T) {
	files := testcorpus.Files(t)
	for _, v := range testcorpus.Views(t, files) {
		t.Run(v.Name, func(t *testing.T) {
			afs := aferofs.New(v.FS)
			big := files["reference/big.md"]
			f, err := afs.Open("/reference/big.md")
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != "/reference/big.md" {
				t.Errorf("Name() = %q", f.Name())
			}
			b := make([]byte, 10)
			if n, err := f.ReadAt(b, 100); n != 10 || err != nil || string(b) != big[100:110] {
				t.Errorf("ReadAt = %d, %v, %q", n, err, b)
			}
			if off, err := f.Seek(-5, io.SeekEnd); err != nil || off != int64(len(big)-5) {
				t.Errorf("Seek = %d, %v", off, err)
			}
			rest, err := io.ReadAll(f)
			if err != nil || string(rest) != big[len(big)-5:] {
				t.Errorf("ReadAll after Seek = %q, %v", rest, err)
			}
			if _, err := f.Readdir(-1); err == nil {
				t.Error("Readdir on a file: no error")
			}
			fi, err := f.Stat()
			if err != nil || fi.Size() != int64(len(big)) || fi.Name() != "big.md" {
				t.Errorf("Stat = %v, %v", fi, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}

			ents, _ := fs.ReadDir(v.FS, ".")
			var want []string
			for _, e := range ents {
				want = append(want, e.Name())
			}
			d, err := afs.Open("/")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var got []string
			for {
				names, err := d.Readdirnames(3)
				got = append(got, names...)
				if err == io.EOF {
					break
				}
				if err != nil || len(names) == 0 {
					t.Fatalf("Readdirnames(3) = %q, %v", names, err)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Readdirnames = %q, want %q", got, want)
			}
			if slices.Contains(got, "internal") {
				t.Error("root lists the hidden directory internal")
			}
			d2, _ := afs.Open("guides")
			infos, err := d2.Readdir(0)
			if err != nil || len(infos) != 2 || infos[0].Name() != "auth" || !infos[0].IsDir() {
				t.Errorf("Readdir(0) = %v, %v", infos, err)
			}
			if infos, err := d2.Readdir(1); len(infos) != 0 || err != io.EOF {
				t.Errorf("Readdir(1) at the end = %v, %v; want io.EOF", infos, err)
			}
			d2.Close()
		})
	}
}

// TestNotSeekable: a plain fs.FS whose files cannot seek still reads.
func TestNotSeekable(t *testing.T) {
	afs := aferofs.New(plainFS{})
	f, err := afs.Open("/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Seek error = %v", err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ReadAt error = %v", err)
	}
	if data, err := io.ReadAll(f); err != nil || string(data) != "abc" {
		t.Errorf("ReadAll = %q, %v", data, err)
	}
}

// plainFS has one file, "a.txt", whose file is neither a Seeker nor a
// ReaderAt.
type plainFS struct{}

func (plainFS) Open(name string) (fs.File, error) {
	if name != "a.txt" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &plainFile{r: strings.NewReader("abc")}, nil
}

type plainFile struct{ r *strings.Reader }

func (f *plainFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *plainFile) Close() error               { return nil }
func (f *plainFile) Stat() (fs.FileInfo, error) { return nil, errors.ErrUnsupported }
