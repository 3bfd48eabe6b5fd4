package tree

import (
	"unicode/utf8"
)

// checkSlug returns why s cannot be a page slug, or "" if it can. A valid
// slug is an [io/fs.ValidPath] other than ".", in valid UTF-8, with no
// backslash and no control character. (FuzzSlug checks that these rules
// imply io/fs.ValidPath.)
func checkSlug(s string) string {
	if s == "" {
		return "empty slug"
	}
	if s[0] == '/' {
		return "unsafe slug: absolute path"
	}
	return checkSlugFrom(s, 0)
}

// checkSlugFrom is checkSlug for a slug s that is not empty and whose
// first from bytes are whole elements of a valid slug followed by a '/'
// (from is 0, or s[from-1] == '/' and s[:from-1] is valid): it checks the
// rest. A slug that shares a prefix with a valid one needs only the
// elements after that prefix checked.
func checkSlugFrom(s string, from int) string {
	if s[len(s)-1] == '/' {
		return "unsafe slug: trailing slash"
	}
	elem := from // start of the current element
	for i := from; i < len(s); i++ {
		class := slugClass[s[i]]
		if class == plain {
			continue
		}
		switch class {
		case slash:
			if r := checkElem(s[elem:i]); r != "" {
				return r
			}
			elem = i + 1
			continue
		case control:
			return "unsafe slug: control character"
		case backslash:
			return "unsafe slug: backslash"
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return "unsafe slug: invalid UTF-8"
		}
		if r <= 0x9f { // C1 control
			return "unsafe slug: control character"
		}
		i += n - 1
	}
	return checkElem(s[elem:])
}

// Classes of the bytes of a slug.
const (
	plain = iota
	slash
	control
	backslash
	nonASCII
)

var slugClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20 || c == 0x7f:
			t[c] = control
		case c == '/':
			t[c] = slash
		case c == '\\':
			t[c] = backslash
		case c >= utf8.RuneSelf:
			t[c] = nonASCII
		}
	}
	return t
}()

func checkElem(e string) string {
	switch e {
	case "":
		return "unsafe slug: empty element"
	case ".":
		return "unsafe slug: . element"
	case "..":
		return "unsafe slug: .. element"
	}
	return ""
}

// comparePaths compares two slugs in path order: element by element, which
// is byte order with '/' sorting before every other byte. It is the order in
// which [io/fs.WalkDir] visits files.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	ca, cb := a[i], b[i]
	switch {
	case ca == '/':
		return -1
	case cb == '/':
		return 1
	case ca < cb:
		return -1
	}
	return 1
}
