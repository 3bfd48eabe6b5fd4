package shell_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/shell"
)

// docs is a small filesystem of docs, with names that look like escapes.
func docs() fstest.MapFS {
	return fstest.MapFS{
		"README.md":            {Data: []byte("# Docs\nwelcome\n")},
		"guides/a.md":          {Data: []byte("hello webhook\nline2\n")},
		"guides/b.md":          {Data: []byte("b\n")},
		"guides/with space.md": {Data: []byte("spaced\n")},
		"odd/a..b.md":          {Data: []byte("dots\n")},
		"odd/etc -> passwd":    {Data: []byte("not a link\n")},
	}
}

type result struct {
	out, err string
	status   int
}

func run(t *testing.T, s *shell.Session, line string) result {
	t.Helper()
	var out, errb bytes.Buffer
	st, err := s.Run(context.Background(), line, &out, &errb)
	if err != nil {
		t.Fatalf("%q: Run: %v", line, err)
	}
	return result{out.String(), errb.String(), st}
}

func check(t *testing.T, s *shell.Session, line string, want result) {
	t.Helper()
	got := run(t, s, line)
	if got != want {
		t.Errorf("%s\n got: out %q err %q status %d\nwant: out %q err %q status %d", line, got.out, got.err, got.status, want.out, want.err, want.status)
	}
}

const rootLs = "README.md\nguides\nodd\n"

// xargsSizeMax is GNU xargs' largest -s in the shell's environment: 2 MiB
// less 2048 and the exported variables (with "_", which bash adds).
func xargsSizeMax() int {
	env := len("_=/usr/bin/xargs") + 1 + len("PWD=/") + 1
	for _, kv := range shell.Environment {
		env += len(kv) + 1
	}
	return 2*1024*1024 - 2048 - env
}

