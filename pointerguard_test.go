package chromafs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/tree"
)

// TestPointerPolicyURL is the allow/deny decision made before any
// connection, for the default policy, a list of URL prefixes, and a list
// of addresses.
func TestPointerPolicyURL(t *testing.T) {
	type verdict int
	const (
		allowed verdict = iota
		blocked         // ErrPointerBlocked
		lazy            // ErrLazyPointer only: a scheme no resolver handles
		broken          // ErrBrokenPointer: not a URL
	)
	for _, tc := range []struct {
		allow []string
		url   string
		want  verdict
		why   string // in the message
	}{
		// The default policy: any public host.
		{nil, "https://example.com/a.json?x=1", allowed, ""},
		{nil, "http://example.com:8080/a", allowed, ""},
		{nil, "https://93.184.216.34/a", allowed, ""},
		{nil, "https://[2606:4700::1]/a", allowed, ""},
		// Host names are checked when dialed (see TestPointerDialCheck).
		{nil, "http://localhost:8000/", allowed, ""},
		{nil, "http://127.0.0.1:8000/api/v2/collections", blocked, `127.0.0.1 is a loopback address; to fetch it, allow "127.0.0.1:8000"`},
		{nil, "http://127.9.9.9/", blocked, "loopback"},
		{nil, "http://127.0.0.1./", blocked, "loopback"},
		{nil, "http://169.254.169.254/latest/meta-data/", blocked, "cloud metadata"},
		{nil, "http://169.254.1.1/", blocked, "link-local"},
		{nil, "http://10.1.2.3/", blocked, "private"},
		{nil, "http://172.16.0.1/", blocked, "private"},
		{nil, "http://172.31.255.255/", blocked, "private"},
		{nil, "http://172.32.0.1/", allowed, ""},
		{nil, "http://192.168.1.1/", blocked, "private"},
		{nil, "http://100.64.0.1/", blocked, "carrier-grade NAT"},
		{nil, "http://100.127.255.255/", blocked, "carrier-grade NAT"},
		{nil, "http://100.128.0.1/", allowed, ""},
		{nil, "http://0.0.0.0:8000/", blocked, "unspecified"},
		{nil, "http://0.1.2.3/", blocked, "this network"},
		{nil, "http://224.0.0.1/", blocked, "multicast"},
		{nil, "http://255.255.255.255/", blocked, "broadcast"},
		{nil, "http://[::]/", blocked, "unspecified"},
		{nil, "http://[::1]:8000/", blocked, "::1 is a loopback address"},
		{nil, "http://[0:0:0:0:0:0:0:1]/", blocked, "loopback"},
		{nil, "http://[::ffff:127.0.0.1]:8000/", blocked, "127.0.0.1 is a loopback address"},
		{nil, "http://[::ffff:7f00:1]/", blocked, "loopback"},
		{nil, "http://[::ffff:169.254.169.254]/", blocked, "metadata"},
		{nil, "http://[::127.0.0.1]/", blocked, "IPv4-compatible"},
		{nil, "http://[64:ff9b::a9fe:a9fe]/", blocked, "an IPv6 form of 169.254.169.254"},
		{nil, "http://[2002:7f00:1::]/", blocked, "an IPv6 form of 127.0.0.1"},
		{nil, "http://[2002:5db8:d822::]/", allowed, ""},
		{nil, "http://[fd00::1]/", blocked, "unique local"},
		{nil, "http://[fc00::1]/", blocked, "unique local"},
		{nil, "http://[fe80::1]/", blocked, "link-local"},
		{nil, "http://[fe80::1%25eth0]/", blocked, "zone"},
		{nil, "http://[ff02::1]/", blocked, "multicast"},
		// Numbers that resolvers may read as IPv4 addresses.
		{nil, "http://2130706433/", blocked, "not a canonical IPv4"},
		{nil, "http://0177.0.0.1/", blocked, "not a canonical IPv4"},
		{nil, "http://0x7f.0.0.1/", blocked, "not a canonical IPv4"},
		{nil, "http://0x7f000001/", blocked, "not a canonical IPv4"},
		{nil, "http://127.1/", blocked, "not a canonical IPv4"},
		{nil, "http://017700000001:8000/", blocked, "not a canonical IPv4"},
		{nil, "http://1.2.3.04/", blocked, "not a canonical IPv4"},
		// Full-width digits: IDNA maps them to 127.0.0.1, as net/http does.
		{nil, "http://１２７.０.０.１/", blocked, "loopback"},
		{nil, "http://%31%32%37.0.0.1/", broken, "invalid URL escape"},
		{nil, "https://example.com@127.0.0.1/", blocked, "loopback"},
		{nil, "https://127.0.0.1#@example.com/", blocked, "loopback"},
		{nil, "https://bad_host!/", blocked, "not a valid host name"},
		{nil, "http://a..b/", blocked, "not a valid host name"},
		{nil, "http:///nohost", blocked, "no host"},
		{nil, "http://example.com:0/", blocked, "invalid port"},
		{nil, "ftp://example.com/a", lazy, `scheme "ftp"`},
		{nil, "file:///etc/passwd", lazy, `scheme "file"`},
		{nil, "gopher://127.0.0.1:6379/_INFO", lazy, `scheme "gopher"`},

		// URL prefixes: only URLs under one are fetched.
		{[]string{"https://allowed.com/specs/"}, "https://allowed.com/specs/a.json", allowed, ""},
		{[]string{"https://allowed.com/specs/"}, "https://allowed.com/specs", allowed, ""},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/specs/a/b.json?sig=1", allowed, ""},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/specsX", blocked, "not matched by the allow list (https://allowed.com/specs)"},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/other", blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/specs/../admin", blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/specs/%2e%2e/admin", blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com/specs%2f..%2fadmin", blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, `https://allowed.com/specs/..%5cadmin`, blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, "https://ALLOWED.com/specs/a", allowed, ""},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com./specs/a", allowed, ""},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com:443/specs/a", allowed, ""},
		{[]string{"https://allowed.com/specs"}, "https://allowed.com:8443/specs/a", blocked, "not matched"},
		{[]string{"https://allowed.com/specs"}, "http://allowed.com/specs/a", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://allowed.com.evil.net/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://evilallowed.com/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://sub.allowed.com/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://allowed.com@evil.net/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://evil.net#@allowed.com/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, "https://evil.net?@allowed.com/", blocked, "not matched"},
		{[]string{"https://allowed.com"}, `https://allowed.com\@evil.net/`, broken, "invalid userinfo"},
		{[]string{"https://allowed.com"}, "https://%61llowed.com/", broken, "invalid URL escape"},
		// Cyrillic "а": another host (xn--llowed-…), not allowed.com.
		{[]string{"https://allowed.com"}, "https://\u0430llowed.com/", blocked, "not matched"},
		// Full-width letters: IDNA maps them to allowed.com, the host
		// net/http dials.
		{[]string{"https://allowed.com"}, "https://\uff41llowed.com/", allowed, ""},
		{[]string{"https://bücher.example"}, "https://xn--bcher-kva.example/a", allowed, ""},
		{[]string{"https://allowed.com"}, "https://allowed.com/anything", allowed, ""},
		// An entry naming an address allows it, on that port.
		{[]string{"http://127.0.0.1:8000"}, "http://127.0.0.1:8000/api/v2/collections", allowed, ""},
		{[]string{"http://127.0.0.1:8000"}, "http://[::ffff:127.0.0.1]:8000/x", allowed, ""},
		{[]string{"http://127.0.0.1:8000"}, "http://127.0.0.1:8001/", blocked, "not matched"},
		{[]string{"http://127.0.0.1:8000"}, "http://2130706433:8000/", blocked, "not a canonical IPv4"},
		{[]string{"http://127.0.0.1:8000"}, "https://example.com/", blocked, "not matched"},
		{[]string{"http://[::1]:8000/"}, "http://[0::1]:8000/x", allowed, ""},
		// A name in the list does not allow the addresses it resolves to.
		{[]string{"http://localhost:8000"}, "http://localhost:8000/x", allowed, ""},

		// Addresses: allowed despite their kind; URLs are not restricted.
		{[]string{"10.0.0.0/8"}, "http://10.2.3.4:9000/spec", allowed, ""},
		{[]string{"10.0.0.0/8"}, "https://example.com/", allowed, ""},
		{[]string{"10.0.0.0/8"}, "http://192.168.0.1/", blocked, "private"},
		{[]string{"127.0.0.1:9000"}, "http://127.0.0.1:9000/", allowed, ""},
		{[]string{"127.0.0.1:9000"}, "http://127.0.0.1:9001/", blocked, `allow "127.0.0.1:9001"`},
		{[]string{"::1"}, "http://[::1]:1234/", allowed, ""},
		{[]string{"[::1]:80"}, "http://[::1]/", allowed, ""},
		{[]string{"[::1]:80"}, "https://[::1]/", blocked, "loopback"},
		{[]string{"::ffff:10.0.0.0/104"}, "http://10.9.9.9/", allowed, ""},
		{[]string{"169.254.169.254"}, "http://169.254.169.254/latest", allowed, ""},
	} {
		name := fmt.Sprintf("%v %s", tc.allow, tc.url)
		p, err := chromafs.NewPointerPolicy(tc.allow...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = p.CheckURL(tc.url)
		var got verdict
		switch {
		case err == nil:
			got = allowed
		case errors.Is(err, chromafs.ErrPointerBlocked):
			got = blocked
			var be *chromafs.BlockedError
			if !errors.As(err, &be) || !errors.Is(err, chromafs.ErrLazyPointer) {
				t.Errorf("%s: %v is not a *BlockedError wrapping ErrLazyPointer", name, err)
			}
		case errors.Is(err, chromafs.ErrLazyPointer):
			got = lazy
		case errors.Is(err, chromafs.ErrBrokenPointer):
			got = broken
		default:
			t.Errorf("%s: unexpected error %v", name, err)
			continue
		}
		if got != tc.want || (err != nil && !strings.Contains(err.Error(), tc.why)) {
			t.Errorf("%s: %v (verdict %d); want verdict %d with %q", name, err, got, tc.want, tc.why)
		}
	}
}

