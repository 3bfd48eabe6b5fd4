package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chromafs/chromafs/gnu"
)

// absolute turns p, absolute or relative to dir, into a clean absolute
// slash path; ".." never climbs above "/".
func absolute(dir, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = dir + "/" + p
	}
	return path.Clean("/" + p)
}

// fsName turns a clean absolute path into an fs.FS name.
func fsName(abs string) string {
	if abs == "/" {
		return "."
	}
	return abs[1:]
}

// errText is an error's text as the C library's strerror gives it.
type errText string

func (e errText) Error() string { return string(e) }

var (
	errNotDir   = errText("Not a directory")
	errReadOnly = errText("Read-only file system")
)

// shellError is a diagnostic of the shell in bash's words, "bash: what:
// why": interp prints an *os.PathError's text as is.
func (rs *runState) shellError(what string, why error) error {
	return &os.PathError{Op: rs.s.prog + ":", Path: what, Err: why}
}

// isCommand reports whether name is one of the file commands the shell
// runs (package gnu's, those of WithCommand, and the shell's own).
func (s *Session) isCommand(name string) bool {
	return isBuiltin(name, shellCommand) || s.command(name) != nil
}

// command returns the file command called name (package gnu's or one of
// WithCommand), or nil.
func (s *Session) command(name string) gnu.Func {
	if f, ok := s.extra[name]; ok {
		return f
	}
	f, _ := gnu.Lookup(name)
	return f
}

func status(code int) error {
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(code))
}

// call sees every simple command after expansion, counts it, and
// redirects the builtins that would reach the host to the shell's own
// versions.
func (rs *runState) call(ctx context.Context, args []string) ([]string, error) {
	if args[0] != tickCmd {
		if n := rs.commands.Add(1); n > int64(rs.s.maxCommands) {
			return nil, &LimitError{What: "commands", Limit: rs.s.maxCommands}
		}
	}
	hc := interp.HandlerCtx(ctx)
	for _, a := range args {
		if strings.Contains(a, procSubstMark) {
			fmt.Fprintf(hc.Stderr, "%s: cannot make pipe for process substitution: %s\n", rs.s.prog, errReadOnly)
			return []string{failCmd, "1"}, nil
		}
	}
	// A builtin that writes into a pipe whose reader has ended ends the
	// subshell it runs in (every stage of a pipeline but the last is one),
	// as SIGPIPE ends bash's: at once, silently, with status 141.
	if isBuiltin(args[0], stdoutBuiltin) && brokenPipe(hc.Stdout) {
		return []string{"exit", "141"}, nil
	}
	if isBuiltin(args[0], unsupportedBuiltin) {
		fmt.Fprintf(hc.Stderr, "%s: %s: not supported by this shell\n", rs.s.prog, args[0])
		return []string{failCmd, "2"}, nil
	}
	switch args[0] {
	case "eval":
		return append([]string{evalCmd}, args[1:]...), nil
	case "source", ".":
		return append([]string{sourceCmd}, args[1:]...), nil
	case "type":
		return append([]string{typeCmd}, args[1:]...), nil
	case "hash":
		return append([]string{hashCmd}, args[1:]...), nil
	case "command":
		i := 1
		verbose := false
		for i < len(args) && len(args[i]) > 1 && args[i][0] == '-' {
			if args[i] == "--" {
				i++
				break
			}
			if strings.ContainsAny(args[i], "vV") {
				verbose = true
			}
			i++
		}
		if verbose {
			return append([]string{commandVCmd}, args[1:]...), nil
		}
		if i >= len(args) {
			return []string{"true"}, nil
		}
		if args[i] == "printf" {
			return rs.printfCall(hc, args[i:]), nil
		}
		return args[i:], nil
	case "builtin":
		if len(args) > 1 && args[1] == "printf" {
			return rs.printfCall(hc, args[1:]), nil
		}
		if len(args) > 1 && rs.s.isCommand(args[1]) {
			return args[1:], nil
		}
	case "pwd":
		out := []string{"pwd"}
		for _, a := range args[1:] {
			if a != "-P" {
				out = append(out, a)
			}
		}
		return out, nil
	case "cd":
		return rs.cd(hc, args), nil
	case "exec":
		return rs.execBuiltin(hc, args), nil
	case "printf":
		return rs.printfCall(hc, args), nil
	case "test", "[":
		// -O and -G ask the host's user database; no file of the
		// filesystem is owned by the shell's user.
		out := slices.Clone(args)
		for i := 1; i+1 < len(out); i++ {
			if out[i] == "-O" || out[i] == "-G" {
				out[i+1] = ""
			}
		}
		return out, nil
	}
	return args, nil
}

