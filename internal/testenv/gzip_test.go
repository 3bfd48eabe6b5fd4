package testenv

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

// TestGzipPadded: the stream inflates, with its checksum and size
// verified by compress/gzip, to the parts and their padding, for
// paddings that repeat the compressed mebibyte or not, anywhere among
// the parts; and it is small.
func TestGzipPadded(t *testing.T) {
	for _, n := range []int{0, 1, window - 1, window + chunk - 1, window + chunk, window + 2*chunk + 12345} {
		for _, parts := range [][]string{{"{", "", "}"}, {"", "x", "", "yz"}} {
			z := GzipPadded(n, parts...)
			r, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("n %d, %q: %v", n, parts, err)
			}
			var want strings.Builder
			for _, p := range parts {
				if p == "" {
					p = strings.Repeat(" ", n)
				}
				want.WriteString(p)
			}
			if string(got) != want.String() {
				t.Fatalf("n %d, %q: inflates to %d bytes, want %d", n, parts, len(got), want.Len())
			}
			if len(got) > 1<<20 && len(z) > len(got)/500 {
				t.Errorf("n %d, %q: %d bytes compressed, %d inflated", n, parts, len(z), len(got))
			}
		}
	}
}
