package tree

import "unicode/utf8"

// checkSlug returns why s cannot be a page slug, or "" if it can. A valid
// slug is an [fs.ValidPath] other than ".", in valid UTF-8, with no
// backslash and no control character.
func checkSlug(s string) string {
	if s == "" {
		return "empty slug"
	}
	if s[0] == '/' {
		return "unsafe slug: absolute path"
	}
	if s[len(s)-1] == '/' {
		return "unsafe slug: trailing slash"
	}
	elem := 0 // start of the current element
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == 0x7f:
				return "unsafe slug: control character"
			case c == '\\':
				return "unsafe slug: backslash"
			case c == '/':
				if r := checkElem(s[elem:i]); r != "" {
					return r
				}
				elem = i + 1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return "unsafe slug: invalid UTF-8"
		}
		if r >= 0x80 && r <= 0x9f {
			return "unsafe slug: control character"
		}
		i += n
	}
	if r := checkElem(s[elem:]); r != "" {
		return r
	}
	return ""
}

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
// which [fs.WalkDir] visits files.
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
