package shell

import (
	"testing"

	"mvdan.cc/sh/v3/interp"

	"github.com/chromafs/chromafs/gnu"
)

// TestBuiltins checks the builtin table against interp and package gnu:
// the shell's own commands are neither's, the builtins it runs as
// programs or watches for a broken pipe are interp's, and no name is
// both run and refused.
func TestBuiltins(t *testing.T) {
	for name, k := range builtins {
		if k == 0 {
			t.Errorf("%q: no kind", name)
		}
		_, isGNU := gnu.Lookup(name)
		switch {
		case k&shellCommand != 0 && (interp.IsBuiltin(name) || isGNU):
			t.Errorf("%q: a command of the shell's own that interp or gnu has", name)
		case k&(programBuiltin|stdoutBuiltin) != 0 && !interp.IsBuiltin(name):
			t.Errorf("%q: a builtin that interp lacks", name)
		case k&unsupportedBuiltin != 0 && k != unsupportedBuiltin:
			t.Errorf("%q: refused and run", name)
		}
	}
	s := New(nil)
	for _, tt := range []struct {
		name    string
		command bool
	}{
		{"xargs", true}, {"which", true}, {"sh", true}, {"ls", true}, {"sed", true},
		{"echo", false}, {"kill", false}, {"nosuch", false},
	} {
		if got := s.isCommand(tt.name); got != tt.command {
			t.Errorf("isCommand(%q) = %v; want %v", tt.name, got, tt.command)
		}
	}
}
