package gnu_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/tree"
)

// TestStatAttributes: stat without a format prints the attributes that
// the filesystem records of a file (chromafs: the tree entry that
// FileInfo.Sys is), and nothing of them for a directory or a file of a
// filesystem that records none.
func TestStatAttributes(t *testing.T) {
	fsys := fstest.MapFS{
		"pointer.yaml": {Data: []byte("a: 1\n"), Sys: &tree.Entry{
			Slug: "pointer.yaml", ContentType: "application/yaml", Hash: "sha256:ab12",
			URL: "https://example.com/spec.yaml", Groups: []string{"eng", "ops"},
		}},
		"public.md": {Data: []byte("x\n"), Sys: &tree.Entry{Slug: "public.md", IsPublic: true}},
		"plain.md":  {Data: []byte("x\n")},
		"dir/a.md":  {Data: []byte("x\n")},
	}
	attrs := []string{"  Type:", "  Hash:", "   URL:", "Visible:"}
	tests := []struct {
		name string
		want []string // the attribute lines, in order
	}{
		{"pointer.yaml", []string{"  Type: application/yaml", "  Hash: sha256:ab12", "   URL: https://example.com/spec.yaml", "Visible: groups eng,ops"}},
		{"public.md", []string{"Visible: public"}},
		{"plain.md", nil},
		{"dir", nil},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		status := gnu.Stat(context.Background(), &gnu.Env{FS: fsys, Stdout: &out, Stderr: &errb}, []string{tt.name})
		if status != 0 {
			t.Fatalf("stat %s: status %d, %s", tt.name, status, errb.String())
		}
		var got []string
		for line := range strings.Lines(out.String()) {
			for _, a := range attrs {
				if strings.HasPrefix(line, a) {
					got = append(got, strings.TrimSuffix(line, "\n"))
				}
			}
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("stat %s: attribute lines %q, want %q; output:\n%s", tt.name, got, tt.want, out.String())
		}
	}
}
