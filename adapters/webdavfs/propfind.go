package webdavfs

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromafs/chromafs/adapters/internal/attr"
	"github.com/chromafs/chromafs/fscap"
)

// This file answers PROPFIND without webdav.Handler, whose multistatus
// writer builds encoding/xml tokens for every property of every resource.
// The answers are those webdav.Handler gives (same live properties, values,
// hrefs and statuses; see TestPropfindDifferential), written with
// precomputed fragments and streamed to the client.

// Limits of a PROPFIND. x/net/webdav has none; Apache's mod_dav bounds
// the request body (LimitXMLRequestBody, 1,000,000 bytes by default).
// Real clients (Finder, Windows, davfs2, rclone, cadaver, Office) send
// bodies of a few hundred bytes naming ten to thirty properties with
// names of a few dozen bytes.
const (
	// MaxPropfindBody is the largest PROPFIND request body, in bytes. A
	// larger one is refused with 413 (Content Too Large).
	MaxPropfindBody = 64 << 10

	// MaxPropfindProps is the most property names a PROPFIND may list in
	// DAV:prop (or DAV:include). More are refused with 413.
	MaxPropfindProps = 256

	// MaxPropNameLen is the longest namespace and the longest local name,
	// in bytes, of a property named in a PROPFIND. A longer one is
	// refused with 413.
	MaxPropNameLen = 256

	// MaxPropfindAnswer bounds the multistatus body of a PROPFIND answer,
	// in bytes. A PROPFIND of depth 0 or 1 whose answer could exceed it
	// is refused with 507 (Insufficient Storage, RFC 4918 section 11.5)
	// before anything is sent; a walk of Depth: infinity
	// (Options.AllowInfiniteDepth) that reaches it after the first bytes
	// were sent is aborted (the connection is cut, so the client sees a
	// truncated answer, never a well-formed one that leaves entries out).
	MaxPropfindAnswer = 64 << 20
)

// flushAt is the size of the pending part of an answer beyond which it is
// sent: the memory a PROPFIND holds besides its directory listing. An
// answer that fits is sent whole, with a Content-Length.
const flushAt = 64 << 10

// errInvalidPropfind is the error of a PROPFIND body that parses but is
// not a valid DAV:propfind (as webdav.Handler's).
var errInvalidPropfind = errors.New("webdav: invalid propfind")

// limitError is the error of a PROPFIND body over one of the limits.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// liveProp is a live DAV: property that webdav.Handler answers.
type liveProp uint8

const (
	propResourceType liveProp = iota
	propDisplayName
	propContentLength
	propLastModified
	propContentType
	propETag
	propSupportedLock
	numLiveProps
)

// liveProps are the live properties by local name (in the DAV: namespace),
// and whether they apply to collections: webdav.Handler's liveProps less
// those it hides (creationdate, getcontentlanguage, lockdiscovery), which,
// like unknown properties, are 404 when named.
var liveProps = [numLiveProps]struct {
	local string
	dir   bool
}{
	propResourceType:  {"resourcetype", true},
	propDisplayName:   {"displayname", true},
	propContentLength: {"getcontentlength", false},
	propLastModified:  {"getlastmodified", true},
	propContentType:   {"getcontenttype", false},
	propETag:          {"getetag", false},
	propSupportedLock: {"supportedlock", true},
}

// lookupLive returns the live property named n.
func lookupLive(n xml.Name) (liveProp, bool) {
	if n.Space != "DAV:" {
		return 0, false
	}
	for p, lp := range liveProps {
		if lp.local == n.Local {
			return liveProp(p), true
		}
	}
	return 0, false
}

// Static fragments of the multistatus.
const (
	msHeader      = `<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:"`
	msFooter      = `</D:multistatus>`
	respOpen      = `<D:response><D:href>`
	hrefClose     = `</D:href>`
	respClose     = `</D:response>`
	propstatOpen  = `<D:propstat><D:prop>`
	propstatOK    = `</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>`
	propstatNotFd = `</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>`
)

