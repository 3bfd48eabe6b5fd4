package awk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/awk"
)

// gawkEnv is the environment of both awks in the battery (ENVIRON).
var gawkEnv = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/nonexistent", "TZ=UTC"}

// TestGawk runs the battery of testdata/gawk.txt (its format is described
// at its top) with package awk and with GNU awk 5.2: standard output,
// standard error and exit status are the same. Without gawk the test is
// skipped, or fails under CI.
func TestGawk(t *testing.T) {
	data, err := os.ReadFile("testdata/gawk.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := parseGawkCases(string(data))
	if err != nil {
		t.Fatalf("testdata/gawk.txt:%v", err)
	}
	if len(cases) < 300 {
		t.Fatalf("testdata/gawk.txt holds only %d cases", len(cases))
	}
	t.Logf("%d cases", len(cases))
	ci := os.Getenv("CI") == "true"
	gawk, err := exec.LookPath("gawk")
	if err != nil {
		if ci {
			t.Fatalf("gawk is needed as the oracle of awk: %v", err)
		}
		t.Skipf("gawk is needed as the oracle of awk: %v", err)
	}
	if ver, err := exec.Command(gawk, "--version").Output(); err != nil || !bytes.HasPrefix(ver, []byte("GNU Awk 5.2")) {
		if ci {
			t.Fatalf("GNU awk 5.2 is needed as the oracle of awk: %q, %v", firstLine(ver), err)
		}
		t.Skipf("GNU awk 5.2 is needed as the oracle of awk: %q, %v", firstLine(ver), err)
	}
	root := readOnlyCopy(t, "testdata/gawk", ci)
	fsys := os.DirFS("testdata/gawk")
	for _, c := range cases {
		want, err := c.runGawk(gawk, root)
		if err != nil {
			t.Errorf("testdata/gawk.txt:%d: gawk: %v", c.line, err)
			continue
		}
		got, err := c.run(fsys)
		if err != nil {
			t.Errorf("testdata/gawk.txt:%d: %v", c.line, err)
			continue
		}
		if got != want {
			t.Errorf("testdata/gawk.txt:%d: %s\n  awk: out %q err %q status %d\n gawk: out %q err %q status %d",
				c.line, c.text, got.out, got.err, got.status, want.out, want.err, want.status)
		}
	}
}

// gawkCase is one case of testdata/gawk.txt.
type gawkCase struct {
	line   int      // where it starts in the file
	text   string   // as written
	args   []string // the words after "awk"
	stdin  string   // a file of testdata/gawk ("<")
	here   *string  // standard input ("<<<", newline included)
	merge  bool     // 2>&1
	quiet  bool     // 2>/dev/null
	sorted bool     // | sort
}

// gawkResult is what a run printed and its exit status.
type gawkResult struct {
	out, err string
	status   int
}

// input returns the case's standard input (nil: none).
func (c *gawkCase) input(dir string) ([]byte, error) {
	switch {
	case c.here != nil:
		return []byte(*c.here), nil
	case c.stdin != "":
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.stdin)))
	}
	return nil, nil
}

// finish applies the case's 2>/dev/null and | sort to r.
func (c *gawkCase) finish(r gawkResult) gawkResult {
	if c.quiet {
		r.err = ""
	}
	if c.sorted {
		r.out = sortLines(r.out)
	}
	return r
}

// runGawk runs the case with gawk, called "awk", in dir.
func (c *gawkCase) runGawk(gawk, dir string) (gawkResult, error) {
	in, err := c.input(dir)
	if err != nil {
		return gawkResult{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gawk, c.args...)
	cmd.Args[0] = "awk"
	cmd.Dir, cmd.Env = dir, gawkEnv
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if c.merge {
		cmd.Stderr = &out
	}
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return gawkResult{}, err
	}
	return c.finish(gawkResult{out.String(), errb.String(), cmd.ProcessState.ExitCode()}), nil
}

