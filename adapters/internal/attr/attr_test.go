package attr

import (
	"io/fs"
	"mime"
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

func TestActive(t *testing.T) {
	tests := []struct {
		ct     string
		active bool
	}{
		{"text/html", true},
		{"TEXT/HTML; charset=utf-8", true},
		{"application/xhtml+xml", true},
		{"image/svg+xml", true},
		{"text/xml", true},
		{"application/xml", true},
		{"application/atom+xml", true},
		{"application/vnd.foo+xml", true},
		{"text/javascript", true},
		{"application/javascript", true},
		{"application/x-javascript", true},
		{"text/ecmascript", true},
		{"text/xsl", true},
		{"multipart/x-mixed-replace; boundary=x", true},
		{"", true},
		{"not a type;;", true},
		{"text/plain; charset=utf-8", false},
		{"text/markdown; charset=utf-8", false},
		{"application/json", false},
		{"text/css; charset=utf-8", false},
		{"image/png", false},
		{"application/pdf", false},
		{"application/octet-stream", false},
		{"font/woff2", false},
	}
	for _, tt := range tests {
		if got := Active(tt.ct); got != tt.active {
			t.Errorf("Active(%q) = %v, want %v", tt.ct, got, tt.active)
		}
	}
}

func TestServedType(t *testing.T) {
	m := fstest.MapFS{"a": {Data: []byte("<script>alert(1)</script>")}}
	fi, err := fs.Stat(m, "a")
	if err != nil {
		t.Fatal(err)
	}
	html := info{fi, &tree.Entry{ContentType: "text/html"}}
	tests := []struct {
		name  string
		fi    fs.FileInfo
		allow bool
		want  string
	}{
		{"page", html, false, PlainText},
		{"page", html, true, "text/html"},
		{"x.html", fi, false, PlainText},
		{"x.html", fi, true, "text/html; charset=utf-8"},
		{"x.svg", fi, false, PlainText},
		{"x.js", fi, false, PlainText},
		{"x.md", fi, false, "text/markdown; charset=utf-8"},
		{"x.png", fi, false, "image/png"},
	}
	for _, tt := range tests {
		if got := ServedType(tt.name, tt.fi, tt.allow); got != tt.want {
			t.Errorf("ServedType(%s, allow=%v) = %q, want %q", tt.name, tt.allow, got, tt.want)
		}
	}
}

// TestMediaType: the fast path agrees with mime.ParseMediaType where it
// answers, and declines what it cannot judge.
func TestMediaType(t *testing.T) {
	for _, ct := range []string{"text/html", "text/html; charset=utf-8", "TEXT/HTML", "text/html ;x=1", "image/svg+xml",
		"application/vnd.ms-excel", "a/b/c", "/x", "x/", "x", "", "text/html\x00", " text/html", "text/plain;charset=\"utf-8\""} {
		mt, ok := mediaType(ct)
		want, _, err := mime.ParseMediaType(ct)
		if ok && (err != nil || mt != want) {
			t.Errorf("mediaType(%q) = %q; mime.ParseMediaType: %q, %v", ct, mt, want, err)
		}
	}
	if testing.AllocsPerRun(100, func() { Active("text/markdown; charset=utf-8") }) != 0 {
		t.Error("Active allocates on a plain type")
	}
}