// cd checks cd's operand in the filesystem and prints bash's diagnostics;
// interp's cd then only moves to a directory that exists.
func (rs *runState) cd(hc interp.HandlerContext, args []string) []string {
	a := args[1:]
	for len(a) > 0 && (a[0] == "-L" || a[0] == "-P") {
		a = a[1:]
	}
	if len(a) > 0 && a[0] == "--" {
		a = a[1:]
	}
	fail := func(format string, v ...any) []string {
		fmt.Fprintf(hc.Stderr, "%s: cd: %s\n", rs.s.prog, fmt.Sprintf(format, v...))
		return []string{failCmd, "1"}
	}
	var target string
	dash := false
	switch len(a) {
	case 0:
		if target = hc.Env.Get("HOME").String(); target == "" {
			return fail("HOME not set")
		}
	case 1:
		target = a[0]
		if target == "-" {
			dash = true
			if target = hc.Env.Get("OLDPWD").String(); target == "" {
				return fail("OLDPWD not set")
			}
		}
	default:
		return fail("too many arguments")
	}
	if target == "" {
		return []string{"true"}
	}
	abs := absolute(hc.Dir, target)
	info, err := fs.Stat(rs.s.fsys, fsName(abs))
	if err != nil {
		return fail("%s: %s", target, gnu.ErrText(err))
	}
	if !info.IsDir() {
		return fail("%s: %s", target, errNotDir)
	}
	if dash {
		return []string{"cd", "-"}
	}
	return []string{"cd", abs}
}

// execBuiltin checks exec's options and command as bash does: a command
// that cannot be run ends the shell with bash's diagnostic and status
// (127 not found, 126 not executable); one that can is run in place of
// the shell, which then ends with its status.
func (rs *runState) execBuiltin(hc interp.HandlerContext, args []string) []string {
	prog := rs.s.prog
	usage := func(format string, v ...any) []string {
		fmt.Fprintf(hc.Stderr, "%s: exec: %s\nexec: usage: exec [-cl] [-a name] [command [argument ...]] [redirection ...]\n", prog, fmt.Sprintf(format, v...))
		return []string{failCmd, "2"}
	}
	i := 1
options:
	for i < len(args) && len(args[i]) > 1 && args[i][0] == '-' {
		a := args[i]
		i++
		if a == "--" {
			break
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'c', 'l':
			case 'a':
				if j+1 == len(a) {
					if i == len(args) {
						return usage("-a: option requires an argument")
					}
					i++
				}
				continue options
			default:
				return usage("-%c: invalid option", a[j])
			}
		}
	}
	if i == len(args) {
		return []string{"exec"}
	}
	name := args[i]
	fail := func(code string, format string, v ...any) []string {
		fmt.Fprintf(hc.Stderr, format, v...)
		return []string{"exit", code}
	}
	if strings.Contains(name, "/") {
		p := name
		if !strings.HasPrefix(p, "/") {
			for strings.HasPrefix(p, "./") {
				p = strings.TrimLeft(p[2:], "/")
			}
			p = strings.TrimSuffix(hc.Dir, "/") + "/" + p
		}
		info, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, name)))
		switch {
		case err != nil:
			return fail("127", "%s: %s: %s\n", prog, p, gnu.ErrText(err))
		case info.IsDir():
			return fail("126", "%[1]s: %[2]s: Is a directory\n%[1]s: exec: %[2]s: cannot execute: Is a directory\n", prog, p)
		}
		return fail("126", "%[1]s: %[2]s: Permission denied\n%[1]s: exec: %[2]s: cannot execute: Permission denied\n", prog, p)
	}
	if !rs.s.isCommand(name) && !isBuiltin(name, programBuiltin) {
		if info, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, name))); err == nil && info.IsDir() {
			// bash, finding no program, tries the name itself.
			return fail("126", "%s: exec: %s: cannot execute: Is a directory\n", prog, name)
		}
		return fail("127", "%s: exec: %s: not found\n", prog, name)
	}
	return append([]string{"exec"}, args[i:]...)
}

