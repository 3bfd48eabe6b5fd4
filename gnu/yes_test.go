package gnu

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
)

// failAfter accepts n bytes, then fails every write with EPIPE.
type failAfter struct {
	n   int
	got bytes.Buffer
}

func (w *failAfter) Write(p []byte) (int, error) {
	if w.got.Len()+len(p) > w.n {
		return 0, syscall.EPIPE
	}
	return w.got.Write(p)
}

// TestYes: yes repeats its line until writing fails (a closed pipe) or
// its context ends.
func TestYes(t *testing.T) {
	w := &failAfter{n: 100_000}
	var errb bytes.Buffer
	st := Yes(context.Background(), &Env{Stdout: w, Stderr: &errb}, []string{"a", "b"})
	if st != 1 || w.got.Len() == 0 || strings.Trim(w.got.String(), "ab \n") != "" || !strings.HasPrefix(w.got.String(), "a b\na b\n") {
		t.Errorf("status %d, output %q...", st, w.got.String()[:min(20, w.got.Len())])
	}
	if errb.String() != "yes: write error: Broken pipe\n" {
		t.Errorf("stderr %q", errb.String())
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stop"))
	var out bytes.Buffer
	if st := Yes(ctx, &Env{Stdout: &out, Stderr: &errb}, nil); st != 1 {
		t.Errorf("canceled: status %d", st)
	}
	errb.Reset()
	if st := Yes(context.Background(), &Env{Stdout: &out, Stderr: &errb}, []string{"-n"}); st != 1 || errb.String() != "yes: invalid option -- 'n'\nTry 'yes --help' for more information.\n" {
		t.Errorf("-n: status %d, stderr %q", st, errb.String())
	}
}