// run runs the case with package awk over fsys, reading its arguments as
// gawk's command line does, and prints errors as gawk does.
func (c *gawkCase) run(fsys fs.FS) (gawkResult, error) {
	cfg := &awk.Config{FS: fsys, Argv0: "awk", Environ: gawkEnv}
	var srcs []awk.Source
	args := c.args
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		opt := args[0]
		args = args[1:]
		if opt == "--" {
			break
		}
		value := opt[2:]
		if value == "" {
			if len(args) == 0 {
				return gawkResult{}, fmt.Errorf("option %s without its value (a usage error: a case of shell's battery)", opt)
			}
			value, args = args[0], args[1:]
		}
		switch opt[1] {
		case 'F':
			cfg.FieldSep = &value
		case 'v':
			if !strings.Contains(value, "=") {
				return gawkResult{}, fmt.Errorf("-v %s is not var=value (a usage error: a case of shell's battery)", value)
			}
			cfg.Vars = append(cfg.Vars, value)
		case 'f':
			text, err := fs.ReadFile(fsys, value)
			if err != nil {
				return gawkResult{}, fmt.Errorf("-f: %v (a missing program file is a case of shell's battery)", err)
			}
			srcs = append(srcs, awk.Source{Name: value, Text: string(text)})
		case 'e':
			srcs = append(srcs, awk.Source{Text: value})
		default:
			return gawkResult{}, fmt.Errorf("option %s: the battery knows -F, -v, -f, -e and --", opt)
		}
	}
	if len(srcs) == 0 {
		if len(args) == 0 {
			return gawkResult{}, errors.New("no program (a usage error: a case of shell's battery)")
		}
		srcs, args = []awk.Source{{Text: args[0]}}, args[1:]
	}
	cfg.Args = args
	in, err := c.input("testdata/gawk")
	if err != nil {
		return gawkResult{}, err
	}
	cfg.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cfg.Stdout, cfg.Stderr = &out, &errb
	if c.merge {
		cfg.Stderr = &out
	}
	var status int
	prog, err := awk.CompileSources(srcs)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		status, err = prog.Run(ctx, cfg)
		if err != nil {
			fmt.Fprintf(cfg.Stderr, "awk: %v\n", err)
			status = 2
		}
	} else {
		printSyntaxError(cfg.Stderr, err)
		status = 1
	}
	return c.finish(gawkResult{out.String(), errb.String(), status}), nil
}

// printSyntaxError prints a compile error as gawk's command line does:
// the source line and a caret under the error's column, or, for a plain
// error (an invalid regex), one "error:" line.
func printSyntaxError(w io.Writer, err error) {
	var se *awk.SyntaxError
	if !errors.As(err, &se) {
		fmt.Fprintf(w, "awk: %v\n", err)
		return
	}
	file, line := se.Where()
	if se.Plain {
		fmt.Fprintf(w, "awk: %s:%d: error: %s\n", file, line, se.Msg)
		return
	}
	text, col := se.Context()
	pad := []byte(text[:min(col, len(text))])
	for i, b := range pad {
		if b != '\t' {
			pad[i] = ' '
		}
	}
	fmt.Fprintf(w, "awk: %s:%d: %s\nawk: %s:%d: %s^ %s\n", file, line, text, file, line, pad, se.Msg)
}

// sortLines sorts s's lines by their bytes, as sort(1) in the C.UTF-8
// locale does; a last line without a newline gets one.
func sortLines(s string) string {
	if s == "" {
		return s
	}
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	slices.Sort(lines)
	return strings.Join(lines, "")
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// parseGawkCases reads the cases of testdata/gawk.txt; an error starts
// with the line number.
func parseGawkCases(src string) ([]gawkCase, error) {
	p := &caseParser{src: src, line: 1}
	var cases []gawkCase
	for p.pos < len(p.src) {
		end := strings.IndexByte(p.src[p.pos:], '\n')
		if end < 0 {
			end = len(p.src) - p.pos
		}
		if l := strings.TrimSpace(p.src[p.pos : p.pos+end]); l == "" || l[0] == '#' {
			p.pos += min(end+1, len(p.src)-p.pos)
			p.line++
			continue
		}
		c, err := p.parseCase()
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// caseParser reads cases of testdata/gawk.txt.
type caseParser struct {
	src  string
	pos  int
	line int
}

func (p *caseParser) errorf(format string, a ...any) error {
	return fmt.Errorf("%d: %s", p.line, fmt.Sprintf(format, a...))
}

// token is a word or, with op set, one of < <<< 2>&1 2>/dev/null |.
type token struct {
	text string
	op   bool
}

// parseCase reads one case, up to and including its unquoted newline.
func (p *caseParser) parseCase() (gawkCase, error) {
	c := gawkCase{line: p.line}
	start := p.pos
	var toks []token
	for {
		for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
			p.pos++
		}
		if p.pos == len(p.src) || p.src[p.pos] == '\n' {
			c.text = p.src[start:p.pos]
			if p.pos < len(p.src) {
				p.pos++
				p.line++
			}
			break
		}
		tok, err := p.token()
		if err != nil {
			return c, err
		}
		toks = append(toks, tok)
	}
	if len(toks) == 0 || toks[0].op || toks[0].text != "awk" {
		return c, fmt.Errorf("%d: a case begins with the word awk", c.line)
	}
	i := 1
	for ; i < len(toks) && !toks[i].op; i++ {
		c.args = append(c.args, toks[i].text)
	}
	for ; i < len(toks); i++ {
		op := toks[i].text
		var arg string
		if op == "<" || op == "<<<" || op == "|" {
			if i+1 == len(toks) || toks[i+1].op {
				return c, fmt.Errorf("%d: %s without its word", c.line, op)
			}
			i++
			arg = toks[i].text
		}
		switch op {
		case "<":
			c.stdin = arg
		case "<<<":
			s := arg + "\n"
			c.here = &s
		case "2>&1":
			c.merge = true
		case "2>/dev/null":
			c.quiet = true
		case "|":
			if arg != "sort" || i+1 != len(toks) {
				return c, fmt.Errorf("%d: the only pipe is a final | sort", c.line)
			}
			c.sorted = true
		}
	}
	if c.stdin != "" && c.here != nil {
		return c, fmt.Errorf("%d: two standard inputs", c.line)
	}
	return c, nil
}

// token reads the operator or word at p.pos.
func (p *caseParser) token() (token, error) {
	rest := p.src[p.pos:]
	for _, op := range []string{"<<<", "<", "2>&1", "2>/dev/null", "|"} {
		if strings.HasPrefix(rest, op) {
			p.pos += len(op)
			return token{op, true}, nil
		}
	}
	if strings.HasPrefix(rest, "2>") {
		return token{}, p.errorf("the only redirections of standard error are 2>&1 and 2>/dev/null")
	}
	var w strings.Builder
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '|' || ch == '<':
			return token{text: w.String()}, nil
		case ch == '\'':
			end := strings.IndexByte(p.src[p.pos+1:], '\'')
			if end < 0 {
				return token{}, p.errorf("unterminated '")
			}
			s := p.src[p.pos+1 : p.pos+1+end]
			w.WriteString(s)
			p.line += strings.Count(s, "\n")
			p.pos += end + 2
		case ch == '$' && strings.HasPrefix(p.src[p.pos:], "$'"):
			p.pos += 2
			if err := p.ansiC(&w); err != nil {
				return token{}, err
			}
		case ch == '"':
			p.pos++
			if err := p.double(&w); err != nil {
				return token{}, err
			}
		case ch == '\\' && p.pos+1 < len(p.src):
			if p.src[p.pos+1] == '\n' {
				p.line++
			} else {
				w.WriteByte(p.src[p.pos+1])
			}
			p.pos += 2
		case strings.IndexByte("$`;&()>*?[]{}~", ch) >= 0:
			return token{}, p.errorf("unquoted %q: the battery has no shell expansions", ch)
		default:
			w.WriteByte(ch)
			p.pos++
		}
	}
	return token{text: w.String()}, nil
}

