package search

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxSummary is the most runes of a hit's first line that Format prints.
const maxSummary = 120

// Format writes hits one a line, best first, as
//
//	/guides/auth/oauth.mdx:40-58  0.83  first line of the hit
//
// (the path with a leading slash, the line range, the score with two
// decimals, and the first non-blank line of the hit's text, trimmed and
// cut at 120 characters). With verbose, each line is followed by the
// hit's text, indented by four spaces, and a blank line. It returns the
// first write error.
func Format(w io.Writer, hits []Hit, verbose bool) error {
	for _, h := range hits {
		if _, err := fmt.Fprintf(w, "/%s:%d-%d  %.2f  %s\n", h.Path, h.Start, h.End, h.Score, summary(h.Text)); err != nil {
			return err
		}
		if !verbose {
			continue
		}
		var b strings.Builder
		for l := range strings.Lines(h.Text) {
			b.WriteString("    ")
			b.WriteString(strings.TrimRight(l, "\n"))
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
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