func TestGrammar(t *testing.T) {
	for _, c := range []struct {
		line string
		want result
	}{
		{"ls", result{rootLs, "", 0}},
		{"ls guides | cat -n", result{"     1\ta.md\n     2\tb.md\n     3\twith space.md\n", "", 0}},
		{"cat guides/nope && echo yes || echo no", result{"no\n", "cat: guides/nope: No such file or directory\n", 0}},
		{"true; false", result{"", "", 1}},
		{"echo 'a  b' \"$HOME\" `echo bq` $(echo sub)", result{"a  b / bq sub\n", "", 0}},
		{"cd guides; echo *.md", result{"a.md b.md with space.md\n", "", 0}},
		{"echo guides/*.md", result{"guides/a.md guides/b.md guides/with space.md\n", "", 0}},
		{"echo **/a.md", result{"guides/a.md\n", "", 0}},
		{"echo nomatch*", result{"nomatch*\n", "", 0}},
		{"for f in guides/*; do cat \"$f\"; done", result{"hello webhook\nline2\nb\nspaced\n", "", 0}},
		{"i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done", result{"1\n2\n3\n", "", 0}},
		{"if [ -d guides ]; then echo dir; else echo no; fi", result{"dir\n", "", 0}},
		{"[[ -f README.md && ! -e nope ]] && echo ok", result{"ok\n", "", 0}},
		{"cat nope 2>/dev/null; echo $?", result{"1\n", "", 0}},
		{"cat nope 2>&1 | cat -n", result{"     1\tcat: nope: No such file or directory\n", "", 0}},
		{"cat <<< 'here string'", result{"here string\n", "", 0}},
		{"cat < guides/b.md", result{"b\n", "", 0}},
		{"x=$(cat guides/b.md); echo \"[$x]\"", result{"[b]\n", "", 0}},
		{"printf '%s-%d\\n' a 1 b 2", result{"a-1\nb-2\n", "", 0}},
		{"cd /guides && pwd && cd .. && pwd", result{"/guides\n/\n", "", 0}},
		{"cd /..; pwd", result{"/\n", "", 0}},
		{"ls | xargs -n 2 echo", result{"README.md guides\nodd\n", "", 0}},
		{"printf 'guides/a.md\\nguides/b.md\\n' | xargs cat", result{"hello webhook\nline2\nb\n", "", 0}},
		{"printf 'a.md\\0b.md\\0' | xargs -0 -I{} cat guides/{}", result{"hello webhook\nline2\nb\n", "", 0}},
		{"echo 'guides/with space.md' | xargs -I % cat %", result{"spaced\n", "", 0}},
		{"echo README.md | xargs nosuch", result{"", "xargs: nosuch: No such file or directory\n", 127}},
		{"find guides -name '*.md' | xargs ls -d", result{"guides/a.md\nguides/b.md\n", "ls: cannot access 'guides/with': No such file or directory\nls: cannot access 'space.md': No such file or directory\n", 123}},
		{"nosuch arg", result{"", "bash: nosuch: command not found\n", 127}},
		{"echo $((2+3*4))", result{"14\n", "", 0}},
		{"f() { echo \"fn $1\"; }; f x", result{"fn x\n", "", 0}},
		{"case README.md in *.md) echo md;; *) echo other;; esac", result{"md\n", "", 0}},
		{"if", result{"", "bash: line 1: syntax error: `if` must be followed by a statement list\n", 2}},
		{"time true", result{"", "\nreal\t0m0.000s\nuser\t0m0.000s\nsys\t0m0.000s\n", 0}},
		{"false; for i in 1; do echo $?; done", result{"1\n", "", 0}},
		{"ls -d guides odd | while read d; do echo \"<$d>\"; done", result{"<guides>\n<odd>\n", "", 0}},
		{"read x; echo \"[$x] $?\"", result{"[] 1\n", "", 0}},
		// exec: bash names a path it cannot run by its absolute form.
		{"exec ./nope; echo after", result{"", "bash: /nope: No such file or directory\n", 127}},
		{"cd guides; exec ./a.md", result{"", "bash: /guides/a.md: Permission denied\nbash: exec: /guides/a.md: cannot execute: Permission denied\n", 126}},
		{"exec /guides", result{"", "bash: /guides: Is a directory\nbash: exec: /guides: cannot execute: Is a directory\n", 126}},
		{"exec -a name cat README.md; echo after", result{"# Docs\nwelcome\n", "", 0}},
		{"exec 2>&1; cat nope", result{"cat: nope: No such file or directory\n", "", 1}},
		{"(exec false); echo $?", result{"1\n", "", 0}},
		// printf is the shell's however it is called.
		{"command printf '%.2f|' 3.14159; builtin printf '%5.1f|' 2.25; exec printf '%x\\n' 255", result{"3.14|  2.2|ff\n", "", 0}},
		{"printf -v v '%03d' 7; echo $v; printf '%d\\n' 1x; echo $?", result{"007\n1\n1\n", "bash: printf: 1x: invalid number\n", 0}},
		// xargs -s: at most what the environment leaves of 2 MiB.
		{"echo a | xargs -s 99999999 echo", result{"a\n", fmt.Sprintf("xargs: value 99999999 for -s option should be <= %d\n", xargsSizeMax()), 0}},
		{"echo a | xargs --max-chars=7 echo; echo a b | xargs --max-chars=8 --exit -n2 echo", result{"a\n", "xargs: argument list too long\n", 1}},
		// Long options that take a value do what their short letters do.
		{"echo a b c | xargs --max-args 2 echo; printf 'x,y' | xargs --delimiter=, echo; echo a b | xargs --max-args=0 echo", result{"a b\nc\nx y\n", "xargs: value 0 for -n option should be >= 1\nTry 'xargs --help' for more information.\n", 1}},
		{"echo a b c | xargs -n 2 echo; printf 'x,y' | xargs -d , echo; echo a b | xargs -n 0 echo", result{"a b\nc\nx y\n", "xargs: value 0 for -n option should be >= 1\nTry 'xargs --help' for more information.\n", 1}},
	} {
		check(t, shell.New(docs()), c.line, c.want)
	}
}

