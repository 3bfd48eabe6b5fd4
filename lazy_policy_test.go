package chromafs_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// pointerFS returns a filesystem with one public pointer, "p", at url
// (size not declared), read through r.
func pointerFS(t *testing.T, url string, r pointer.Resolver) *chromafs.FS {
	t.Helper()
	doc, err := tree.Encode([]tree.Entry{{Slug: "p", IsPublic: true, HasIsPublic: true, URL: url, Size: -1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New(t.Name())
	if err := store.Upsert(context.Background(), []collection.Record{{ID: collection.DefaultLayout().TreeID, Document: string(doc), System: true}}); err != nil {
		t.Fatal(err)
	}
	fsys, err := chromafs.New(context.Background(), store, chromafs.WithResolver(r))
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestPointerToChromaBlocked: a pointer that names the real Chroma's own
// API (its collection list) is refused by the default resolver, with an
// error naming the reason and the allow entry; allowed explicitly, the
// same pointer does serve Chroma's answer, so the refusal is the policy's.
func TestPointerToChromaBlocked(t *testing.T) {
	srv := testenv.Chroma(t)
	u := srv.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections"
	fsys := pointerFS(t, u, &pointer.HTTPResolver{})
	data, err := fs.ReadFile(fsys, "p")
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	if !errors.Is(err, pointer.ErrBlocked) || data != nil ||
		!strings.Contains(err.Error(), "loopback address") || !strings.Contains(err.Error(), `allow "`+hostPort+`"`) {
		t.Fatalf("ReadFile of a pointer to Chroma's API = %q, %v; want ErrPointerBlocked naming loopback and %s", data, err, hostPort)
	}
	t.Logf("refused: %v", err)
	// Through Open and Read as well, and ReadAt.
	f, err := fsys.Open("p")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.Read(make([]byte, 10)); n != 0 || !errors.Is(err, pointer.ErrBlocked) {
		t.Errorf("Read = %d, %v", n, err)
	}

	// A ranged read (FetchRange) is refused the same way.
	e := &tree.Entry{Slug: "p", URL: u, Size: 1 << 20}
	if data, _, err := (&pointer.HTTPResolver{}).FetchRange(context.Background(), e, 1000, 10); !errors.Is(err, pointer.ErrBlocked) || data != nil {
		t.Errorf("FetchRange = %q, %v", data, err)
	}

	// The same URL allowed: Chroma answers with the collection list.
	allowedFS := pointerFS(t, u, &pointer.HTTPResolver{Policy: allowing(t, hostPort)})
	data, err = fs.ReadFile(allowedFS, "p")
	if err != nil || !strings.HasPrefix(string(data), "[") {
		t.Fatalf("ReadFile with the address allowed = %.80q, %v; want Chroma's collection list", data, err)
	}
}

// countingServer counts its requests.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	n := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

// TestPointerDialCheck: the address is checked when it is dialed, after
// name resolution, so a name that resolves to a loopback address is
// refused (with no request sent) even when the allow list names it.
func TestPointerDialCheck(t *testing.T) {
	srv, hits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "local") })
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	local := "http://localhost:" + port + "/x"
	for _, r := range []*pointer.HTTPResolver{
		{},
		{Policy: allowing(t, "http://localhost:"+port)},
	} {
		_, err := fs.ReadFile(pointerFS(t, local, r), "p")
		if !errors.Is(err, pointer.ErrBlocked) || !strings.Contains(err.Error(), "localhost resolves to") || !strings.Contains(err.Error(), "a loopback address") {
			t.Errorf("%v: ReadFile(%s) = %v; want blocked: localhost resolves to a loopback address", r.Policy.Entries(), local, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// With the address allowed it is fetched.
	ok := &pointer.HTTPResolver{Policy: allowing(t, "127.0.0.1:"+port, "[::1]:"+port)}
	if data, err := fs.ReadFile(pointerFS(t, local, ok), "p"); err != nil || string(data) != "local" {
		t.Fatalf("ReadFile with the address allowed = %q, %v", data, err)
	}

	// A name that resolves to 127.0.0.1 (here a dialer that resolves
	// every name to the test server, as DNS rebinding would): the policy's
	// Control refuses it in a custom client's dialer too.
	rebind := func(policy *pointer.Policy) *http.Client {
		d := &net.Dialer{Control: policy.Control}
		return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, "127.0.0.1:"+port)
		}}}
	}
	pub := &pointer.Policy{}
	_, err := fs.ReadFile(pointerFS(t, "http://docs.example.com/spec", &pointer.HTTPResolver{Client: rebind(pub), Policy: pub}), "p")
	if !errors.Is(err, pointer.ErrBlocked) || !strings.Contains(err.Error(), "docs.example.com resolves to 127.0.0.1, a loopback address") {
		t.Errorf("rebound name: %v", err)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("the server got %d requests; want the one allowed", n)
	}
}