// TestPointerPolicyAddr is the check on the address dialed.
func TestPointerPolicyAddr(t *testing.T) {
	def := chromafs.DefaultPointerPolicy
	withLocal, err := chromafs.NewPointerPolicy("127.0.0.1:8000", "fd00::/8", "http://[::1]:9000/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    *chromafs.PointerPolicy
		addr string
		why  string // "" means allowed
	}{
		{def, "93.184.216.34:443", ""},
		{def, "[2606:4700::1]:443", ""},
		{def, "8.8.8.8:53", ""},
		{def, "127.0.0.1:8000", "127.0.0.1 is a loopback address"},
		{def, "[::1]:80", "loopback"},
		{def, "[::ffff:127.0.0.1]:80", "127.0.0.1 is a loopback address"},
		{def, "[::ffff:10.0.0.1]:80", "private"},
		{def, "169.254.169.254:80", "metadata"},
		{def, "[fe80::1%eth0]:80", "link-local"},
		{def, "100.100.100.200:80", "carrier-grade NAT"}, // Alibaba's metadata service
		{def, "[fd00:ec2::254]:80", "unique local"},      // AWS's IPv6 metadata service
		{def, "0.0.0.0:80", "unspecified"},
		{def, "[::]:80", "unspecified"},
		{def, "239.1.1.1:80", "multicast"},
		{def, "198.18.0.1:80", "benchmarking"},
		{def, "240.0.0.1:80", "reserved"},
		{withLocal, "127.0.0.1:8000", ""},
		{withLocal, "127.0.0.1:8001", "loopback"},
		{withLocal, "127.0.0.2:8000", "loopback"},
		{withLocal, "[::ffff:127.0.0.1]:8000", ""},
		{withLocal, "[fd12::1]:443", ""},
		{withLocal, "[fe80::1]:443", "link-local"},
		{withLocal, "[::1]:9000", ""},
		{withLocal, "[::1]:9001", "loopback"},
		{withLocal, "10.0.0.1:80", "private"},
		{def, "not an address", "cannot check"},
	} {
		err := tc.p.Control("tcp", tc.addr, nil)
		if tc.why == "" {
			if err != nil {
				t.Errorf("%v Control(%s) = %v; want allowed", tc.p.Entries(), tc.addr, err)
			}
			continue
		}
		if !errors.Is(err, chromafs.ErrPointerBlocked) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%v Control(%s) = %v; want blocked with %q", tc.p.Entries(), tc.addr, err, tc.why)
		}
	}
	if err := def.CheckAddr(netip.MustParseAddrPort("[::ffff:8.8.8.8]:53")); err != nil {
		t.Errorf("CheckAddr(IPv4-mapped public) = %v", err)
	}
}

