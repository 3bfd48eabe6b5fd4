package search

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxSummary is the most runes of a hit's first line that Format prints.
const maxSummary = 120

// Format writes hits one page a line, best first, and under it the
// page's other ranges (Hit.More), one a line:
//
//	/guides/auth/oauth.mdx:40-58  0.83  first line of the hit
//	  :112-118  first line of another range of the page
//
// (the path with a leading slash, the line range, the score with two
// decimals, and the first non-blank line of the range's text, trimmed
// and cut at 120 characters; a further range has two spaces, a colon
// and its lines). With verbose, each line is followed by its range's
// text, indented by four spaces, and a blank line. It returns the first
// write error.
func Format(w io.Writer, hits []Hit, verbose bool) error {
	var b strings.Builder
	text := func(t string) {
		if !verbose {
			return
		}
		for l := range strings.Lines(t) {
			b.WriteString("    ")
			b.WriteString(strings.TrimRight(l, "\n"))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	for _, h := range hits {
		b.Reset()
		fmt.Fprintf(&b, "/%s:%d-%d  %.2f  %s\n", h.Path, h.Start, h.End, h.Score, summary(h.Text))
		text(h.Text)
		for _, r := range h.More {
			fmt.Fprintf(&b, "  :%d-%d  %s\n", r.Start, r.End, summary(r.Text))
			text(r.Text)
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// summary is the first non-blank line of text, trimmed and cut.
func summary(text string) string {
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if utf8.RuneCountInString(l) > maxSummary {
			r := []rune(l)
			l = string(r[:maxSummary]) + "…"
		}
		return l
	}
	return ""
}