// propfindRequest is a parsed PROPFIND body.
type propfindRequest struct {
	XMLName  xml.Name   `xml:"DAV: propfind"`
	Allprop  *struct{}  `xml:"DAV: allprop"`
	Propname *struct{}  `xml:"DAV: propname"`
	Prop     propfindPN `xml:"DAV: prop"`
	Include  propfindPN `xml:"DAV: include"`
}

// propfindPN is the list of property names of a DAV:prop or DAV:include
// element: empty elements, at least one (as webdav.Handler requires), at
// most MaxPropfindProps, with names of at most MaxPropNameLen bytes.
type propfindPN []xml.Name

func (pn *propfindPN) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	for {
		t, err := nextToken(d)
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			if len(*pn) == 0 {
				return fmt.Errorf("%s must not be empty", start.Name.Local)
			}
			return nil
		case xml.StartElement:
			if len(*pn) >= MaxPropfindProps {
				return &limitError{fmt.Sprintf("a PROPFIND may name at most %d properties", MaxPropfindProps)}
			}
			if len(t.Name.Space) > MaxPropNameLen || len(t.Name.Local) > MaxPropNameLen {
				return &limitError{fmt.Sprintf("a property's namespace and local name may have at most %d bytes each", MaxPropNameLen)}
			}
			e, err := nextToken(d)
			if err != nil {
				return err
			}
			if _, ok := e.(xml.EndElement); !ok {
				return fmt.Errorf("unexpected token %T", e)
			}
			*pn = append(*pn, t.Name)
		}
	}
}

// nextToken returns the next token that is not a comment, a directive or
// a processing instruction.
func nextToken(d *xml.Decoder) (xml.Token, error) {
	for {
		t, err := d.Token()
		if err != nil {
			return t, err
		}
		switch t.(type) {
		case xml.Comment, xml.Directive, xml.ProcInst:
			continue
		}
		return t, nil
	}
}

// countingReader counts the bytes read, to tell an empty body from one
// with no element.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// parsePropfind reads a PROPFIND body with webdav.Handler's rules: an
// empty body is allprop; otherwise exactly one of allprop (with an
// optional include), propname and prop. Errors wrapping *limitError or
// *http.MaxBytesError are bodies over a limit.
func parsePropfind(r io.Reader) (propfindRequest, error) {
	var pf propfindRequest
	c := &countingReader{r: r}
	if err := xml.NewDecoder(c).Decode(&pf); err != nil {
		if err == io.EOF {
			if c.n == 0 {
				return propfindRequest{Allprop: new(struct{})}, nil
			}
			err = errInvalidPropfind
		}
		return propfindRequest{}, err
	}
	switch {
	case pf.Allprop == nil && pf.Include != nil,
		pf.Allprop != nil && (pf.Prop != nil || pf.Propname != nil),
		pf.Prop != nil && pf.Propname != nil,
		pf.Propname == nil && pf.Allprop == nil && pf.Prop == nil:
		return propfindRequest{}, errInvalidPropfind
	}
	return pf, nil
}

// propPlan is what to answer for one kind of resource (collection or
// file).
type propPlan struct {
	// ok are the live properties answered with a 200, in order. With
	// allprop, those a resource lacks (the size of a page whose size is
	// not known without reading it) are left out; with prop, they go to
	// the 404 propstat.
	ok      []liveProp
	allprop bool
	// missing are the named properties the kind does not have, as empty
	// elements, for the 404 propstat.
	missing []byte
	// names, for propname, is the whole propstat list.
	names []byte
}

// plans returns the answers to pf for collections and for files. ns maps
// the namespaces of the properties named (other than DAV: and none) to
// the prefixes that the multistatus element declares.
func plans(pf propfindRequest, ns map[string]string) (dir, file propPlan) {
	build := func(isDir bool) propPlan {
		var live []liveProp
		for p, lp := range liveProps {
			if lp.dir || !isDir {
				live = append(live, liveProp(p))
			}
		}
		if pf.Propname != nil {
			b := []byte(propstatOpen)
			for _, p := range live {
				b = appendEmpty(b, xml.Name{Space: "DAV:", Local: liveProps[p].local}, nil)
			}
			return propPlan{names: append(b, propstatOK...)}
		}
		if pf.Allprop != nil {
			// Every property the resource has. DAV:include is ignored, as
			// webdav.Handler ignores it: all the live properties are
			// already listed, and there are no dead ones.
			return propPlan{ok: live, allprop: true}
		}
		var plan propPlan
		for _, n := range pf.Prop {
			if p, ok := lookupLive(n); ok && (liveProps[p].dir || !isDir) {
				plan.ok = append(plan.ok, p)
			} else {
				plan.missing = appendEmpty(plan.missing, n, ns)
			}
		}
		return plan
	}
	return build(true), build(false)
}

