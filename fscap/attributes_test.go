package fscap_test

import (
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/fscap"
)

// entry is a Sys value that records attributes; a nil *entry records
// none, as chromafs's directories have a nil *tree.Entry.
type entry struct{ a fscap.Attributes }

func (e *entry) Attributes() (fscap.Attributes, bool) {
	if e == nil {
		return fscap.Attributes{}, false
	}
	return e.a, true
}

// info is a FileInfo with a given Sys value.
type info struct{ sys any }

func (info) Name() string       { return "a.md" }
func (info) Size() int64        { return 1 }
func (info) Mode() fs.FileMode  { return 0o444 }
func (info) ModTime() time.Time { return time.Time{} }
func (info) IsDir() bool        { return false }
func (i info) Sys() any         { return i.sys }

// selfInfo records attributes itself.
type selfInfo struct {
	info
	a fscap.Attributes
}

func (s selfInfo) Attributes() (fscap.Attributes, bool) { return s.a, true }

// wrapped hides the methods of the FileInfo it embeds but forwards Sys,
// as the adapters' wrappers do.
type wrapped struct{ fs.FileInfo }

func TestAttributesOf(t *testing.T) {
	page := fscap.Attributes{ContentType: "text/markdown", Hash: "sha256:ab", URL: "https://x/a", Groups: []string{"eng"}}
	public := fscap.Attributes{Public: true}
	mapInfo, err := fs.Stat(fstest.MapFS{"a.md": {Data: []byte("x")}}, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		fi   fs.FileInfo
		want fscap.Attributes
		ok   bool
	}{
		{"Sys records them", info{&entry{page}}, page, true},
		{"public", info{&entry{public}}, public, true},
		{"nil Sys", info{nil}, fscap.Attributes{}, false},
		{"a nil *entry (a directory)", info{(*entry)(nil)}, fscap.Attributes{}, false},
		{"Sys of another type", info{"text"}, fscap.Attributes{}, false},
		{"the FileInfo records them", selfInfo{info{&entry{public}}, page}, page, true},
		{"a wrapper that forwards Sys", wrapped{info{&entry{page}}}, page, true},
		{"fstest.MapFS", mapInfo, fscap.Attributes{}, false},
	}
	for _, tt := range tests {
		got, ok := fscap.AttributesOf(tt.fi)
		if ok != tt.ok || got.ContentType != tt.want.ContentType || got.Hash != tt.want.Hash ||
			got.URL != tt.want.URL || got.Public != tt.want.Public || len(got.Groups) != len(tt.want.Groups) {
			t.Errorf("%s: AttributesOf = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
