package adopt

import (
	"fmt"
	"unicode/utf8"
)

// Unit is the unit in which a writer counts character offsets.
type Unit uint8

const (
	// NoOffsets: the writer records no character offsets.
	NoOffsets Unit = iota
	// UTF16: offsets count UTF-16 code units, as JavaScript's
	// String.prototype.indexOf and length do (LangChain.js, LlamaIndex
	// TypeScript). A character outside the Basic Multilingual Plane
	// counts two.
	UTF16
	// CodePoints: offsets count Unicode code points, as Python's str
	// does (LangChain and LlamaIndex for Python).
	CodePoints
	// Bytes: offsets count UTF-8 bytes.
	Bytes
	// AutoUnit: UTF-16 units or code points, whichever agrees with every
	// chunk of the page (a chunk's end minus its start is its length in
	// that unit). The two agree on text without characters outside the
	// Basic Multilingual Plane.
	AutoUnit
)

func (u Unit) String() string {
	switch u {
	case NoOffsets:
		return "none"
	case UTF16:
		return "utf16"
	case CodePoints:
		return "codepoints"
	case Bytes:
		return "bytes"
	case AutoUnit:
		return "auto"
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// unitLen returns the length of s in unit u (u is not NoOffsets or
// AutoUnit).
func unitLen(s string, u Unit) int {
	switch u {
	case Bytes:
		return len(s)
	case CodePoints:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// unitPrefix returns the number of bytes of s that hold its first n
// units. ok is false when s has fewer than n units or the n-th unit ends
// inside a character (the first half of a UTF-16 surrogate pair).
func unitPrefix(s string, n int, u Unit) (int, bool) {
	if n < 0 {
		return 0, false
	}
	if u == Bytes {
		if n > len(s) || (n < len(s) && !utf8.RuneStart(s[n])) {
			return 0, false
		}
		return n, true
	}
	got := 0
	for i, r := range s {
		if got == n {
			return i, true
		}
		w := 1
		if u == UTF16 && r >= 0x10000 {
			w = 2
		}
		got += w
		if got > n {
			return 0, false
		}
	}
	if got == n {
		return len(s), true
	}
	return 0, false
}
