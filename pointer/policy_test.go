package pointer_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/pointer"
)

// TestPolicyURL is the allow/deny decision made before any
// connection, for the default policy, a list of URL prefixes, and a list
// of addresses.
func TestPolicyURL(t *testing.T) {
	type verdict int
	const (
		allowed verdict = iota
		blocked         // ErrBlocked
		lazy            // ErrLazy only: a scheme no resolver handles
		broken          // ErrBroken: not a URL
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
		p, err := pointer.NewPolicy(tc.allow...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = p.CheckURL(tc.url)
		var got verdict
		switch {
		case err == nil:
			got = allowed
		case errors.Is(err, pointer.ErrBlocked):
			got = blocked
			var be *pointer.BlockedError
			if !errors.As(err, &be) || !errors.Is(err, pointer.ErrLazy) {
				t.Errorf("%s: %v is not a *BlockedError wrapping ErrLazyPointer", name, err)
			}
		case errors.Is(err, pointer.ErrLazy):
			got = lazy
		case errors.Is(err, pointer.ErrBroken):
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

// TestPolicyAddr is the check on the address dialed.
func TestPolicyAddr(t *testing.T) {
	def := &pointer.Policy{}
	withLocal, err := pointer.NewPolicy("127.0.0.1:8000", "fd00::/8", "http://[::1]:9000/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    *pointer.Policy
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
		if !errors.Is(err, pointer.ErrBlocked) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%v Control(%s) = %v; want blocked with %q", tc.p.Entries(), tc.addr, err, tc.why)
		}
	}
	if err := def.CheckAddr(netip.MustParseAddrPort("[::ffff:8.8.8.8]:53")); err != nil {
		t.Errorf("CheckAddr(IPv4-mapped public) = %v", err)
	}
}

func TestNewPolicyErrors(t *testing.T) {
	for _, entry := range []string{
		"", " ", "example.com", "example.com:443", "*.example.com", "ftp://example.com/", "file:///etc",
		"https://user@example.com/", "https://example.com/?q=1", "https://example.com/#f", "https://example.com:0/",
		"https://example.com:99999/", "https://example.com/a/../b", "https://example.com/a%2fb", "10.0.0.0/33",
		"https://2130706433/", "http://", "127.0.0.1:0", "fe80::1%eth0", "https://[fe80::1%25eth0]/", "mailto:x@example.com",
	} {
		if p, err := pointer.NewPolicy(entry); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", entry)) {
			t.Errorf("NewPolicy(%q) = %v, %v; want an error naming the entry", entry, p, err)
		}
	}
	p, err := pointer.NewPolicy(" https://a.example/x ", "10.0.0.0/8")
	if err != nil || strings.Join(p.Entries(), ",") != "https://a.example/x,10.0.0.0/8" {
		t.Errorf("NewPointerPolicy = %v, %v", p, err)
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
		if got := pointer.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q; want %q", in, got, want)
		}
	}
}

// BenchmarkPolicyCheckURL is the cost of the check made before
// each pointer fetch, with the default policy and with a list.
func BenchmarkPolicyCheckURL(b *testing.B) {
	list, err := pointer.NewPolicy("https://a.example/specs/", "https://b.example/", "https://specs.example.com/api/", "10.0.0.0/8")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		p    *pointer.Policy
	}{{"default", &pointer.Policy{}}, {"list", list}} {
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