// TestReadOnly: every write fails as on a read-only mount; /dev/null is
// writable.
func TestReadOnly(t *testing.T) {
	for _, c := range []struct {
		line string
		want result
	}{
		{"echo x > new.md", result{"", "bash: new.md: Read-only file system\n", 1}},
		{"echo x >> README.md", result{"", "bash: README.md: Read-only file system\n", 1}},
		{"echo x > guides", result{"", "bash: guides: Is a directory\n", 1}},
		{"echo x > nodir/x", result{"", "bash: nodir/x: No such file or directory\n", 1}},
		{"echo x &> out; echo $?", result{"1\n", "bash: out: Read-only file system\n", 0}},
		{"echo x > /dev/null; echo ok", result{"ok\n", "", 0}},
		{"echo x 2>/dev/null >&2", result{"", "", 0}},
		{"echo err > /dev/stderr", result{"", "err\n", 0}},
		{"cat <(ls)", result{"", "bash: cannot make pipe for process substitution: Read-only file system\n", 1}},
		{"cat < <(ls)", result{"", "bash: cannot make pipe for process substitution: Read-only file system\n", 1}},
		{"echo <(ls) >(cat)", result{"", "bash: cannot make pipe for process substitution: Read-only file system\n", 1}},
		{"[ -w README.md ] || echo read-only", result{"read-only\n", "", 0}},
		{"[ -r README.md ] && [ -x guides ] && ! [ -x README.md ] && echo ok", result{"ok\n", "", 0}},
	} {
		check(t, shell.New(docs()), c.line, c.want)
	}
}