// namespaces returns prefixes for the namespaces of the properties pf
// names, other than DAV: and none, and the multistatus start tag that
// declares them: each namespace is written once per answer, however
// many resources echo a property in it.
func namespaces(pf propfindRequest) (map[string]string, []byte) {
	header := []byte(msHeader)
	var ns map[string]string
	for _, n := range pf.Prop {
		if n.Space == "" || n.Space == "DAV:" {
			continue
		}
		if _, ok := ns[n.Space]; ok {
			continue
		}
		if ns == nil {
			ns = map[string]string{}
		}
		p := "ns" + strconv.Itoa(len(ns))
		ns[n.Space] = p
		header = append(header, " xmlns:"...)
		header = append(header, p...)
		header = append(header, `="`...)
		header = appendEscaped(header, n.Space)
		header = append(header, '"')
	}
	return ns, append(header, '>')
}

// appendEmpty appends an empty element named n: D:-prefixed in the DAV:
// namespace, unprefixed in none, and with its prefix in ns otherwise.
func appendEmpty(b []byte, n xml.Name, ns map[string]string) []byte {
	switch n.Space {
	case "DAV:":
		b = append(b, "<D:"...)
	case "":
		b = append(b, '<')
	default:
		b = append(b, '<')
		b = append(b, ns[n.Space]...)
		b = append(b, ':')
	}
	b = append(b, n.Local...)
	return append(b, "/>"...)
}

// resource is one resource of a PROPFIND answer.
type resource struct {
	name  string      // WebDAV name: "/" or "/a/b"
	base  string      // base name of its io/fs name, for the content type
	fi    fs.FileInfo // its metadata
	sized bool        // fi.Size() is known (see fscap.StatNoReadFS)
	ct    string      // its content type, once computed (see contentType)
}

// contentType returns attr.ServedType of a file, computed once.
func (r *resource) contentType(allowActive bool) string {
	if r.ct == "" {
		r.ct = attr.ServedType(r.base, r.fi, allowActive)
	}
	return r.ct
}

// has reports whether r has the live property p: a page whose size is not
// known without reading it has no getcontentlength, and no getetag unless
// the tree records its hash; a directory whose modification time is not
// known (see knownTime) has no getlastmodified.
//
// A file keeps getlastmodified whatever its time: cadaver (neon) lists a
// file whose getlastmodified is 404 as an error rather than as a file
// (as it does one without getcontentlength), while it lists a collection
// without one as it lists the others.
func (r *resource) has(p liveProp) bool {
	switch p {
	case propContentLength:
		return r.sized
	case propETag:
		return attr.HasETag(r.fi, r.sized)
	case propLastModified:
		return !r.fi.IsDir() || knownTime(r.fi.ModTime())
	}
	return true
}

// knownTime reports whether t is a modification time rather than
// "unknown": not the zero Time (what chromafs gives the directories of a
// tree without times, and fstest.MapFS its implicit directories) nor the
// Unix epoch, the two that http.ServeContent treats as unknown (it then
// sends no Last-Modified). webdav.Handler answers getlastmodified for
// every resource, "Mon, 01 Jan 0001 00:00:00 GMT" for the zero Time,
// which clients show as a date.
func knownTime(t time.Time) bool {
	return !t.IsZero() && !t.Equal(time.Unix(0, 0))
}

// multistatus writes a multistatus answer to a client: it keeps up to
// flushAt bytes pending and sends them when there are more, so that the
// memory of an answer does not grow with its size.
type multistatus struct {
	w           http.ResponseWriter
	b           []byte // pending bytes
	header      []byte // the multistatus start tag
	prefix      string
	dir, file   propPlan
	allowActive bool
	sent        int64 // bytes sent
	started     bool  // the status line is sent
	err         error // the client's connection failed
}

