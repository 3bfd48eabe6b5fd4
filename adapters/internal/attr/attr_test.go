package attr

import (
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/tree"
)

type info struct {
	fs.FileInfo
	sys any
}

func (i info) Sys() any { return i.sys }

func TestAttributes(t *testing.T) {
	m := fstest.MapFS{"a": {Data: []byte("12345"), ModTime: time.Unix(100, 0)}}
	fi, err := fs.Stat(m, "a")
	if err != nil {
		t.Fatal(err)
	}
	entry := &tree.Entry{Hash: "sha256:0123456789abcdef0123456789abcdef0123456789", ContentType: "text/html"}
	tests := []struct {
		name      string
		fi        fs.FileInfo
		wantETag  string
		wantCType string
	}{
		{"README", fi, `"174876e800-5"`, "text/plain; charset=utf-8"},
		{"guide.mdx", fi, `"174876e800-5"`, "text/markdown; charset=utf-8"},
		{"spec.json", fi, `"174876e800-5"`, "application/json"},
		{"blob.unknownext", fi, `"174876e800-5"`, "application/octet-stream"},
		{"page", info{fi, entry}, `"0123456789abcdef0123456789abcdef"`, "text/html"},
	}
	for _, tt := range tests {
		if got := ETag(tt.fi); got != tt.wantETag {
			t.Errorf("ETag(%s) = %s, want %s", tt.name, got, tt.wantETag)
		}
		if got := ContentType(tt.name, tt.fi); got != tt.wantCType {
			t.Errorf("ContentType(%s) = %s, want %s", tt.name, got, tt.wantCType)
		}
	}
}