// TestEscapes runs attempts to reach the host and shows each gets the
// answer bash gives on a machine whose filesystem holds only the docs
// (and whose commands are builtins of the shell).
func TestEscapes(t *testing.T) {
	cases := []struct {
		line string
		want result
	}{
		{"cat /proc/self/environ", result{"", "cat: /proc/self/environ: No such file or directory\n", 1}},
		{"cd /..; ls", result{rootLs, "", 0}},
		{"cd ../../..; pwd; ls", result{"/\n" + rootLs, "", 0}},
		{"cd /guides/../../..; pwd", result{"/\n", "", 0}},
		{"exec ls", result{rootLs, "", 0}},
		{"exec /bin/sh", result{"", "bash: /bin/sh: No such file or directory\n", 127}},
		{"source /etc/profile", result{"", "bash: /etc/profile: No such file or directory\n", 1}},
		{". ~/.bashrc", result{"", "bash: //.bashrc: No such file or directory\n", 1}},
		{"command ls", result{rootLs, "", 0}},
		{"builtin ls odd", result{"a..b.md\netc -> passwd\n", "", 0}},
		{"echo $(</etc/passwd)", result{"\n", "bash: /etc/passwd: No such file or directory\n", 0}},
		{"env", result{"", "bash: env: command not found\n", 127}},
		{"printenv HOME", result{"", "bash: printenv: command not found\n", 127}},
		{"PATH=/bin:/usr/bin:/sbin ls", result{rootLs, "", 0}},
		{"/bin/ls", result{"", "bash: /bin/ls: No such file or directory\n", 127}},
		{"/usr/bin/env", result{"", "bash: /usr/bin/env: No such file or directory\n", 127}},
		{"./x", result{"", "bash: ./x: No such file or directory\n", 127}},
		{"./README.md", result{"", "bash: ./README.md: Permission denied\n", 126}},
		{"guides/", result{"", "bash: guides/: Is a directory\n", 126}},
		{"cat /etc/passwd", result{"", "cat: /etc/passwd: No such file or directory\n", 1}},
		{"ls /tmp", result{"", "ls: cannot access '/tmp': No such file or directory\n", 2}},
		{"cat 'odd/etc -> passwd'", result{"not a link\n", "", 0}},
		{"cat odd/a..b.md", result{"dots\n", "", 0}},
		{"cat odd/../../../etc/passwd", result{"", "cat: odd/../../../etc/passwd: No such file or directory\n", 1}},
		{"cd ~; pwd", result{"/\n", "", 0}},
		{"echo ~ ~root ~nobody/x", result{"/ ~root ~nobody/x\n", "", 0}},
		{"echo $HOME $USER $HOSTNAME $SHELL $PATH", result{"/ chromafs chromafs /bin/bash /usr/bin:/bin\n", "", 0}},
		{"echo $$ $PPID $BASHPID", result{"1 0 1\n", "", 0}},
		{"echo $UID $EUID", result{"1000 1000\n", "", 0}},
		{"type ls cat; command -v ls; command -V find", result{"ls is a shell builtin\ncat is a shell builtin\nls\nfind is a shell builtin\n", "", 0}},
		{"type -P ls; echo $?", result{"1\n", "", 0}},
		{"command -v sh bash; echo $?", result{"sh\nbash\n0\n", "", 0}},
		{"hash ls; hash sh; hash nosuch", result{"", "bash: hash: nosuch: not found\n", 1}},
		{"pwd -P", result{"/\n", "", 0}},
		{"eval 'cat /etc/shadow'", result{"", "cat: /etc/shadow: No such file or directory\n", 1}},
		{"eval 'cat <(ls)'", result{"", "bash: cannot make pipe for process substitution: Read-only file system\n", 1}},
		{"eval exec nosuch", result{"", "bash: exec: nosuch: not found\n", 127}},
		{"sh -c id", result{"", "bash: id: command not found\n", 127}},
		{"bash -c 'cat /proc/self/environ; cd /..; ls'", result{rootLs, "cat: /proc/self/environ: No such file or directory\n", 0}},
		{"exec sh -c 'PATH=/bin; env'", result{"", "bash: env: command not found\n", 127}},
		{"bash -c id", result{"", "bash: id: command not found\n", 127}},
		{"ulimit -a", result{"", "bash: ulimit: not supported by this shell\n", 2}},
		{"umask", result{"", "bash: umask: not supported by this shell\n", 2}},
		{"kill -9 1", result{"", "bash: kill: not supported by this shell\n", 2}},
		{"read line < /etc/hostname", result{"", "bash: /etc/hostname: No such file or directory\n", 1}},
		{"[ -e /etc/passwd ] || [ -d /tmp ] || echo none", result{"none\n", "", 0}},
		{"[[ -O README.md || -G README.md ]] || [ -O README.md ] || echo nobody", result{"nobody\n", "", 0}},
		{"cat /dev/stdin", result{"", "cat: /dev/stdin: No such file or directory\n", 1}},
		{"echo x > /tmp/x", result{"", "bash: /tmp/x: No such file or directory\n", 1}},
		{"trap 'cat /etc/passwd' EXIT; echo hi", result{"hi\n", "cat: /etc/passwd: No such file or directory\n", 0}},
		{"ls /proc /sys /dev 2>&1 | cat", result{"ls: cannot access '/proc': No such file or directory\nls: cannot access '/sys': No such file or directory\nls: cannot access '/dev': No such file or directory\n", "", 0}},
		{"find / -maxdepth 1 -name 'etc*'", result{"", "", 0}},
		{"cd /tmp", result{"", "bash: cd: /tmp: No such file or directory\n", 1}},
		{"sleep 1000 &", result{"", "bash: sleep: command not found\n", 127}},
		{"which ls sh env; echo $?; realpath /.. /etc/passwd; readlink -f ../../proc/self/exe", result{"ls\nsh\n1\n/\n", "realpath: /etc/passwd: No such file or directory\n", 1}},
		{"realpath -e /proc/self/exe; readlink -e /etc", result{"", "realpath: /proc/self/exe: No such file or directory\n", 1}},
		{`jq -n 'env.HOME, $ENV.GOPATH, input_filename'`, result{"\"/\"\nnull\nnull\n", "", 0}},
		{`jq . /etc/passwd /proc/self/environ`, result{"", "jq: error: Could not open file /etc/passwd: No such file or directory\njq: error: Could not open file /proc/self/environ: No such file or directory\n", 2}},
		{`jq -n 'import "/etc/passwd" as x; 1' 2>&1 | tail -1; jq -n 'include "x"; 1' 2>/dev/null; echo $?`, result{"jq: 1 compile error\n3\n", "", 0}},
		{`jq -n '$__prog_args, $__loc__.file' 2>/dev/null; echo $?`, result{"3\n", "", 0}},
	}
	if len(cases) < 25 {
		t.Fatalf("only %d escape attempts", len(cases))
	}
	for _, c := range cases {
		check(t, shell.New(docs()), c.line, c.want)
	}
}