// bufPool recycles answer buffers; those that grew past maxPooledBuf are
// left to the garbage collector.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, flushAt+8<<10); return &b }}

const maxPooledBuf = 4 * flushAt

// plan returns the plan for r.
func (m *multistatus) plan(r *resource) *propPlan {
	if r.fi.IsDir() {
		return &m.dir
	}
	return &m.file
}

// size returns the number of bytes of the answer so far.
func (m *multistatus) size() int64 { return m.sent + int64(len(m.b)) }

// bound returns an upper bound of the size of r's response, for the check
// against MaxPropfindAnswer before an answer is sent: escaping makes a
// byte of a name or value at most six bytes (a UTF-8 byte "%XX" in an
// href, "&amp;" for "&"); the fixed text of all live properties, a date
// and a 64-bit size are under 512 bytes.
func (m *multistatus) bound(r *resource) int64 {
	plan := m.plan(r)
	n := len(respOpen) + len(hrefClose) + len(respClose) + 6*(len(m.prefix)+len(r.name)+1) +
		2*len(propstatOpen) + len(propstatOK) + len(propstatNotFd) + len(plan.missing) + len(plan.names) + 512
	if len(plan.ok) > 0 {
		n += 6 * (len(r.fi.Name()) + len(r.contentType(m.allowActive)) + 34)
		if !plan.allprop {
			n += 32 * len(plan.ok) // lacking properties echoed in the 404 propstat
		}
	}
	return int64(n)
}

// response appends the response for r, and sends what is pending when
// there is more than flushAt.
func (m *multistatus) response(r *resource) {
	isDir := r.fi.IsDir()
	b := append(m.b, respOpen...)
	href := path.Join(m.prefix, r.name)
	if isDir && href != "/" {
		href += "/"
	}
	b = appendEscaped(b, (&url.URL{Path: href}).EscapedPath())
	b = append(b, hrefClose...)
	plan := m.plan(r)
	var lacking [numLiveProps]liveProp
	nl := 0
	if len(plan.ok) > 0 {
		start := len(b)
		b = append(b, propstatOpen...)
		found := false
		for _, p := range plan.ok {
			if !r.has(p) {
				lacking[nl] = p
				nl++
				continue
			}
			b = appendLive(b, p, r, m.allowActive)
			found = true
		}
		if found {
			b = append(b, propstatOK...)
		} else {
			b = b[:start]
		}
	}
	b = append(b, plan.names...)
	if plan.allprop {
		nl = 0
	}
	if nl > 0 || len(plan.missing) > 0 {
		b = append(b, propstatOpen...)
		for _, p := range lacking[:nl] {
			b = appendEmpty(b, xml.Name{Space: "DAV:", Local: liveProps[p].local}, nil)
		}
		b = append(b, plan.missing...)
		b = append(b, propstatNotFd...)
	}
	m.b = append(b, respClose...)
	if len(m.b) >= flushAt {
		m.flush()
	}
}

// flush sends the status line (the first time) and what is pending.
func (m *multistatus) flush() {
	if m.err != nil {
		m.b = m.b[:0]
		return
	}
	if !m.started {
		m.writeHeader(-1)
	}
	n, err := m.w.Write(m.b)
	m.sent += int64(n)
	m.err = err
	m.b = m.b[:0]
}

// writeHeader sends the status line, with a Content-Length unless length
// is negative.
func (m *multistatus) writeHeader(length int) {
	hd := m.w.Header()
	hd.Set("Content-Type", "text/xml; charset=utf-8")
	if length >= 0 {
		hd.Set("Content-Length", strconv.Itoa(length))
	}
	m.started = true
	m.w.WriteHeader(http.StatusMultiStatus)
}

// finish appends the footer and sends the rest of the answer: the whole
// answer with a Content-Length if nothing was sent yet.
func (m *multistatus) finish() {
	m.b = append(m.b, msFooter...)
	if !m.started {
		m.writeHeader(len(m.b))
	}
	m.flush()
}

