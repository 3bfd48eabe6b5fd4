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
	"unicode/utf8"

	"github.com/chromafs/chromafs/adapters/internal/attr"
)

// This file answers PROPFIND without webdav.Handler, whose multistatus
// writer builds encoding/xml tokens for every property of every resource.
// The answers are those webdav.Handler gives (same live properties, values,
// hrefs and statuses; see TestPropfindDifferential), written with
// precomputed fragments.

// errInvalidPropfind is the error of a PROPFIND body that parses but is
// not a valid DAV:propfind (as webdav.Handler's).
var errInvalidPropfind = errors.New("webdav: invalid propfind")

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
	msHeader      = `<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:">`
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
// element: empty elements, at least one (as webdav.Handler requires).
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
// optional include), propname and prop.
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
// file): the live properties with a 200, in order, and the rest of the
// answer, which is the same for every resource of that kind.
type propPlan struct {
	ok []liveProp
	// static, when ok is empty, is the whole propstat list: a propname
	// answer. Otherwise it follows the 200 propstat: a 404 propstat of the
	// named properties the resource does not have, or nothing.
	static []byte
}

// plans returns the answers to pf for collections and for files.
func plans(pf propfindRequest) (dir, file propPlan) {
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
				b = appendEmpty(b, xml.Name{Space: "DAV:", Local: liveProps[p].local})
			}
			return propPlan{static: append(b, propstatOK...)}
		}
		if pf.Allprop != nil {
			// Every property the resource has. DAV:include is ignored, as
			// webdav.Handler ignores it: all the live properties are
			// already listed, and there are no dead ones.
			return propPlan{ok: live}
		}
		var plan propPlan
		var missing []byte
		for _, n := range pf.Prop {
			if p, ok := lookupLive(n); ok && (liveProps[p].dir || !isDir) {
				plan.ok = append(plan.ok, p)
			} else {
				missing = appendEmpty(missing, n)
			}
		}
		if missing != nil {
			plan.static = append(append([]byte(propstatOpen), missing...), propstatNotFd...)
		}
		return plan
	}
	return build(true), build(false)
}

// appendEmpty appends an empty element named n: D:-prefixed in the DAV:
// namespace, with a default namespace declaration otherwise.
func appendEmpty(b []byte, n xml.Name) []byte {
	switch n.Space {
	case "DAV:":
		b = append(b, "<D:"...)
		b = append(b, n.Local...)
	case "":
		b = append(b, '<')
		b = append(b, n.Local...)
	default:
		b = append(b, '<')
		b = append(b, n.Local...)
		b = append(b, ` xmlns="`...)
		b = appendEscaped(b, n.Space)
		b = append(b, '"')
	}
	return append(b, "/>"...)
}

// resource is one resource of a PROPFIND answer.
type resource struct {
	name string      // WebDAV name: "/" or "/a/b"
	base string      // base name of its io/fs name, for the content type
	fi   fs.FileInfo // its metadata
}

// multistatus writes a multistatus answer into a buffer.
type multistatus struct {
	b         []byte
	prefix    string
	dir, file propPlan
}

// bufPool recycles answer buffers; those that grew past maxPooledBuf are
// left to the garbage collector.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledBuf = 4 << 20

// response appends the response for r.
func (m *multistatus) response(r resource) {
	isDir := r.fi.IsDir()
	b := append(m.b, respOpen...)
	href := path.Join(m.prefix, r.name)
	if isDir && href != "/" {
		href += "/"
	}
	b = appendEscaped(b, (&url.URL{Path: href}).EscapedPath())
	b = append(b, hrefClose...)
	plan := &m.file
	if isDir {
		plan = &m.dir
	}
	if len(plan.ok) > 0 {
		b = append(b, propstatOpen...)
		for _, p := range plan.ok {
			b = appendLive(b, p, r)
		}
		b = append(b, propstatOK...)
	}
	b = append(b, plan.static...)
	m.b = append(b, respClose...)
}

// appendLive appends property p of r, with webdav.Handler's value.
func appendLive(b []byte, p liveProp, r resource) []byte {
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
		b = appendEscaped(b, attr.ContentType(r.base, r.fi))
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

// propfind answers a PROPFIND of name, whose metadata is fi, in fsys (the
// request's view), with the given depth (-1: infinity). The answer is
// built in memory and sent only when complete, so that a store failure
// half-way is an error status, not a multistatus that leaves entries out.
func (h *handler) propfind(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string, fi fs.FileInfo, depth int) {
	r.Body = http.MaxBytesReader(w, r.Body, maxPropfindBody)
	pf, err := parsePropfind(r.Body)
	if err != nil {
		h.fail(w, http.StatusBadRequest)
		return
	}
	bp := bufPool.Get().(*[]byte)
	m := &multistatus{b: append((*bp)[:0], msHeader...), prefix: h.prefix}
	m.dir, m.file = plans(pf)
	defer func() {
		if cap(m.b) <= maxPooledBuf {
			*bp = m.b[:0]
			bufPool.Put(bp)
		}
	}()

	n := fsName(name)
	webName := "/"
	if n != "." {
		webName += n
	}
	if err := m.walk(fsys, resource{name: webName, base: path.Base(n), fi: fi}, n, depth); err != nil {
		h.storeFail(w, r, err)
		return
	}
	m.b = append(m.b, msFooter...)
	hd := w.Header()
	hd.Set("Content-Type", "text/xml; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(m.b)))
	w.WriteHeader(http.StatusMultiStatus)
	w.Write(m.b)
}

// walk appends the responses for res, whose io/fs name is n, and for its
// descendants down to depth (-1: all).
func (m *multistatus) walk(fsys fs.FS, res resource, n string, depth int) error {
	m.response(res)
	if depth == 0 || !res.fi.IsDir() {
		return nil
	}
	ents, err := fs.ReadDir(fsys, n)
	if err != nil {
		return skipMissing(mapError("readdir", res.name, err))
	}
	if depth > 0 {
		depth--
	}
	for _, e := range ents {
		if !fs.ValidPath(e.Name()) {
			// A name no fs.FS can open (invalid UTF-8): webdav.Handler,
			// which stats every entry by name, leaves it out.
			continue
		}
		fi, err := e.Info()
		if err != nil {
			// Gone since the listing, or hidden: left out, as
			// webdav.Handler leaves out what it cannot stat.
			if err := skipMissing(mapError("stat", res.name, err)); err != nil {
				return err
			}
			continue
		}
		child := resource{name: path.Join(res.name, e.Name()), base: e.Name(), fi: fi}
		if err := m.walk(fsys, child, path.Join(n, e.Name()), depth); err != nil {
			return err
		}
	}
	return nil
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