// exec runs every command that is neither a function nor an interp
// builtin: the file commands, xargs and the shell's internal commands.
// Nothing else exists.
func (rs *runState) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	name := args[0]
	switch name {
	case tickCmd:
		if n := rs.iterations.Add(1); n > int64(rs.s.maxIterations) {
			return &LimitError{What: "loop iterations", Limit: rs.s.maxIterations}
		}
		return status(hc.LastExitStatus)
	case failCmd:
		n, _ := strconv.Atoi(args[1])
		return status(n)
	case procSubstCmd:
		_, err := io.WriteString(hc.Stdout, procSubstMark)
		return err
	case timeCmd:
		fmt.Fprint(hc.Stderr, "\nreal\t0m0.000s\nuser\t0m0.000s\nsys\t0m0.000s\n")
		return status(hc.LastExitStatus)
	case timePCmd:
		fmt.Fprint(hc.Stderr, "real 0.00\nuser 0.00\nsys 0.00\n")
		return status(hc.LastExitStatus)
	case readFileCmd:
		f, err := rs.open(ctx, args[1], os.O_RDONLY, 0)
		if err != nil {
			fmt.Fprintln(hc.Stderr, err)
			return interp.ExitStatus(1)
		}
		defer f.Close()
		_, err = io.Copy(hc.Stdout, f)
		return err
	case printfCmd:
		return status(bashPrintf(hc.Stdout, hc.Stderr, rs.s.prog, args[1], args[2:], rs.s.clock(), rs.s.loc))
	case evalCmd:
		return rs.eval(ctx, hc, strings.Join(args[1:], " "), "eval: ")
	case sourceCmd:
		return rs.source(ctx, hc, args[1:])
	case typeCmd:
		return rs.typeBuiltin(hc, args[1:])
	case commandVCmd:
		return rs.commandV(hc, args[1:])
	case hashCmd:
		return rs.hash(hc, args[1:])
	case "xargs":
		return status(rs.xargs(ctx, hc, args[1:]))
	case "which":
		return rs.which(hc, args[1:])
	case "bash", "sh":
		st, err := rs.shellCmd(ctx, hc, args)
		if err != nil {
			return err
		}
		return status(st)
	}
	if name == "printf" && len(args) > 1 {
		// exec printf, xargs printf: the program, as bash's printf.
		return status(bashPrintf(hc.Stdout, hc.Stderr, rs.s.prog, args[1], args[2:], rs.s.clock(), rs.s.loc))
	}
	if isBuiltin(name, programBuiltin) {
		// exec echo ...: the builtin stands for the program.
		return hc.Builtin(ctx, args)
	}
	if rs.s.command(name) != nil {
		return status(rs.runCommand(ctx, hc, args))
	}
	if strings.Contains(name, "/") {
		return rs.execPath(hc, name)
	}
	fmt.Fprintf(hc.Stderr, "%s: %s: command not found\n", rs.s.prog, name)
	return interp.ExitStatus(127)
}