// appendLive appends property p of r, with webdav.Handler's value (and
// the content type of attr.ServedType).
func appendLive(b []byte, p liveProp, r *resource, allowActive bool) []byte {
	switch p {
	case propResourceType:
		if r.fi.IsDir() {
			return append(b, `<D:resourcetype><D:collection/></D:resourcetype>`...)
		}
		return append(b, `<D:resourcetype/>`...)
	case propDisplayName:
		if r.name == "/" {
			// Hide the real name of a possibly prefixed root directory.
			return append(b, `<D:displayname/>`...)
		}
		b = append(b, `<D:displayname>`...)
		b = appendEscaped(b, r.fi.Name())
		return append(b, `</D:displayname>`...)
	case propContentLength:
		b = append(b, `<D:getcontentlength>`...)
		b = strconv.AppendInt(b, r.fi.Size(), 10)
		return append(b, `</D:getcontentlength>`...)
	case propLastModified:
		b = append(b, `<D:getlastmodified>`...)
		b = r.fi.ModTime().UTC().AppendFormat(b, http.TimeFormat)
		return append(b, `</D:getlastmodified>`...)
	case propContentType:
		b = append(b, `<D:getcontenttype>`...)
		b = appendEscaped(b, r.contentType(allowActive))
		return append(b, `</D:getcontenttype>`...)
	case propETag:
		b = append(b, `<D:getetag>`...)
		b = appendEscaped(b, attr.ETag(r.fi))
		return append(b, `</D:getetag>`...)
	case propSupportedLock:
		// No lock type is supported (DAV class 1).
		return append(b, `<D:supportedlock/>`...)
	}
	return b
}

// appendEscaped appends s escaped as XML character data (or an attribute
// value), as encoding/xml.EscapeText does; strings that need no escaping,
// the usual case, are appended as they are.
func appendEscaped(b []byte, s string) []byte {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '&' || c == '<' || c == '>' || c == '"' || c == '\'' {
			break
		}
		i++
	}
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '"':
			esc = "&#34;"
		case r == '\'':
			esc = "&#39;"
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '\t':
			esc = "&#x9;"
		case r == '\n':
			esc = "&#xA;"
		case r == '\r':
			esc = "&#xD;"
		case r == utf8.RuneError && n == 1, !isXMLChar(r):
			esc = "\uFFFD"
		default:
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		b = append(b, esc...)
		i += n
	}
	return b
}

// isXMLChar reports whether r is in the Char production of XML 1.0.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// propfind answers a PROPFIND of res, whose io/fs name is n, in fsys (the
// request's view), with the given depth (-1: infinity).
//
// The answer is streamed. At depth 0 and 1 every resource is described
// (from metadata only) before anything is sent, so a failure is an error
// status, and an answer that could exceed MaxPropfindAnswer is 507. At
// depth infinity a failure or the limit after the first bytes were sent
// aborts the answer (http.ErrAbortHandler), never a well-formed
// multistatus that leaves entries out.
func (h *handler) propfind(w http.ResponseWriter, r *http.Request, fsys fs.FS, res resource, n string, depth int) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxPropfindBody)
	pf, err := parsePropfind(r.Body)
	if err != nil {
		var le *limitError
		var me *http.MaxBytesError
		switch {
		case errors.As(err, &le):
			http.Error(w, "413 content too large: "+le.msg, http.StatusRequestEntityTooLarge)
		case errors.As(err, &me):
			http.Error(w, fmt.Sprintf("413 content too large: a PROPFIND body may have at most %d bytes", MaxPropfindBody), http.StatusRequestEntityTooLarge)
		default:
			h.fail(w, http.StatusBadRequest)
		}
		return
	}
	bp := bufPool.Get().(*[]byte)
	m := &multistatus{w: w, b: (*bp)[:0], prefix: h.prefix, allowActive: h.allowActive}
	var ns map[string]string
	ns, m.header = namespaces(pf)
	m.dir, m.file = plans(pf, ns)
	defer func() {
		if cap(m.b) <= maxPooledBuf {
			*bp = m.b[:0]
			bufPool.Put(bp)
		}
	}()

	if depth >= 0 {
		all := []resource{res}
		if depth == 1 && res.fi.IsDir() {
			kids, err := children(fsys, res, n)
			if err != nil {
				h.storeFail(w, r, err, false)
				return
			}
			all = append(all, kids...)
		}
		total := int64(len(m.header) + len(msFooter))
		for i := range all {
			total += m.bound(&all[i])
		}
		if total > MaxPropfindAnswer {
			h.tooLarge(w)
			return
		}
		m.b = append(m.b, m.header...)
		for i := range all {
			m.response(&all[i])
		}
		m.finish()
		return
	}
	m.b = append(m.b, m.header...)
	err = m.walk(fsys, res, n)
	if err == nil && m.size() > MaxPropfindAnswer {
		err = errAnswerTooLarge
	}
	switch {
	case err == nil:
		m.finish()
	case !m.started && err == errAnswerTooLarge:
		h.tooLarge(w)
	case !m.started:
		h.storeFail(w, r, err, false)
	default:
		if err != errAnswerTooLarge && m.err == nil {
			h.log.Error("webdavfs: PROPFIND aborted after the answer began", "path", r.URL.Path, "err", err)
		}
		panic(http.ErrAbortHandler)
	}
}