// TestSessionKeepsDir: the working directory and OLDPWD last from one Run
// to the next; variables do not.
func TestSessionKeepsDir(t *testing.T) {
	s := shell.New(docs())
	check(t, s, "cd guides; x=1", result{"", "", 0})
	if s.Dir() != "/guides" {
		t.Fatalf("Dir = %q", s.Dir())
	}
	check(t, s, "pwd; echo \"[$x]\"; ls", result{"/guides\n[]\na.md\nb.md\nwith space.md\n", "", 0})
	check(t, s, "cd -", result{"/\n", "", 0})
	check(t, s, "pwd; cd nope", result{"/\n", "bash: cd: nope: No such file or directory\n", 1})
	if err := s.Chdir("odd"); err != nil || s.Dir() != "/odd" {
		t.Fatalf("Chdir: %v, Dir %q", err, s.Dir())
	}
	if err := s.Chdir("/README.md"); err == nil {
		t.Fatal("Chdir to a file succeeded")
	}
}

// TestOutputCap: past the cap, output is cut at a character boundary and
// ends with one line saying how much more there was.
func TestOutputCap(t *testing.T) {
	s := shell.New(docs(), shell.WithMaxOutput(10))
	check(t, s, "echo 0123456789abcdef", result{"0123456789\n[output truncated: 7 more characters; narrow the command, e.g. with head, grep -m or a more specific path]\n", "", 0})
	// stdout and stderr share the budget; characters, not bytes, count.
	check(t, s, "echo ééééé; cat nope", result{"ééééé\n\n[output truncated: 33 more characters; narrow the command, e.g. with head, grep -m or a more specific path]\n", "cat:", 1})
	check(t, s, "echo 012345678", result{"012345678\n", "", 0})
}

