package shell_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/shell"
)

// TestAwkBounded: awk stops at the line's deadline, when the reader of
// its pipe ends, and sees only the shell's exported variables.
func TestAwkBounded(t *testing.T) {
	s := shell.New(docs())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var errb bytes.Buffer
	st, err := s.Run(ctx, "awk 'BEGIN { while (1); }'", nil, &errb)
	if !errors.Is(err, context.DeadlineExceeded) || st != 124 {
		t.Fatalf("deadline: status %d, err %v, stderr %q", st, err, errb.String())
	}
	if !strings.Contains(errb.String(), "context deadline exceeded") {
		t.Errorf("deadline: stderr %q", errb.String())
	}
	check(t, s, `awk 'BEGIN { while (1) print "y" }' | head -2`, result{"y\ny\n", "", 0})
	check(t, s, `yes | awk '{ print NR }' | head -2`, result{"1\n2\n", "", 0})
	check(t, s, `set -o pipefail; awk 'BEGIN { while (1) print "y" }' | head -1; echo $?`, result{"y\n141\n", "", 0})
	check(t, s, `x=1; awk 'BEGIN { print ENVIRON["x"] "|" ENVIRON["PATH"] "|" ENVIRON["HOME"] }'; export x; awk 'BEGIN { print ENVIRON["x"] }'`, result{"|/usr/bin:/bin|/\n1\n", "", 0}) // the shell's own PATH and HOME
	check(t, s, `awk 'BEGIN { print srand(), rand() == rand() }'`, result{"0 0\n", "", 0})
}