// TestPointerRedirects: a redirect is followed only to a target the
// policy allows (another host is refused without a request to it, an
// address is re-checked), never from https to http, and at most
// MaxRedirects times.
func TestPointerRedirects(t *testing.T) {
	other, otherHits := countingServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "other") })
	var loops atomic.Int64
	origin, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/other":
			http.Redirect(w, r, other.URL+"/x?sig=SECRET2", http.StatusFound)
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/same":
			http.Redirect(w, r, "/content", http.StatusMovedPermanently)
		case "/loop":
			loops.Add(1)
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/content":
			_, _ = io.WriteString(w, "content")
		default:
			http.NotFound(w, r)
		}
	})
	originHost := strings.TrimPrefix(origin.URL, "http://")
	for _, tc := range []struct {
		name   string
		policy *pointer.Policy
		path   string
		want   string // content, or a part of the error
	}{
		{"same host", allowing(t, origin.URL), "/same", "content"},
		{"same host, address entry", allowing(t, originHost), "/same", "content"},
		{"other host, URL list", allowing(t, origin.URL), "/other", "not matched by the allow list"},
		{"other host, address entry", allowing(t, originHost), "/other", "127.0.0.1 is a loopback address"},
		{"metadata", allowing(t, originHost), "/metadata", "169.254.169.254 is a link-local address (the cloud metadata service)"},
		{"loop", allowing(t, origin.URL), "/loop", "more than 5 redirects"},
	} {
		data, err := fs.ReadFile(pointerFS(t, origin.URL+tc.path, &pointer.HTTPResolver{Policy: tc.policy}), "p")
		if tc.want == "content" {
			if err != nil || string(data) != "content" {
				t.Errorf("%s: %q, %v", tc.name, data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "SECRET2") {
			t.Errorf("%s: %q, %v; want an error with %q and no secret", tc.name, data, err, tc.want)
		}
		if tc.name != "loop" && !errors.Is(err, pointer.ErrBlocked) {
			t.Errorf("%s: %v does not wrap ErrPointerBlocked", tc.name, err)
		}
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	if n := loops.Load(); n != 6 {
		t.Errorf("the redirect loop was requested %d times; want 6 (the first and 5 redirects)", n)
	}
	// The other host allowed too: followed.
	both := &pointer.HTTPResolver{Policy: allowing(t, origin.URL, other.URL)}
	if data, err := fs.ReadFile(pointerFS(t, origin.URL+"/other", both), "p"); err != nil || string(data) != "other" {
		t.Errorf("redirect to an allowed host: %q, %v", data, err)
	}
	// MaxRedirects < 0: none followed.
	none := &pointer.HTTPResolver{Policy: allowing(t, origin.URL), MaxRedirects: -1}
	if _, err := fs.ReadFile(pointerFS(t, origin.URL+"/same", none), "p"); !errors.Is(err, pointer.ErrBroken) || !strings.Contains(err.Error(), "more than 0 redirects") {
		t.Errorf("MaxRedirects -1: %v", err)
	}

	// https to http: refused.
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, origin.URL+"/content", http.StatusFound)
	}))
	defer tlsSrv.Close()
	down := &pointer.HTTPResolver{Client: tlsSrv.Client(), Policy: allowing(t, tlsSrv.URL, origin.URL)}
	if _, err := fs.ReadFile(pointerFS(t, tlsSrv.URL+"/x", down), "p"); !errors.Is(err, pointer.ErrBlocked) || !strings.Contains(err.Error(), "from https") {
		t.Errorf("https to http: %v", err)
	}
}