// TestBounds: a line that would run forever ends by a cap or the
// deadline, with a status and an error that say so.
func TestBounds(t *testing.T) {
	t.Run("infinite output", func(t *testing.T) {
		s := shell.New(docs(), shell.WithMaxOutput(1000))
		var out bytes.Buffer
		st, err := s.Run(context.Background(), "while true; do echo y; done", &out, &out)
		if !errors.Is(err, shell.ErrLimit) || st != 1 {
			t.Fatalf("status %d, err %v", st, err)
		}
		want := strings.Repeat("y\n", 500) + "[output truncated: over 9,000 more characters, and the command line was stopped; narrow the command, e.g. with head, grep -m or a more specific path]\n"
		if out.String() != want {
			t.Fatalf("output:\n%s", out.String()[max(0, out.Len()-300):])
		}
	})
	t.Run("iterations", func(t *testing.T) {
		s := shell.New(docs(), shell.WithMaxIterations(1000))
		var out, errb bytes.Buffer
		st, err := s.Run(context.Background(), "n=0; while [[ 1 ]]; do ((n++)); done", &out, &errb)
		var le *shell.LimitError
		if !errors.As(err, &le) || le.What != "loop iterations" || st != 1 {
			t.Fatalf("status %d, err %v", st, err)
		}
		if errb.String() != "bash: stopped: too many loop iterations (the limit is 1,000)\n" {
			t.Fatalf("stderr %q", errb.String())
		}
		st, err = s.Run(context.Background(), "for i in {1..2000}; do :; done; for ((;;)); do :; done", &out, &errb)
		if !errors.As(err, &le) || le.What != "loop iterations" || st != 1 {
			t.Fatalf("status %d, err %v", st, err)
		}
	})
	t.Run("commands", func(t *testing.T) {
		s := shell.New(docs(), shell.WithMaxCommands(100))
		st, err := s.Run(context.Background(), "f() { f; }; f", nil, nil)
		if !errors.Is(err, shell.ErrLimit) || st != 1 {
			t.Fatalf("status %d, err %v", st, err)
		}
		st, err = s.Run(context.Background(), "xargs -n1 true <<< '"+strings.Repeat("a ", 1000)+"'", nil, nil)
		if !errors.Is(err, shell.ErrLimit) || st != 1 {
			t.Fatalf("xargs: status %d, err %v", st, err)
		}
	})
	t.Run("nested shells", func(t *testing.T) {
		s := shell.New(docs())
		var errb bytes.Buffer
		st, err := s.Run(context.Background(), `export s='bash -c "$s"'; bash -c "$s"`, nil, &errb)
		var le *shell.LimitError
		if !errors.As(err, &le) || le.What != "nested shells" || st != 1 {
			t.Fatalf("status %d, err %v", st, err)
		}
		if errb.String() != "bash: stopped: too many nested shells (the limit is 64)\n" {
			t.Fatalf("stderr %q", errb.String())
		}
		check(t, s, "bash -c 'bash -c \"sh -c \\\"echo deep\\\"\"'", result{"deep\n", "", 0})
	})
	t.Run("deadline", func(t *testing.T) {
		s := shell.New(docs())
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		var errb bytes.Buffer
		st, err := s.Run(ctx, "while true; do x=1; done", nil, &errb)
		if !errors.Is(err, context.DeadlineExceeded) || st != 124 {
			t.Fatalf("status %d, err %v", st, err)
		}
		if errb.String() != "bash: stopped: context deadline exceeded\n" {
			t.Fatalf("stderr %q", errb.String())
		}
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		st, err = s.Run(canceled, "echo never", nil, nil)
		if !errors.Is(err, context.Canceled) || st != 130 {
			t.Fatalf("canceled: status %d, err %v", st, err)
		}
		s = shell.New(docs(), shell.WithTimeout(50*time.Millisecond))
		st, err = s.Run(context.Background(), "for ((;;)); do :; done", nil, nil)
		if !errors.Is(err, context.DeadlineExceeded) || st != 124 {
			t.Fatalf("WithTimeout: status %d, err %v", st, err)
		}
	})
	t.Run("pipeline stages", func(t *testing.T) {
		s := shell.New(docs())
		line := "echo a" + strings.Repeat(" | cat", 999)
		var out, errb bytes.Buffer
		st, err := s.Run(context.Background(), line, &out, &errb)
		var le *shell.LimitError
		if !errors.As(err, &le) || le.What != "pipeline stages" || st != 1 || out.Len() != 0 {
			t.Fatalf("status %d, err %v, out %q", st, err, out.String())
		}
		if errb.String() != "bash: stopped: too many pipeline stages (the limit is 64)\n" {
			t.Fatalf("stderr %q", errb.String())
		}
		// The same through eval, and at the limit it runs.
		st, err = s.Run(context.Background(), "eval '"+line+"'", nil, nil)
		if !errors.As(err, &le) || st != 1 {
			t.Fatalf("eval: status %d, err %v", st, err)
		}
		check(t, s, "echo a"+strings.Repeat(" | cat", 63), result{"a\n", "", 0})
	})
	t.Run("broken pipe", func(t *testing.T) {
		// A command whose reader went away ends quietly, as on SIGPIPE.
		big := fstest.MapFS{"big.txt": {Data: bytes.Repeat([]byte("line\n"), 200_000)}}
		s := shell.New(big)
		check(t, s, "cat big.txt | (read l; echo $l); echo ${PIPESTATUS[@]}", result{"line\n\n", "", 0})
		// So does a loop of builtins, at its first write after the reader
		// ended, long before the iteration cap: the writer's status is 141.
		s = shell.New(big, shell.WithMaxIterations(10_000))
		for _, c := range []struct {
			line string
			want result
		}{
			{"while true; do echo y; done | head -1", result{"y\n", "", 0}},
			{"set -o pipefail; while :; do printf 'y\\n'; done | head -2; echo $?", result{"y\ny\n141\n", "", 0}},
			{"set -o pipefail; for i in $(seq 20000); do echo $i; done | (read l; echo $l); echo $?", result{"1\n141\n", "", 0}},
			{"{ while :; do pwd; done; echo never; } | head -1", result{"/\n", "", 0}},
			{"while :; do echo y; done | xargs -n1 echo | head -1", result{"y\n", "xargs: echo: terminated by signal 13\n", 0}},
		} {
			check(t, s, c.line, c.want)
		}
	})
}