// errAnswerTooLarge stops a walk whose answer passed MaxPropfindAnswer.
var errAnswerTooLarge = errors.New("webdavfs: PROPFIND answer over MaxPropfindAnswer")

// tooLarge answers 507 to a PROPFIND whose answer would pass
// MaxPropfindAnswer.
func (h *handler) tooLarge(w http.ResponseWriter) {
	http.Error(w, fmt.Sprintf("507 insufficient storage: the answer would exceed %d bytes; ask for fewer properties or a smaller depth", MaxPropfindAnswer),
		http.StatusInsufficientStorage)
}

// walk writes the responses for res, whose io/fs name is n, and for all
// its descendants, stopping at the first error, at a failed write to the
// client, and when the answer passes MaxPropfindAnswer.
func (m *multistatus) walk(fsys fs.FS, res resource, n string) error {
	m.response(&res)
	if m.err != nil {
		return m.err
	}
	if m.size() > MaxPropfindAnswer {
		return errAnswerTooLarge
	}
	if !res.fi.IsDir() {
		return nil
	}
	kids, err := children(fsys, res, n)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := m.walk(fsys, k, path.Join(n, k.base)); err != nil {
			return err
		}
	}
	return nil
}

// children returns the resources of the entries of the directory res,
// whose io/fs name is n, described without reading content when fsys
// can (fscap.StatNoReadFS). Entries whose names are not valid io/fs names, and
// those missing or forbidden when described, are left out, as
// webdav.Handler leaves them out; other failures are returned.
func children(fsys fs.FS, res resource, n string) ([]resource, error) {
	ents, err := fs.ReadDir(fsys, n)
	if err != nil {
		return nil, skipMissing(mapError("readdir", res.name, err))
	}
	ms, _ := fsys.(fscap.StatNoReadFS)
	out := make([]resource, 0, len(ents))
	for _, e := range ents {
		if !fs.ValidPath(e.Name()) {
			// A name no fs.FS can open (invalid UTF-8): webdav.Handler,
			// which stats every entry by name, leaves it out.
			continue
		}
		var fi fs.FileInfo
		sized := true
		if ms != nil {
			fi, sized, err = ms.StatNoRead(path.Join(n, e.Name()))
		} else {
			fi, err = e.Info()
		}
		if err != nil {
			// Gone since the listing, or hidden: left out, as
			// webdav.Handler leaves out what it cannot stat.
			if err := skipMissing(mapError("stat", res.name, err)); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, resource{name: path.Join(res.name, e.Name()), base: e.Name(), fi: fi, sized: sized})
	}
	return out, nil
}

// skipMissing returns nil for the errors of a resource that webdav.Handler
// leaves out of a listing (missing or forbidden: *fs.PathError after
// mapError), and err for the others (store failures), which abort it.
func skipMissing(err error) error {
	if _, ok := err.(*fs.PathError); ok {
		return nil
	}
	return err
}