// double reads the rest of a "..." word.
func (p *caseParser) double(w *strings.Builder) error {
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		p.pos++
		switch ch {
		case '"':
			return nil
		case '$', '`':
			return p.errorf("%q in double quotes: the battery has no shell expansions", ch)
		case '\\':
			if p.pos < len(p.src) && strings.IndexByte("\\\"$`\n", p.src[p.pos]) >= 0 {
				if p.src[p.pos] == '\n' {
					p.line++
				} else {
					w.WriteByte(p.src[p.pos])
				}
				p.pos++
				continue
			}
			w.WriteByte('\\')
		case '\n':
			p.line++
			w.WriteByte(ch)
		default:
			w.WriteByte(ch)
		}
	}
	return p.errorf(`unterminated "`)
}

// ansiC reads the rest of a $'...' word.
func (p *caseParser) ansiC(w *strings.Builder) error {
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		p.pos++
		switch ch {
		case '\'':
			return nil
		case '\n':
			p.line++
			w.WriteByte(ch)
		case '\\':
			if p.pos == len(p.src) {
				return p.errorf(`unterminated $'`)
			}
			e := p.src[p.pos]
			p.pos++
			r, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', '\'': '\'', '"': '"'}[e]
			if !ok {
				return p.errorf(`$'...' escape \%c: the battery knows \n \t \r \\ \' \"`, e)
			}
			w.WriteByte(r)
		default:
			w.WriteByte(ch)
		}
	}
	return p.errorf(`unterminated $'`)
}

// readOnlyCopy copies the directory src to a temporary directory, bind-
// mounts the copy read-only and returns the mount, so that gawk, run as
// root, cannot write where package awk refuses to. Without the privilege
// to mount, it returns the copy itself, or fails t under CI.
func readOnlyCopy(t *testing.T, src string, ci bool) string {
	t.Helper()
	dir := t.TempDir()
	cp := filepath.Join(dir, "src")
	if err := os.CopyFS(cp, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "--bind", cp, ro).CombinedOutput()
	if err == nil {
		t.Cleanup(func() {
			if out, err := exec.Command("umount", ro).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v %s", ro, err, out)
			}
		})
		out, err = exec.Command("mount", "-o", "remount,bind,ro", ro).CombinedOutput()
	}
	if err != nil {
		if ci {
			t.Fatalf("read-only bind mount: %v %s", err, out)
		}
		t.Logf("no read-only bind mount (%v %s); gawk runs on a writable copy", err, bytes.TrimSpace(out))
		return cp
	}
	return ro
}