func TestLimitError(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &shell.LimitError{What: "commands", Limit: 5})
	if !errors.Is(err, shell.ErrLimit) {
		t.Fatal("LimitError is not ErrLimit")
	}
}

// TestNoLeak: redirections from files and standard input leave no file
// descriptor or goroutine behind, even when the reader stops early.
func TestNoLeak(t *testing.T) {
	fsys := docs()
	fsys["big.txt"] = &fstest.MapFile{Data: bytes.Repeat([]byte("0123456789\n"), 30_000)}
	s := shell.New(fsys)
	line := "read x < big.txt; cat < guides/b.md; echo $(<README.md) | cat; read y; cat big.txt | (read z)"
	run(t, s, line) // warm up whatever is started once
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("no /proc/self/fd: %v", err)
		}
		return len(ents)
	}
	settle := func(want int, count func() int) int {
		n := count()
		for i := 0; i < 200 && n > want; i++ {
			time.Sleep(10 * time.Millisecond)
			n = count()
		}
		return n
	}
	fd0, g0 := fds(), runtime.NumGoroutine()
	for range 20 {
		if got := run(t, s, line); got.out != "b\n# Docs welcome\n" || got.status != 0 {
			t.Fatalf("%+v", got)
		}
	}
	if n := settle(fd0, fds); n > fd0 {
		t.Errorf("open file descriptors: %d before, %d after", fd0, n)
	}
	if n := settle(g0, runtime.NumGoroutine); n > g0 {
		t.Errorf("goroutines: %d before, %d after", g0, n)
	}
}

// TestWithCommand: a command added with WithCommand runs like package
// gnu's: with the working directory, in pipelines, under xargs and
// find -exec, and type and command -v know it.
func TestWithCommand(t *testing.T) {
	where := func(ctx context.Context, env *gnu.Env, args []string) int {
		fmt.Fprintf(env.Stdout, "%s %s\n", env.Dir, strings.Join(args, ","))
		if len(args) == 0 {
			fmt.Fprintln(env.Stderr, "where: no operand")
			return 2
		}
		return 0
	}
	s := shell.New(docs(), shell.WithCommand("where", where))
	for _, c := range []struct {
		line string
		want result
	}{
		{"cd /guides && where a b | cat", result{out: "/guides a,b\n"}},
		// The working directory persists from one line to the next.
		{"echo x y | xargs where", result{out: "/guides x,y\n"}},
		{"find /guides -name b.md -exec where {} +", result{out: "/guides /guides/b.md\n"}},
		{"type where; command -v where", result{out: "where is a shell builtin\nwhere\n"}},
		{"cd / && where", result{out: "/ \n", err: "where: no operand\n", status: 2}},
	} {
		check(t, s, c.line, c.want)
	}
	check(t, shell.New(docs()), "where", result{err: "bash: where: command not found\n", status: 127})
}
