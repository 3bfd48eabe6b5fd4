package shell

// builtinKind says what a name is to this shell beyond interp's builtins
// and the file commands: a set of the flags below.
type builtinKind uint8

const (
	// shellCommand is a command of the shell itself, run by its exec
	// handler as the file commands are.
	shellCommand builtinKind = 1 << iota
	// unsupportedBuiltin is a bash builtin that interp does not
	// implement (job control, history, completion, the host's limits and
	// masks): the shell says so.
	unsupportedBuiltin
	// programBuiltin is a builtin that exists as a program too
	// (/bin/echo): exec, xargs and find -exec run it as that program,
	// whose output is the builtin's.
	programBuiltin
	// stdoutBuiltin is a builtin that writes to standard output whenever
	// it runs: bash, writing into a pipe whose reader has ended, is
	// killed by SIGPIPE there.
	stdoutBuiltin
)

// builtins is the shell's one table of the names that need more than
// interp gives them.
var builtins = map[string]builtinKind{
	"xargs": shellCommand, "which": shellCommand, "bash": shellCommand, "sh": shellCommand,

	"echo": programBuiltin | stdoutBuiltin, "printf": programBuiltin | stdoutBuiltin, "pwd": programBuiltin | stdoutBuiltin,
	"true": programBuiltin, "false": programBuiltin, "test": programBuiltin, "[": programBuiltin,
	"dirs": stdoutBuiltin, "times": stdoutBuiltin, "help": stdoutBuiltin,

	"bg": unsupportedBuiltin, "fc": unsupportedBuiltin, "fg": unsupportedBuiltin, "jobs": unsupportedBuiltin,
	"kill": unsupportedBuiltin, "newgrp": unsupportedBuiltin, "umask": unsupportedBuiltin,
	"ulimit": unsupportedBuiltin, "bind": unsupportedBuiltin, "caller": unsupportedBuiltin,
	"compgen": unsupportedBuiltin, "complete": unsupportedBuiltin, "compopt": unsupportedBuiltin,
	"disown": unsupportedBuiltin, "enable": unsupportedBuiltin, "history": unsupportedBuiltin,
	"logout": unsupportedBuiltin, "suspend": unsupportedBuiltin,
}

// isBuiltin reports whether name is of kind k.
func isBuiltin(name string, k builtinKind) bool { return builtins[name]&k != 0 }