// runCommand runs one of package gnu's commands. A command whose output
// pipe was closed by the reader stops as a process stops on SIGPIPE:
// silently, with status 141.
func (rs *runState) runCommand(ctx context.Context, hc interp.HandlerContext, args []string) int {
	f := rs.s.command(args[0])
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := &pipeWriter{w: hc.Stdout, cancel: cancel}
	stdin := hc.Stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	env := &gnu.Env{
		FS:       rs.s.fsys,
		Stdin:    stdin,
		Stdout:   pw,
		Stderr:   &quietAfterPipe{p: pw, w: hc.Stderr},
		Dir:      hc.Dir,
		Now:      rs.s.now,
		Location: rs.s.loc,
	}
	if args[0] == "jq" || args[0] == "awk" {
		env.Environ = exported(hc)
	}
	// find -exec runs its commands as xargs does, writing where find
	// writes.
	env.Exec = func(ctx context.Context, dir string, args []string) (int, error) {
		sub := hc
		sub.Dir = dir
		return rs.runProgram(ctx, sub, args)
	}
	code := f(ctx, env, args[1:])
	if pw.broken.Load() {
		return 141
	}
	return code
}

// execPath answers a command named by a path: the path is looked up in
// the filesystem, where nothing is executable.
func (rs *runState) execPath(hc interp.HandlerContext, name string) error {
	info, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, name)))
	switch {
	case err != nil:
		fmt.Fprintf(hc.Stderr, "%s: %s: %s\n", rs.s.prog, name, gnu.ErrText(err))
		return interp.ExitStatus(127)
	case info.IsDir():
		fmt.Fprintf(hc.Stderr, "%s: %s: Is a directory\n", rs.s.prog, name)
	default:
		fmt.Fprintf(hc.Stderr, "%s: %s: Permission denied\n", rs.s.prog, name)
	}
	return interp.ExitStatus(126)
}

// eval runs src in the current shell, after sealing it as the command
// line was sealed.
func (rs *runState) eval(ctx context.Context, hc interp.HandlerContext, src, what string) error {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %s%s\n", rs.s.prog, what, syntaxErrorText(err))
		return interp.ExitStatus(2)
	}
	if err := rs.seal(file); err != nil {
		return err
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, file); err != nil {
		return err
	}
	return hc.Builtin(ctx, []string{"eval", b.String()})
}

// source runs a file of the filesystem in the current shell. Arguments
// after the file name are ignored.
func (rs *runState) source(ctx context.Context, hc interp.HandlerContext, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(hc.Stderr, "%s: source: filename argument required\nsource: usage: source filename [arguments]\n", rs.s.prog)
		return interp.ExitStatus(2)
	}
	name := fsName(absolute(hc.Dir, args[0]))
	info, err := fs.Stat(rs.s.fsys, name)
	if err == nil && info.IsDir() {
		fmt.Fprintf(hc.Stderr, "%s: %s: is a directory\n", rs.s.prog, args[0])
		return interp.ExitStatus(1)
	}
	var b []byte
	if err == nil {
		b, err = fs.ReadFile(rs.s.fsys, name)
	}
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %s: %s\n", rs.s.prog, args[0], gnu.ErrText(err))
		return interp.ExitStatus(1)
	}
	return rs.eval(ctx, hc, string(b), args[0]+": ")
}

// kind says what bash's type would call name in this shell: "keyword",
// "builtin" or "" (not found).
func (s *Session) kind(name string) string {
	switch {
	case syntax.IsKeyword(name):
		return "keyword"
	case interp.IsBuiltin(name), s.isCommand(name):
		return "builtin"
	}
	return ""
}

func (rs *runState) typeBuiltin(hc interp.HandlerContext, args []string) error {
	mode := ""
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		for _, c := range args[0][1:] {
			switch c {
			case 'a', 'f':
			case 't', 'p', 'P':
				mode = string(c)
			default:
				fmt.Fprintf(hc.Stderr, "%s: type: -%c: invalid option\ntype: usage: type [-afptP] name [name ...]\n", rs.s.prog, c)
				return interp.ExitStatus(2)
			}
		}
		args = args[1:]
	}
	code := 0
	for _, name := range args {
		k := rs.s.kind(name)
		switch {
		case mode == "P" || (k == "" && mode != ""):
			code = 1
		case k == "":
			fmt.Fprintf(hc.Stderr, "%s: type: %s: not found\n", rs.s.prog, name)
			code = 1
		case mode == "t":
			fmt.Fprintln(hc.Stdout, k)
		case mode == "p":
		case k == "keyword":
			fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", name)
		default:
			fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", name)
		}
	}
	return status(code)
}

