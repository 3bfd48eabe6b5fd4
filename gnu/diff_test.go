package gnu

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestDiffRandom compares Diff with GNU diff on random pairs of small
// files over a few distinct lines, where many edit scripts of the same
// length exist and only GNU's choice of one (its middle snakes and its
// shift_boundaries) prints the same hunks: normal and unified output.
func TestDiffRandom(t *testing.T) {
	gnuDiff, err := exec.LookPath("diff")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("GNU diff is needed")
		}
		t.Skip("no GNU diff")
	}
	rng := rand.New(rand.NewSource(1))
	gen := func() string {
		var b strings.Builder
		for n := rng.Intn(24); n > 0; n-- {
			b.WriteString(string(rune('a' + rng.Intn(4))))
			b.WriteByte('\n')
		}
		if rng.Intn(8) == 0 {
			b.WriteString("z")
		}
		return b.String()
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i := 0; i < 300; i++ {
		a, b := gen(), gen()
		if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{"a": {Data: []byte(a)}, "b": {Data: []byte(b)}}
		for _, flags := range [][]string{nil, {"-U2", "--label", "A", "--label", "B"}} {
			cmd := exec.Command(gnuDiff, append(append([]string{}, flags...), "a", "b")...)
			cmd.Dir = dir
			want, _ := cmd.Output()
			var got, errb bytes.Buffer
			Diff(context.Background(), &Env{FS: fsys, Stdout: &got, Stderr: &errb}, append(append([]string{}, flags...), "a", "b"))
			if got.String() != string(want) {
				t.Fatalf("diff %v of %q and %q:\n got %q\nwant %q", flags, a, b, got.String(), want)
			}
		}
	}
}
