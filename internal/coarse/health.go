package coarse

import (
	"regexp"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// ShortRunes is the length, in characters, under which a literal is short
// for a [Class]: distributed Chroma (Chroma Cloud) documents that its
// full-text index answers nothing for a $contains of fewer than 3
// characters.
const ShortRunes = 3

// Class is the kind of condition a coarse search sends for its main
// filter, as far as the known failures of stores' text indexes go: a
// $regex (distributed Chroma's newer token index answers nothing for
// $regex) or a $contains, with a short literal or not (see ShortRunes).
// A store that answers one class correctly may fail another, so the
// self-check (see [Health]) verifies each class on its own.
type Class uint8

const (
	// ClassRegex: the main filter is made of $regex conditions (else of
	// $contains ones).
	ClassRegex Class = 1 << iota
	// ClassShort: a literal has fewer than ShortRunes characters.
	ClassShort
)

// String names c for a log line: "$regex" or "$contains", with " (a
// literal under 3 characters)" for a short one.
func (c Class) String() string {
	s := "$contains"
	if c&ClassRegex != 0 {
		s = "$regex"
	}
	if c&ClassShort != 0 {
		s += " (a literal under 3 characters)"
	}
	return s
}

// ClassOf returns the class of the searches of p for lits (the literals
// p was built from).
func ClassOf(p Plan, lits []string) Class {
	var c Class
	if len(p.Filter.Regexes) > 0 {
		c |= ClassRegex
	}
	for _, l := range lits {
		if utf8.RuneCountInString(l) < ShortRunes {
			c |= ClassShort
			break
		}
	}
	return c
}

// Health is what the coarse filter's self-check learned of one
// collection at one tree version: the classes of search whose answer
// named a page known to contain a literal (verified), and whether an
// answer missed such a page (off). Once off, the coarse filter is not
// used for the collection at that version: every page is a candidate.
//
// The self-check trusts what it has seen: a class verified once is not
// checked again at that version. A Health is safe for concurrent use.
type Health struct {
	verified atomic.Uint32 // bit 1<<Class per verified class
	off      atomic.Bool
}

// Off reports whether the coarse filter is disabled.
func (h *Health) Off() bool { return h.off.Load() }

// Verified reports whether an answer of class c named a page known to
// match.
func (h *Health) Verified(c Class) bool { return h.verified.Load()&(1<<c) != 0 }

// Verify records that an answer of class c named a page known to match.
func (h *Health) Verify(c Class) { h.verified.Or(1 << c) }

// Disable turns the coarse filter off; it reports true to the one call
// that did (the one that warns).
func (h *Health) Disable() bool { return h.off.CompareAndSwap(false, true) }

// Matcher returns a function that reports whether a page's content
// contains one of lits: byte for byte, or with fold under Go's (?i)
// (Unicode simple case folding), which is how grep compares. These are
// the pages that the coarse filter must name.
func Matcher(lits []string, fold bool) func([]byte) bool {
	if !fold {
		return func(data []byte) bool { return ContainsAny(data, lits) }
	}
	quoted := make([]string, len(lits))
	for i, l := range lits {
		quoted[i] = regexp.QuoteMeta(l)
	}
	re := regexp.MustCompile("(?i)(?:" + strings.Join(quoted, "|") + ")")
	return re.Match
}
