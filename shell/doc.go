// Package shell runs command lines with the grammar of bash over any
// io/fs.FS, in process and read-only: the commands are the GNU front-ends
// of package gnu (ls, cat, find, grep, ...: every name of gnu.Names) and
// those a session adds with WithCommand, the shell's own builtins (echo,
// printf, test, cd, pwd, ...), xargs, which runs only those, and bash and
// sh, which start a shell like this one (in process, within the same
// caps: see Bounded).
//
//	sess := shell.New(fsys)
//	status, err := sess.Run(ctx, "cd /guides && grep -rl webhook . | head -3", os.Stdout, os.Stderr)
//
// The parser and interpreter are mvdan.cc/sh/v3 (syntax and interp).
//
// # Sealed
//
// Nothing of the host is reachable: no process is started, no host file,
// directory, environment variable, user database, process id or terminal
// is consulted. Paths resolve in the fs.FS, whose root is "/"; ".." never
// climbs above it. The environment is fixed (see [Environment]). Writing
// redirections fail as they do on a read-only mount ("bash: x: Read-only
// file system", status 1); /dev/null, /dev/stdout and /dev/stderr are the
// only paths that can be written. A name that is not a command prints
// "bash: NAME: command not found" with status 127, and a path such as
// /bin/ls or ./x is looked up in the fs.FS, where it cannot be run.
//
// # Bounded
//
// Each Run has a deadline (its context and [WithTimeout]), a cap on the
// characters of standard output and standard error together (after which
// the output ends with one line saying how much was cut), a cap on the
// simple commands run and on loop iterations, a cap on pipeline stages,
// checked before anything runs, and 64 shells started by shells. See
// [Option].
//
// A command or builtin that writes into a pipe whose reader has ended
// stops as bash's processes stop on SIGPIPE: silently, with status 141;
// a builtin ends the subshell it runs in (every stage of a pipeline but
// the last), so that while true; do echo y; done | head -1 ends at once.
//
// # Differences from bash
//
//   - The file commands are builtins of the shell: type says "ls is a
//     shell builtin" and command -v ls prints "ls"; PATH changes nothing.
//   - Diagnostics of the shell itself say "bash: ..." where bash -c says
//     "bash: line 1: ...".
//   - Background jobs (cmd &) run in the foreground, one after another.
//   - Process substitution fails as it would without a writable /dev/fd
//     or temporary directory.
//   - $$ is 1 and $PPID is 0; time reports zero durations; ~user is not
//     expanded (there are no users).
//   - type does not know shell functions, and a function named like a
//     builtin the shell replaces (cd, type, eval, source, ...) is not
//     called.
//   - /dev/null, /dev/stdin, /dev/stdout and /dev/stderr exist for
//     redirections only: as operands of a command they are files of the
//     fs.FS.
//   - sh is this shell, not dash; the diagnostics of a nested shell (bash
//     -c, sh -c) start with "bash:" whatever its $0.
//   - Variables, functions and options last for one Run; the working
//     directory (and OLDPWD) last for the Session.
package shell