// TestPointerTimeout: HTTPResolver.Timeout bounds a fetch whatever the
// caller's context, and the error says so.
func TestPointerTimeout(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, "start")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	r := &pointer.HTTPResolver{Policy: allowing(t, srv.URL), Timeout: 200 * time.Millisecond}
	for _, path := range []string{"/headers", "/body"} {
		start := time.Now()
		_, err := r.Fetch(context.Background(), &tree.Entry{Slug: "p", URL: srv.URL + path + "?token=SECRET", Size: -1})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "pointer timeout of 200ms") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v; want DeadlineExceeded naming the pointer timeout, without the token", path, err)
		}
	}
	e := &tree.Entry{Slug: "p", URL: srv.URL + "/headers?token=SECRET", Size: 1 << 20}
	if _, _, err := r.FetchRange(context.Background(), e, 1000, 10); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("FetchRange: %v", err)
	}
	// The caller's own deadline is not reported as the pointer timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := r.Fetch(ctx, &tree.Entry{Slug: "p", URL: srv.URL + "/headers", Size: -1})
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "pointer timeout") {
		t.Errorf("caller's deadline: %v", err)
	}
}

// TestPointerRedaction: no error shows a pointer URL's query or userinfo,
// on any path (status, size, hash, range, timeout, refused connection,
// policy refusal, redirect, invalid URL, no resolver).
func TestPointerRedaction(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = io.WriteString(w, "content")
		case "/416":
			w.Header().Set("Content-Range", "bytes */5")
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		case "/badrange":
			w.Header().Set("Content-Range", "bytes 0-9/99")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = io.WriteString(w, "0123456789")
		case "/redirect":
			http.Redirect(w, r, "http://10.0.0.1/x?sig=SECRET", http.StatusFound)
		case "/slow":
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	u, _ := url.Parse(srv.URL)
	cu, _ := url.Parse(closed.URL)
	secret := func(base *url.URL, path string) string {
		return "http://user:PASSWORD@" + base.Host + path + "?token=SECRET&x=1#SECRETFRAG"
	}
	r := &pointer.HTTPResolver{Policy: allowing(t, u.Host, cu.Host), Timeout: 300 * time.Millisecond}
	for _, tc := range []struct {
		name, url string
		size      int64
		rng       bool
	}{
		{"404", secret(u, "/missing"), -1, false},
		{"size", secret(u, "/ok"), 3, false},
		{"416", secret(u, "/416"), 1 << 20, true},
		{"bad range", secret(u, "/badrange"), 1 << 20, true},
		{"timeout", secret(u, "/slow"), -1, false},
		{"refused connection", secret(cu, "/x"), -1, false},
		{"redirect", secret(u, "/redirect"), -1, false},
		{"blocked", "http://user:PASSWORD@127.0.0.1:1/x?token=SECRET", -1, false},
		{"blocked name", "http://user:PASSWORD@localhost:1/x?token=SECRET", -1, false},
		{"not allowed", "https://user:PASSWORD@example.com/x?token=SECRET", -1, false},
		{"invalid", "http://user:PASSWORD@h:bad/?token=SECRET", -1, false},
		{"invalid escape", "http://h/%zz?token=SECRET", -1, false},
		{"scheme", "s3://user:PASSWORD@bucket/x?token=SECRET", -1, false},
	} {
		e := &tree.Entry{Slug: "p", URL: tc.url, Size: tc.size}
		var err error
		if tc.rng {
			_, _, err = r.FetchRange(context.Background(), e, 1000, 10)
		} else {
			var data []byte
			data, err = r.Fetch(context.Background(), e)
			if err == nil {
				err = pointer.Check(e, data)
			}
		}
		if tc.name == "not allowed" {
			// The default list has no URL prefixes: use one that has.
			_, err = (&pointer.HTTPResolver{Policy: allowing(t, "https://other.example")}).Fetch(context.Background(), e)
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "PASSWORD") {
			t.Errorf("%s: the error shows a secret: %s", tc.name, msg)
		} else {
			t.Logf("%s: %s", tc.name, msg)
		}
	}
	// Without a resolver, and through the FS.
	fsys := pointerFS(t, secret(u, "/ok"), nil)
	if _, err := fs.ReadFile(fsys, "p"); err == nil || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "PASSWORD") {
		t.Errorf("no resolver: %v", err)
	}
	var se *pointer.StatusError
	_, err := r.Fetch(context.Background(), &tree.Entry{Slug: "p", URL: secret(u, "/missing"), Size: -1})
	if !errors.As(err, &se) || se.StatusCode != 404 || strings.Contains(se.URL, "SECRET") || strings.Contains(se.URL, "PASSWORD") {
		t.Errorf("StatusError = %+v", se)
	}
}
