package gnu

import (
	"context"
	"maps"
	"slices"
)

// Func is the shape of every command: it parses args (without the
// command's own name) GNU-style, runs, and returns the exit status. It
// never panics on bad input and never writes to FS.
type Func func(ctx context.Context, env *Env, args []string) int

// commands maps each command's name to its function. Nothing changes it
// after initialisation: Lookup and Names are its only views, and a
// caller that needs more commands keeps its own table beside this one
// (as the shell's WithCommand does for a session).
var commands = map[string]Func{
	"awk":       Awk,
	"b2sum":     B2sum,
	"basename":  Basename,
	"cat":       Cat,
	"chmod":     Chmod,
	"comm":      Comm,
	"cp":        Cp,
	"cut":       Cut,
	"diff":      Diff,
	"dirname":   Dirname,
	"du":        Du,
	"egrep":     Egrep,
	"expand":    Expand,
	"fgrep":     Fgrep,
	"file":      File,
	"find":      Find,
	"fold":      Fold,
	"grep":      Grep,
	"head":      Head,
	"jq":        Jq,
	"ln":        Ln,
	"ls":        Ls,
	"md5sum":    Md5sum,
	"mkdir":     Mkdir,
	"mv":        Mv,
	"nl":        Nl,
	"paste":     Paste,
	"rm":        Rm,
	"rmdir":     Rmdir,
	"readlink":  Readlink,
	"realpath":  Realpath,
	"rev":       Rev,
	"rg":        Rg,
	"sed":       Sed,
	"seq":       Seq,
	"sha1sum":   Sha1sum,
	"sha224sum": Sha224sum,
	"sha256sum": Sha256sum,
	"sha384sum": Sha384sum,
	"sha512sum": Sha512sum,
	"sort":      Sort,
	"stat":      Stat,
	"tac":       Tac,
	"tail":      Tail,
	"tee":       Tee,
	"touch":     Touch,
	"tr":        Tr,
	"tree":      Tree,
	"uniq":      Uniq,
	"wc":        Wc,
	"yes":       Yes,
}

// Lookup returns the command called name ("ls", "grep", ...) and whether
// there is one.
func Lookup(name string) (Func, bool) {
	f, ok := commands[name]
	return f, ok
}

// Names returns the names of the commands, sorted; the slice is the
// caller's.
func Names() []string { return slices.Sorted(maps.Keys(commands)) }
