package mcpserver_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/tree"
)

// TestStatAttributes: the stat tool reports the content type and hash
// that the filesystem records of a file (chromafs: the tree entry that
// FileInfo.Sys is), and none for a file of a filesystem that records
// none.
func TestStatAttributes(t *testing.T) {
	fsys := fstest.MapFS{
		"spec.yaml": {Data: []byte("a: 1\n"), Sys: &tree.Entry{Slug: "spec.yaml", ContentType: "application/yaml", Hash: "sha256:ab12", IsPublic: true}},
		"plain.md":  {Data: []byte("x\n")},
	}
	c := connect(t, fsys, mcpserver.Config{})
	tests := []struct {
		path, contentType, hash string
	}{
		{"/spec.yaml", "application/yaml", "sha256:ab12"},
		{"/plain.md", "", ""},
	}
	for _, tt := range tests {
		r := c.call("stat", map[string]any{"path": tt.path})
		if r.isError {
			t.Fatalf("stat %s: %s", tt.path, r.text)
		}
		ct, _ := r.structured["content_type"].(string)
		hash, _ := r.structured["hash"].(string)
		if ct != tt.contentType || hash != tt.hash {
			t.Errorf("stat %s: content_type %q, hash %q; want %q, %q", tt.path, ct, hash, tt.contentType, tt.hash)
		}
		if (tt.contentType != "") != strings.Contains(r.text, "content type: "+tt.contentType+"\n") {
			t.Errorf("stat %s: text %q; want the content type %q when there is one", tt.path, r.text, tt.contentType)
		}
	}
}