func (rs *runState) commandV(hc interp.HandlerContext, args []string) error {
	verbose := false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if strings.Contains(args[0], "V") {
			verbose = true
		}
		args = args[1:]
	}
	code := 0
	for _, name := range args {
		k := rs.s.kind(name)
		switch {
		case k == "" && verbose:
			fmt.Fprintf(hc.Stderr, "%s: command: %s: not found\n", rs.s.prog, name)
			code = 1
		case k == "":
			code = 1
		case verbose && k == "keyword":
			fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", name)
		case verbose:
			fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", name)
		default:
			fmt.Fprintln(hc.Stdout, name)
		}
	}
	return status(code)
}

func (rs *runState) hash(hc interp.HandlerContext, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(hc.Stdout, "hash: hash table empty")
		return nil
	}
	code := 0
	for _, name := range args {
		if strings.HasPrefix(name, "-") {
			continue
		}
		if rs.s.kind(name) != "builtin" {
			fmt.Fprintf(hc.Stderr, "%s: hash: %s: not found\n", rs.s.prog, name)
			code = 1
		}
	}
	return status(code)
}

// open opens the files of redirections and $(<file) in the filesystem.
func (rs *runState) open(ctx context.Context, p string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	if strings.Contains(p, procSubstMark) {
		return nil, rs.shellError("cannot make pipe for process substitution", errReadOnly)
	}
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	abs := absolute(hc.Dir, p)
	switch abs {
	case "/dev/null":
		return nullFile{}, nil
	case "/dev/stdout", "/dev/fd/1":
		if write {
			return writeOnly{hc.Stdout}, nil
		}
	case "/dev/stderr", "/dev/fd/2":
		if write {
			return writeOnly{hc.Stderr}, nil
		}
	case "/dev/stdin", "/dev/fd/0":
		if !write && hc.Stdin != nil {
			return readOnly{r: hc.Stdin}, nil
		}
	}
	if p == "" {
		return nil, rs.shellError(p, errText("No such file or directory"))
	}
	name := fsName(abs)
	info, err := fs.Stat(rs.s.fsys, name)
	if write {
		switch {
		case err == nil && info.IsDir():
			return nil, rs.shellError(p, errText("Is a directory"))
		case err == nil:
			return nil, rs.shellError(p, errReadOnly)
		}
		// A new file: its directory decides.
		dinfo, derr := fs.Stat(rs.s.fsys, fsName(path.Dir(abs)))
		switch {
		case derr != nil:
			return nil, rs.shellError(p, errText(gnu.ErrText(derr)))
		case !dinfo.IsDir():
			return nil, rs.shellError(p, errNotDir)
		}
		return nil, rs.shellError(p, errReadOnly)
	}
	if err == nil && info.IsDir() {
		return nil, rs.shellError(p, errText("Is a directory"))
	}
	f, err := rs.s.fsys.Open(name)
	if err != nil {
		return nil, rs.shellError(p, errText(gnu.ErrText(err)))
	}
	// interp would copy any reader but an *os.File into a pipe of its own
	// that nobody closes; this one ends when the statement closes it.
	pr, pw, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	go func() {
		io.Copy(pw, f)
		pw.Close()
		f.Close()
	}()
	return pr, nil
}

type nullFile struct{}

func (nullFile) Read([]byte) (int, error)    { return 0, io.EOF }
func (nullFile) Write(p []byte) (int, error) { return len(p), nil }
func (nullFile) Close() error                { return nil }

type writeOnly struct{ w io.Writer }

func (w writeOnly) Read([]byte) (int, error)    { return 0, syscall.EBADF }
func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w writeOnly) Close() error                { return nil }