func TestNewPointerPolicyErrors(t *testing.T) {
	for _, entry := range []string{
		"", " ", "example.com", "example.com:443", "*.example.com", "ftp://example.com/", "file:///etc",
		"https://user@example.com/", "https://example.com/?q=1", "https://example.com/#f", "https://example.com:0/",
		"https://example.com:99999/", "https://example.com/a/../b", "https://example.com/a%2fb", "10.0.0.0/33",
		"https://2130706433/", "http://", "127.0.0.1:0", "fe80::1%eth0", "https://[fe80::1%25eth0]/", "mailto:x@example.com",
	} {
		if p, err := chromafs.NewPointerPolicy(entry); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", entry)) {
			t.Errorf("NewPointerPolicy(%q) = %v, %v; want an error naming the entry", entry, p, err)
		}
	}
	p, err := chromafs.NewPointerPolicy(" https://a.example/x ", "10.0.0.0/8")
	if err != nil || strings.Join(p.Entries(), ",") != "https://a.example/x,10.0.0.0/8" {
		t.Errorf("NewPointerPolicy = %v, %v", p, err)
	}
}

// pointerFS returns a filesystem with one public pointer, "p", at url
// (size not declared), read through r.
func pointerFS(t *testing.T, url string, r chromafs.Resolver) *chromafs.FS {
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
	fsys := pointerFS(t, u, chromafs.DefaultResolver)
	data, err := fs.ReadFile(fsys, "p")
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	if !errors.Is(err, chromafs.ErrPointerBlocked) || data != nil ||
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
	if n, err := f.Read(make([]byte, 10)); n != 0 || !errors.Is(err, chromafs.ErrPointerBlocked) {
		t.Errorf("Read = %d, %v", n, err)
	}

	// A ranged read (FetchRange) is refused the same way.
	e := &tree.Entry{Slug: "p", URL: u, Size: 1 << 20}
	if data, _, err := chromafs.DefaultResolver.(chromafs.RangeResolver).FetchRange(context.Background(), e, 1000, 10); !errors.Is(err, chromafs.ErrPointerBlocked) || data != nil {
		t.Errorf("FetchRange = %q, %v", data, err)
	}

	// The same URL allowed: Chroma answers with the collection list.
	allowedFS := pointerFS(t, u, &chromafs.HTTPResolver{Policy: allowing(t, hostPort)})
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
	for _, r := range []*chromafs.HTTPResolver{
		{},
		{Policy: allowing(t, "http://localhost:"+port)},
	} {
		_, err := fs.ReadFile(pointerFS(t, local, r), "p")
		if !errors.Is(err, chromafs.ErrPointerBlocked) || !strings.Contains(err.Error(), "localhost resolves to") || !strings.Contains(err.Error(), "a loopback address") {
			t.Errorf("%v: ReadFile(%s) = %v; want blocked: localhost resolves to a loopback address", r.Policy.Entries(), local, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	// With the address allowed it is fetched.
	ok := &chromafs.HTTPResolver{Policy: allowing(t, "127.0.0.1:"+port, "[::1]:"+port)}
	if data, err := fs.ReadFile(pointerFS(t, local, ok), "p"); err != nil || string(data) != "local" {
		t.Fatalf("ReadFile with the address allowed = %q, %v", data, err)
	}

	// A name that resolves to 127.0.0.1 (here a dialer that resolves
	// every name to the test server, as DNS rebinding would): the policy's
	// Control refuses it in a custom client's dialer too.
	rebind := func(policy *chromafs.PointerPolicy) *http.Client {
		d := &net.Dialer{Control: policy.Control}
		return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, "127.0.0.1:"+port)
		}}}
	}
	pub := chromafs.DefaultPointerPolicy
	_, err := fs.ReadFile(pointerFS(t, "http://docs.example.com/spec", &chromafs.HTTPResolver{Client: rebind(pub), Policy: pub}), "p")
	if !errors.Is(err, chromafs.ErrPointerBlocked) || !strings.Contains(err.Error(), "docs.example.com resolves to 127.0.0.1, a loopback address") {
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
		policy *chromafs.PointerPolicy
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
		data, err := fs.ReadFile(pointerFS(t, origin.URL+tc.path, &chromafs.HTTPResolver{Policy: tc.policy}), "p")
		if tc.want == "content" {
			if err != nil || string(data) != "content" {
				t.Errorf("%s: %q, %v", tc.name, data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "SECRET2") {
			t.Errorf("%s: %q, %v; want an error with %q and no secret", tc.name, data, err, tc.want)
		}
		if tc.name != "loop" && !errors.Is(err, chromafs.ErrPointerBlocked) {
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
	both := &chromafs.HTTPResolver{Policy: allowing(t, origin.URL, other.URL)}
	if data, err := fs.ReadFile(pointerFS(t, origin.URL+"/other", both), "p"); err != nil || string(data) != "other" {
		t.Errorf("redirect to an allowed host: %q, %v", data, err)
	}
	// MaxRedirects < 0: none followed.
	none := &chromafs.HTTPResolver{Policy: allowing(t, origin.URL), MaxRedirects: -1}
	if _, err := fs.ReadFile(pointerFS(t, origin.URL+"/same", none), "p"); !errors.Is(err, chromafs.ErrBrokenPointer) || !strings.Contains(err.Error(), "more than 0 redirects") {
		t.Errorf("MaxRedirects -1: %v", err)
	}

	// https to http: refused.
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, origin.URL+"/content", http.StatusFound)
	}))
	defer tlsSrv.Close()
	down := &chromafs.HTTPResolver{Client: tlsSrv.Client(), Policy: allowing(t, tlsSrv.URL, origin.URL)}
	if _, err := fs.ReadFile(pointerFS(t, tlsSrv.URL+"/x", down), "p"); !errors.Is(err, chromafs.ErrPointerBlocked) || !strings.Contains(err.Error(), "from https") {
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
	r := &chromafs.HTTPResolver{Policy: allowing(t, srv.URL), Timeout: 200 * time.Millisecond}
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
	r := &chromafs.HTTPResolver{Policy: allowing(t, u.Host, cu.Host), Timeout: 300 * time.Millisecond}
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
				err = chromafs.CheckPointer(e, data)
			}
		}
		if tc.name == "not allowed" {
			// The default list has no URL prefixes: use one that has.
			_, err = (&chromafs.HTTPResolver{Policy: allowing(t, "https://other.example")}).Fetch(context.Background(), e)
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
	var se *chromafs.StatusError
	_, err := r.Fetch(context.Background(), &tree.Entry{Slug: "p", URL: secret(u, "/missing"), Size: -1})
	if !errors.As(err, &se) || se.StatusCode != 404 || strings.Contains(se.URL, "SECRET") || strings.Contains(se.URL, "PASSWORD") {
		t.Errorf("StatusError = %+v", se)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a/b.json":                  "https://example.com/a/b.json",
		"https://example.com/a?token=SECRET":            "https://example.com/a?xxxxx",
		"https://user:SECRET@example.com/a":             "https://xxxxx@example.com/a",
		"https://SECRET@example.com/a?":                 "https://xxxxx@example.com/a?xxxxx",
		"https://example.com/a#SECRET":                  "https://example.com/a#xxxxx",
		"s3://SECRET@bucket/key?X-Amz-Signature=SECRET": "s3://xxxxx@bucket/key?xxxxx",
		"mailto:SECRET@example.com":                     "mailto:xxxxx",
		"http://user:SECRET@h:bad/?token=SECRET":        "http://xxxxx@h:bad/?xxxxx",
		"http://h/%zz?token=SECRET":                     "http://h/%zz?xxxxx",
		"SECRET@host/x?token=SECRET":                    "xxxxx@host/x?xxxxx",
	} {
		if got := chromafs.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q; want %q", in, got, want)
		}
	}
}

// BenchmarkPointerPolicyCheckURL is the cost of the check made before
// each pointer fetch, with the default policy and with a list.
func BenchmarkPointerPolicyCheckURL(b *testing.B) {
	list, err := chromafs.NewPointerPolicy("https://a.example/specs/", "https://b.example/", "https://specs.example.com/api/", "10.0.0.0/8")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		p    *chromafs.PointerPolicy
	}{{"default", chromafs.DefaultPointerPolicy}, {"list", list}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.p.CheckURL("https://specs.example.com/api/v1/openapi.json?sig=abc"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
