package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// realErrors returns errors made by the standard library: a refused
// connection, a client timeout and a context deadline.
func realErrors(t *testing.T) (refused, clientTimeout, deadline error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused = http.Get("http://" + addr + "/")

	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	_, clientTimeout = (&http.Client{Timeout: 50 * time.Millisecond}).Get(hang.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", hang.URL, nil)
	_, deadline = http.DefaultClient.Do(req)
	return refused, clientTimeout, deadline
}

func TestClassify(t *testing.T) {
	refused, clientTimeout, deadline := realErrors(t)
	wrap := func(err error) error {
		return &fs.PathError{Op: "read", Path: "a.md", Err: fmt.Errorf("fetch chunks: chromastore: get: %w", err)}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		err     error
		pointer bool
		want    Kind
	}{
		{"nil", nil, false, Other},
		{"refused", wrap(refused), false, Unavailable},
		{"refused, unwrapped from url.Error", wrap(errors.Unwrap(refused)), false, Unavailable},
		{"reset", wrap(&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}), false, Unavailable},
		{"dns", wrap(&net.DNSError{Err: "no such host", Name: "chroma.internal"}), false, Unavailable},
		{"eof from a proxy", wrap(io.EOF), false, Unavailable},
		{"truncated answer", wrap(fmt.Errorf("read answer: %w", io.ErrUnexpectedEOF)), false, Unavailable},
		{"redis backoff", wrap(cachepkg.ErrUnavailable), false, Unavailable},
		{"server closed idle connection", wrap(errors.New("http: server closed idle connection")), false, Unavailable},
		{"client timeout", wrap(clientTimeout), false, Timeout},
		{"context deadline", wrap(deadline), false, Timeout},
		{"deadline unwrapped", wrap(context.DeadlineExceeded), false, Timeout},
		{"canceled", wrap(canceled.Err()), false, Canceled},
		{"corrupt page", wrap(collection.ErrCorruptPage), false, Failed},
		{"no tree", wrap(collection.ErrNoTree), false, Failed},
		{"malformed tree", wrap(tree.ErrMalformed), false, Failed},
		{"broken pointer", wrap(pointer.ErrBroken), false, Failed},
		{"pointer not fetched", wrap(pointer.ErrLazy), false, Failed},
		{"content error of another filesystem", wrap(fscap.NewContentError("bad record")), false, Failed},
		{"pointer host refused", wrap(refused), true, Failed},
		{"pointer timeout", wrap(deadline), true, Timeout},
		{"anything else", wrap(errors.New("chroma answered 500 Internal Server Error")), false, Other},
		{"an error that says it is unavailable", wrap(sayUnavailable(true)), false, Unavailable},
		{"an error that says it is not", wrap(sayUnavailable(false)), false, Other},
	}
	for _, tt := range tests {
		if got := Classify(tt.err, tt.pointer); got != tt.want {
			t.Errorf("%s: Classify(%v, %v) = %v, want %v", tt.name, tt.err, tt.pointer, got, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	tests := []struct {
		k          Kind
		pointer    bool
		def        int
		status     int
		body       string
		retryAfter string
	}{
		{Unavailable, false, 500, 503, BodyUnavailable, "5"},
		{Timeout, false, 500, 504, BodyTimeout, ""},
		{Failed, false, 502, 502, BodyFailed, ""},
		{Failed, true, 502, 502, BodyPointer, ""},
		{Canceled, false, 502, 503, BodyCanceled, ""},
		{Other, false, 502, 502, BodyFailed, ""},
		{Other, false, 500, 500, BodyInternal, ""},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		Write(w, tt.k, tt.pointer, tt.def)
		if w.Code != tt.status || w.Body.String() != tt.body+"\n" || w.Header().Get("Retry-After") != tt.retryAfter ||
			w.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(w.Body.String(), fmt.Sprint(tt.status)) {
			t.Errorf("Write(%v, %v, %d) = %d %q, headers %v", tt.k, tt.pointer, tt.def, w.Code, w.Body, w.Header())
		}
	}
}

// sayUnavailable is an error that tells fscap.IsUnavailable itself.
type sayUnavailable bool

func (e sayUnavailable) Error() string     { return "chroma answered 503 Service Unavailable" }
func (e sayUnavailable) Unavailable() bool { return bool(e) }

func TestIsPointer(t *testing.T) {
	fsys := fstest.MapFS{
		"pointer.yaml": {Sys: &tree.Entry{Slug: "pointer.yaml", URL: "https://example.com/a.yaml"}},
		"page.md":      {Sys: &tree.Entry{Slug: "page.md", Hash: "sha256:ab"}},
		"plain.md":     {},
		"dir/a.md":     {},
	}
	for name, want := range map[string]bool{"pointer.yaml": true, "page.md": false, "plain.md": false, "dir": false} {
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsPointer(fi); got != want {
			t.Errorf("IsPointer(%s) = %v, want %v", name, got, want)
		}
	}
}
