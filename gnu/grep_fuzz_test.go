package gnu

import (
	"strings"
	"testing"
)

// FuzzGrepArgs: the parser never panics, and what it accepts is
// consistent.
func FuzzGrepArgs(f *testing.F) {
	for _, s := range []string{
		"-rnw foo /", "-A2 -m1 -e--- x", "-12 -- -x f", "--in=x", "--no-group -C1 p f", "-d rec p",
		"-f pats -e '' f", "--colour=bad", "-9999999999999999999999 p", "-X egrep p f", "-e\x00-A\x00x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if strings.Contains(s, "\x00") {
			args = strings.Split(s, "\x00")
		} else {
			args = strings.Fields(s)
		}
		o, err := parseGrep(args, testReadFile)
		if err == nil && (o == nil || len(o.patterns) == 0) {
			t.Fatalf("parseGrep(%q) = %+v without patterns", args, o)
		}
		if err != nil && o != nil {
			t.Fatalf("parseGrep(%q) returned options and %v", args, err)
		}
	})
}