// readOnly is a file open for reading; c, if not nil, closes it.
type readOnly struct {
	r io.Reader
	c io.Closer
}

func (r readOnly) Read(p []byte) (int, error) { return r.r.Read(p) }
func (r readOnly) Write([]byte) (int, error)  { return 0, syscall.EBADF }
func (r readOnly) Close() error {
	if r.c != nil {
		return r.c.Close()
	}
	return nil
}

// readDir reads a directory of the filesystem for globbing.
func (rs *runState) readDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	name := fsName(absolute(hc.Dir, p))
	info, err := fs.Stat(rs.s.fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: syscall.ENOTDIR}
	}
	return fs.ReadDir(rs.s.fsys, name)
}

// stat stats a file of the filesystem for test and [[.
func (rs *runState) stat(ctx context.Context, p string, _ bool) (fs.FileInfo, error) {
	if p == "" {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	hc := interp.HandlerCtx(ctx)
	info, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, p)))
	if err != nil {
		return nil, err
	}
	return ownedByNobody{info}, nil
}

// ownedByNobody gives interp's -O and -G tests an owner that is nobody's.
type ownedByNobody struct{ fs.FileInfo }

func (ownedByNobody) Sys() any {
	return &syscall.Stat_t{Uid: math.MaxUint32, Gid: math.MaxUint32}
}

// access answers -r, -w, -x and cd's check: every file is readable,
// none writable (the filesystem is read-only), directories searchable.
func (rs *runState) access(ctx context.Context, p string, mode interp.AccessMode) error {
	hc := interp.HandlerCtx(ctx)
	info, err := fs.Stat(rs.s.fsys, fsName(absolute(hc.Dir, p)))
	switch {
	case err != nil:
		return err
	case mode&interp.AccessWrite != 0:
		return &fs.PathError{Op: "access", Path: p, Err: syscall.EROFS}
	case mode&interp.AccessExec != 0 && !info.IsDir():
		return &fs.PathError{Op: "access", Path: p, Err: fs.ErrPermission}
	}
	return nil
}

// pipeWriter is a command's standard output. When the reader of a pipe
// has gone (EPIPE), it cancels the command, which then ends as if killed
// by SIGPIPE.
type pipeWriter struct {
	w      io.Writer
	cancel context.CancelFunc
	broken atomic.Bool
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		p.broken.Store(true)
		p.cancel()
	}
	return n, err
}

// quietAfterPipe is a command's standard error: silent once its
// standard output is a broken pipe, as a process killed by SIGPIPE
// prints nothing more.
type quietAfterPipe struct {
	p *pipeWriter
	w io.Writer
}

func (q *quietAfterPipe) Write(b []byte) (int, error) {
	if q.p.broken.Load() {
		return len(b), nil
	}
	return q.w.Write(b)
}

// exported returns the shell's exported variables, NAME=value.
func exported(hc interp.HandlerContext) []string {
	env := []string{}
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			env = append(env, name+"="+vr.String())
		}
		return true
	})
	return env
}

// which answers as debianutils' which does when every command is a
// builtin and PATH holds no program: each command of the shell prints its
// own name (where which prints a path such as /usr/bin/ls), any other
// name nothing; the status is 1 when a name is not found, 2 for an
// invalid option. -a changes nothing.
func (rs *runState) which(hc interp.HandlerContext, args []string) error {
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		for _, c := range args[0][1:] {
			switch c {
			case 'a':
			default:
				fmt.Fprintf(hc.Stderr, "Illegal option -%c\n", c)
				fmt.Fprintf(hc.Stdout, "Usage: /usr/bin/which [-a] args\n")
				return interp.ExitStatus(2)
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return interp.ExitStatus(1)
	}
	code := 0
	for _, name := range args {
		if rs.s.kind(name) != "builtin" || strings.Contains(name, "/") {
			code = 1
			continue
		}
		fmt.Fprintln(hc.Stdout, name)
	}
	return status(code)
}
