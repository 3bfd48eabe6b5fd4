package pointer

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/idna"
)

// ErrBlocked is wrapped by errors from reading a lazy file pointer
// whose URL the resolver's Policy refuses: a host outside the
// allow list, an address that is not public (loopback, private,
// link-local, …) and not allowed explicitly, a redirect to such a target,
// or a host written in a form that could name another host (a number
// that is not a canonical IPv4 address). Such errors are *BlockedError
// values and also wrap ErrLazy: nothing was requested from the
// target (no connection is kept to a refused address, and no request is
// sent on it).
var ErrBlocked = errors.New("pointer blocked")

// BlockedError is a pointer fetch that the Policy refused. Its
// message names the URL (with userinfo and query redacted), the reason,
// and the allow entry that would let it through when there is one.
type BlockedError struct {
	URL    string // the refused URL, redacted (see RedactURL); may be empty
	Reason string // such as "127.0.0.1 is a loopback address"
	// Allow is an allow entry that would permit the fetch (for example
	// "127.0.0.1:8000"), or "" when none would (a malformed host).
	Allow string

	addr, kind string // set by CheckAddr: "127.0.0.1", "a loopback address"
}

func (e *BlockedError) Error() string {
	var b strings.Builder
	b.WriteString("pointer blocked: ")
	if e.URL != "" {
		b.WriteString(e.URL)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Allow != "" {
		fmt.Fprintf(&b, "; to fetch it, allow %q (chromafs --pointer-allow, HTTPResolver.Policy)", e.Allow)
	}
	return b.String()
}

// Unwrap makes a BlockedError match ErrBlocked and ErrLazy.
func (e *BlockedError) Unwrap() []error { return []error{ErrBlocked, ErrLazy} }

// A Policy decides which URLs an HTTPResolver may fetch and which
// addresses it may connect to. The zero Policy (an HTTPResolver's default, and
// NewPolicy()) fetches http and https URLs from public addresses
// only.
//
// # Addresses
//
// Whatever the allow list, a connection to an address of one of these
// kinds is refused unless an allow entry names the address: unspecified
// (0.0.0.0/8, ::), loopback (127.0.0.0/8, ::1), private (10.0.0.0/8,
// 172.16.0.0/12, 192.168.0.0/16, fc00::/7), shared/CGNAT
// (100.64.0.0/10), link-local (169.254.0.0/16 — the cloud metadata
// services at 169.254.169.254 among them — and fe80::/10), site-local
// (fec0::/10), multicast (224.0.0.0/4, ff00::/8), IETF protocol
// assignments (192.0.0.0/24), benchmarking (198.18.0.0/15), reserved
// and broadcast (240.0.0.0/4), discard-only (100::/64), IPv4-compatible
// IPv6 (::/96), and the IPv4-mapped (::ffff:0:0/96), NAT64
// (64:ff9b::/96) and 6to4 (2002::/16) forms of refused IPv4 addresses.
// The check is made on the address actually dialed (a net.Dialer Control
// function, see Control), after name resolution, so a host name that
// resolves to 127.0.0.1 and DNS rebinding are caught as well as literal
// addresses. A URL whose host is a literal refused address is refused
// before any connection.
//
// # Allow entries
//
// NewPolicy takes entries of two kinds:
//
//   - A URL prefix, "scheme://host[:port][/path]": scheme http or https,
//     no userinfo, query or fragment. A URL matches it when its scheme is
//     the same, its host is the same after normalisation (lower case,
//     IDNA to ASCII as net/http dials it, one trailing dot removed, IP
//     addresses compared as addresses, IPv4-mapped IPv6 as IPv4), its
//     port is the same (an absent port is the scheme's default: 80 or
//     443), and, when the entry has a path other than "/", its path is
//     the entry's path or continues it after a "/" ("/specs" matches
//     "/specs" and "/specs/a.json", not "/specsX"; a URL path with a "."
//     or ".." segment or an encoded "/" or "\" never matches a path).
//     Hosts are compared whole: "https://allowed.com" matches neither
//     allowed.com.evil.net nor evil.net with userinfo
//     "allowed.com@". When at least one URL prefix is given, only URLs
//     that match one are fetched, redirects included. A URL prefix whose
//     host is an IP address also allows that address on that port.
//   - An address: an IP address ("10.1.2.3", "::1"), an address and port
//     ("127.0.0.1:8000", "[::1]:8000"), or a CIDR prefix ("10.0.0.0/8",
//     "fc00::/7"). It allows connections to those addresses (on that port
//     only, when one is given) that would otherwise be refused. It does
//     not restrict which URLs are fetched.
//
// Entries without a scheme that are not addresses (a bare host name) are
// an error, as are empty entries.
//
// # Hosts
//
// A URL host that is a number other than a canonical dotted-quad IPv4
// address ("2130706433", "0177.0.0.1", "0x7f.1", "127.1"), that holds an
// IPv6 zone, or that is not a valid host name is refused: resolvers
// disagree on what such hosts name.
//
// # Redirects
//
// A redirect is followed only if its target passes the same checks as a
// pointer's own URL (scheme, allow list, host form, and the address rules
// when it is dialed), and is not a downgrade from https to http.
// HTTPResolver.MaxRedirects bounds how many.
//
// A Policy is immutable and safe for concurrent use.
type Policy struct {
	prefixes []allowPrefix
	addrs    []allowAddr
	entries  []string // as given, for messages

	once      sync.Once
	transport *http.Transport
}

// defaultPolicy is the policy of an HTTPResolver whose Policy is
// nil: http and https from public addresses only, any host.
var defaultPolicy = &Policy{}

// allowPrefix is a URL prefix entry.
type allowPrefix struct {
	scheme string
	host   string // canonical (see canonicalHost)
	port   string // effective
	path   string // "" for any path, else without a trailing slash
	entry  string
}

// allowAddr is an address entry (or the address of a URL prefix whose
// host is an IP address).
type allowAddr struct {
	prefix netip.Prefix
	port   uint16 // 0: any
}

// NewPolicy returns a policy with the given allow entries (see
// Policy). A malformed entry is an error naming it.
func NewPolicy(allow ...string) (*Policy, error) {
	p := &Policy{}
	for _, raw := range allow {
		if err := p.add(strings.TrimSpace(raw)); err != nil {
			return nil, fmt.Errorf("pointer allow entry %q: %w", raw, err)
		}
		p.entries = append(p.entries, strings.TrimSpace(raw))
	}
	return p, nil
}

// Entries returns the allow entries the policy was made with.
func (p *Policy) Entries() []string { return append([]string(nil), p.entries...) }

func (p *Policy) add(s string) error {
	if s == "" {
		return errors.New("empty entry")
	}
	if !strings.Contains(s, "://") {
		a, err := parseAllowAddr(s)
		if err != nil {
			return fmt.Errorf("neither a URL prefix with a scheme (such as https://%s) nor an IP address, address:port or CIDR prefix", s)
		}
		p.addrs = append(p.addrs, a)
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return errors.Unwrap(err) // the *url.Error repeats the entry
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: only http and https pointers are fetched", u.Scheme)
	}
	switch {
	case u.User != nil:
		return errors.New("an allow entry may not hold userinfo")
	case u.RawQuery != "" || u.ForceQuery:
		return errors.New("an allow entry may not hold a query")
	case u.Fragment != "":
		return errors.New("an allow entry may not hold a fragment")
	case u.Opaque != "":
		return errors.New("not a URL prefix of the form scheme://host[:port][/path]")
	}
	host, ip, reason := canonicalHost(u.Hostname())
	if reason != "" {
		return errors.New(reason)
	}
	port, reason := effectivePort(u)
	if reason != "" {
		return errors.New(reason)
	}
	pfx := allowPrefix{scheme: u.Scheme, host: host, port: port, entry: s}
	if u.Path != "" && u.Path != "/" {
		if badPath(u) {
			return errors.New(`a path prefix may not hold "." or ".." segments or an encoded "/" or "\"`)
		}
		pfx.path = strings.TrimSuffix(u.Path, "/")
	}
	p.prefixes = append(p.prefixes, pfx)
	if ip.IsValid() {
		n, _ := strconv.ParseUint(port, 10, 16)
		p.addrs = append(p.addrs, allowAddr{prefix: netip.PrefixFrom(ip, ip.BitLen()), port: uint16(n)})
	}
	return nil
}

// parseAllowAddr parses "ip", "ip:port", "[ipv6]:port" or "ip/bits".
func parseAllowAddr(s string) (allowAddr, error) {
	if strings.Contains(s, "/") {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			return allowAddr{}, err
		}
		if pfx.Addr().Zone() != "" {
			return allowAddr{}, errors.New("zone")
		}
		if pfx.Addr().Is4In6() && pfx.Bits() >= 96 {
			pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
		}
		return allowAddr{prefix: pfx.Masked()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return allowAddr{prefix: netip.PrefixFrom(a, a.BitLen())}, nil
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 || ap.Addr().Zone() != "" {
		return allowAddr{}, errors.New("not an address")
	}
	a := ap.Addr().Unmap()
	return allowAddr{prefix: netip.PrefixFrom(a, a.BitLen()), port: ap.Port()}, nil
}

// effectivePort returns u's port, or its scheme's default.
func effectivePort(u *url.URL) (string, string) {
	port := u.Port()
	if port == "" {
		if u.Scheme == "https" {
			return "443", ""
		}
		return "80", ""
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return "", fmt.Sprintf("invalid port %q", port)
	}
	return strconv.FormatUint(n, 10), ""
}

// badPath reports a path that servers may read as another path: one with
// "." or ".." segments, or with an encoded slash or backslash.
func badPath(u *url.URL) bool {
	esc := strings.ToLower(u.EscapedPath())
	if strings.Contains(esc, "%2f") || strings.Contains(esc, "%5c") || strings.Contains(u.Path, `\`) {
		return true
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// canonicalHost normalises a URL host (as url.URL.Hostname returns it:
// unbracketed, percent-decoded) for comparison: an IP address in its
// canonical form (IPv4-mapped IPv6 as IPv4) with ip set, or a host name
// in lower-case ASCII (IDNA as net/http dials it) without a trailing dot.
// A host that could be read as another host is refused with a reason.
func canonicalHost(h string) (host string, ip netip.Addr, reason string) {
	if h == "" {
		return "", netip.Addr{}, "no host"
	}
	if strings.Contains(h, "%") {
		return "", netip.Addr{}, fmt.Sprintf("host %q holds an IPv6 zone or a percent sign", h)
	}
	if a, err := netip.ParseAddr(h); err == nil {
		a = a.Unmap()
		return a.String(), a, ""
	}
	name := h
	if !isASCII(name) {
		v, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", netip.Addr{}, fmt.Sprintf("host %q is not a valid international domain name: %v", h, err)
		}
		name = v
		if a, err := netip.ParseAddr(name); err == nil {
			a = a.Unmap()
			return a.String(), a, ""
		}
	}
	name = strings.ToLower(name)
	name = strings.TrimSuffix(name, ".")
	if a, err := netip.ParseAddr(name); err == nil && a.Is4() {
		return a.String(), a, "" // "127.0.0.1." is 127.0.0.1
	}
	if name == "" || len(name) > 253 {
		return "", netip.Addr{}, fmt.Sprintf("host %q is not a valid host name", h)
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", netip.Addr{}, fmt.Sprintf("host %q is not a valid host name", h)
		}
	}
	if numericLabel(labels[len(labels)-1]) {
		return "", netip.Addr{}, fmt.Sprintf("host %q is a number but not a canonical IPv4 address (resolvers may read it as one)", h)
	}
	return name, netip.Addr{}, ""
}

// numericLabel reports a label that the WHATWG URL standard reads as an
// IPv4 part: decimal digits, or 0x followed by hex digits.
func numericLabel(l string) bool {
	if hex, ok := strings.CutPrefix(l, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return strings.Trim(l, "0123456789") == ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// CheckURL reports whether the policy lets raw be fetched, before any
// connection: nil, or an error wrapping ErrBlocked (a
// *BlockedError), ErrLazy (a scheme other than http and https) or
// ErrBroken (not a URL). The address that the host resolves to is
// checked when it is dialed (see Control).
func (p *Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: invalid pointer URL %s: %v", ErrBroken, RedactURL(raw), errors.Unwrap(err))
	}
	return p.checkURL(u)
}

// checkURL is CheckURL on a parsed URL: the one the request is made
// with, so that what is checked is what is dialed.
func (p *Policy) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: %s: no resolver for scheme %q", ErrLazy, redactURL(u), u.Scheme)
	}
	host, ip, reason := canonicalHost(u.Hostname())
	if reason != "" {
		return &BlockedError{URL: redactURL(u), Reason: reason}
	}
	port, reason := effectivePort(u)
	if reason != "" {
		return &BlockedError{URL: redactURL(u), Reason: reason}
	}
	if len(p.prefixes) > 0 && !p.matchPrefix(u, host, port) {
		return &BlockedError{URL: redactURL(u), Reason: "not matched by the allow list (" + p.listForMessage() + ")",
			Allow: u.Scheme + "://" + u.Host + "/"}
	}
	if ip.IsValid() {
		n, _ := strconv.ParseUint(port, 10, 16)
		if err := p.CheckAddr(netip.AddrPortFrom(ip, uint16(n))); err != nil {
			err.(*BlockedError).URL = redactURL(u)
			return err
		}
	}
	return nil
}

func (p *Policy) matchPrefix(u *url.URL, host, port string) bool {
	for _, a := range p.prefixes {
		if a.scheme != u.Scheme || a.host != host || a.port != port {
			continue
		}
		if a.path == "" {
			return true
		}
		if badPath(u) {
			continue
		}
		if u.Path == a.path || strings.HasPrefix(u.Path, a.path+"/") {
			return true
		}
	}
	return false
}

func (p *Policy) listForMessage() string {
	var shown []string
	for i, a := range p.prefixes {
		if i == 3 {
			shown = append(shown, fmt.Sprintf("and %d more", len(p.prefixes)-3))
			break
		}
		shown = append(shown, a.entry)
	}
	return strings.Join(shown, ", ")
}

// CheckAddr reports whether the policy lets a connection be made to ap:
// nil for a public address or one an allow entry names, else a
// *BlockedError naming the kind of address.
func (p *Policy) CheckAddr(ap netip.AddrPort) error {
	a := ap.Addr().WithZone("").Unmap()
	reason := addrReason(a)
	if reason == "" {
		return nil
	}
	for _, al := range p.addrs {
		if al.prefix.Contains(a) && (al.port == 0 || al.port == ap.Port()) {
			return nil
		}
	}
	return &BlockedError{Reason: a.String() + " is " + reason, Allow: netip.AddrPortFrom(a, ap.Port()).String(),
		addr: a.String(), kind: reason}
}

// Control is a net.Dialer Control function that refuses connections to
// addresses the policy refuses (see CheckAddr), after name resolution and
// before the connection is made. HTTPResolver's default transport uses
// it; a custom HTTPResolver.Client can use it in its own dialer.
func (p *Policy) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: fmt.Sprintf("cannot check the address %q (%s)", address, network)}
	}
	return p.CheckAddr(ap)
}

// Transport returns the policy's HTTP transport, shared by every
// HTTPResolver with this policy and no Client: http.DefaultTransport's
// settings with a dialer that applies Control, and no proxy (through a
// proxy, the address dialed would be the proxy's, not the target's).
func (p *Policy) Transport() *http.Transport {
	p.once.Do(func() {
		var t *http.Transport
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			t = dt.Clone()
		} else {
			t = &http.Transport{ForceAttemptHTTP2: true, MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second,
				TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
		}
		t.Proxy = nil
		t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.Control}).DialContext
		t.DialTLSContext = nil // TLS over DialContext's connection
		p.transport = t
	})
	return p.transport
}

// A refused address range and why.
type addrRange struct {
	prefix netip.Prefix
	reason string
}

var refusedRanges = func() []addrRange {
	var out []addrRange
	for _, r := range [][2]string{
		{"0.0.0.0/32", "an unspecified address"},
		{"0.0.0.0/8", `a "this network" address`},
		{"10.0.0.0/8", "a private address (RFC 1918)"},
		{"100.64.0.0/10", "a shared (carrier-grade NAT) address"},
		{"127.0.0.0/8", "a loopback address"},
		{"169.254.169.254/32", "a link-local address (the cloud metadata service)"},
		{"169.254.0.0/16", "a link-local address"},
		{"172.16.0.0/12", "a private address (RFC 1918)"},
		{"192.0.0.0/24", "an IETF protocol assignment address"},
		{"192.168.0.0/16", "a private address (RFC 1918)"},
		{"198.18.0.0/15", "a benchmarking address"},
		{"224.0.0.0/4", "a multicast address"},
		{"255.255.255.255/32", "a broadcast address"},
		{"240.0.0.0/4", "a reserved address"},
		{"::/128", "an unspecified address"},
		{"::1/128", "a loopback address"},
		{"::/96", "an IPv4-compatible IPv6 address"},
		{"100::/64", "a discard-only address"},
		{"fc00::/7", "a private (unique local) address"},
		{"fe80::/10", "a link-local address"},
		{"fec0::/10", "a site-local address"},
		{"ff00::/8", "a multicast address"},
	} {
		out = append(out, addrRange{netip.MustParsePrefix(r[0]), r[1]})
	}
	return out
}()

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// addrReason returns why a connection to a (unmapped, without zone) is
// refused by default, or "" for a public address.
func addrReason(a netip.Addr) string {
	for _, r := range refusedRanges {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	var v4 netip.Addr
	switch b := a.As16(); {
	case nat64Prefix.Contains(a):
		v4 = netip.AddrFrom4([4]byte(b[12:16]))
	case sixToFour.Contains(a):
		v4 = netip.AddrFrom4([4]byte(b[2:6]))
	default:
		return ""
	}
	if r := addrReason(v4); r != "" {
		return "an IPv6 form of " + v4.String() + ", " + r
	}
	return ""
}

// RedactURL returns raw with its userinfo and query (and fragment)
// replaced by "xxxxx", for messages and logs: pointer URLs may carry
// credentials or signed tokens (?X-Amz-Signature=…, ?token=…). In a
// string that does not parse as an absolute URL, everything from the
// first "?" or "#" on is replaced, and so is everything before the last
// "@" (after the scheme, if any).
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		s := raw
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i] + "?xxxxx"
		}
		if i := strings.LastIndex(s, "@"); i >= 0 {
			if j := strings.Index(s, "://"); j >= 0 && j < i {
				s = s[:j+3] + "xxxxx" + s[i:]
			} else {
				s = "xxxxx" + s[i:]
			}
		}
		return s
	}
	return redactURL(u)
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("xxxxx")
	}
	if c.RawQuery != "" || c.ForceQuery {
		c.RawQuery = "xxxxx"
		c.ForceQuery = false
	}
	if c.Fragment != "" {
		c.Fragment, c.RawFragment = "xxxxx", ""
	}
	if c.Opaque != "" {
		// An opaque part (mailto:x, s3:bucket) may hold anything.
		c.Opaque = "xxxxx"
	}
	return c.String()
}
