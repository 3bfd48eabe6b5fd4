package awk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/awk"
)

// run compiles and runs src over stdin with args as operands in fsys.
func run(t testing.TB, ctx context.Context, src, stdin string, cfg awk.Config) (out, errOut string, status int, err error) {
	t.Helper()
	prog, err := awk.Compile(src)
	if err != nil {
		return "", "", -1, err
	}
	var o, e bytes.Buffer
	cfg.Stdin = strings.NewReader(stdin)
	cfg.Stdout, cfg.Stderr = &o, &e
	status, err = prog.Run(ctx, &cfg)
	return o.String(), e.String(), status, err
}

var testFS = fstest.MapFS{
	"a.txt":     {Data: []byte("1 one\n2 two\n3 three\n")},
	"dir/b.txt": {Data: []byte("x:y:z\n")},
}

func TestRun(t *testing.T) {
	tests := []struct {
		name, src, in string
		args          []string
		want          string
		status        int
	}{
		{"print field", `{print $2}`, "a b c\nd e f\n", nil, "b\ne\n", 0},
		{"sum", `{s += $1} END {print s}`, "1\n2\n3.5\n", nil, "6.5\n", 0},
		{"count idiom", `{c[$1]++} END {for (k in c) print k, c[k]}`, "b\na\nb\n", nil, "b 2\na 1\n", 0},
		{"dedupe", `!seen[$0]++`, "x\ny\nx\n", nil, "x\ny\n", 0},
		{"range", `/b/,/d/`, "a\nb\nc\nd\ne\n", nil, "b\nc\nd\n", 0},
		{"NR range", `NR>=2 && NR<=3`, "1\n2\n3\n4\n", nil, "2\n3\n", 0},
		{"strnum compare", `$1 == 10`, "10\n1e1\n010\nten\n", nil, "10\n1e1\n010\n", 0},
		{"string compare", `BEGIN { print ("10" < "9"), (10 < 9) }`, "", nil, "1 0\n", 0},
		{"uninit", `BEGIN { print x+0, "[" x "]", (x == 0), (x == "") }`, "", nil, "0 [] 1 1\n", 0},
		{"NF assign", `{NF = 2; print; $5 = "e"; print}`, "a b c d\n", nil, "a b\na b   e\n", 0},
		{"OFS rebuild", `BEGIN {OFS = "-"} {$1 = $1; print}`, "a  b\tc\n", nil, "a-b-c\n", 0},
		{"FS regex", `BEGIN {FS = "[,;]+"} {print $2, NF}`, "a,,b;c\n", nil, "b 3\n", 0},
		{"FS tab", `BEGIN {FS = "\t"} {print $2}`, "a b\tc\n", nil, "c\n", 0},
		{"FS empty", `BEGIN {FS = ""} {print $3, NF}`, "héllo\n", nil, "l 5\n", 0},
		{"paragraphs", `BEGIN {RS = ""} {print NR ": " $1 "/" $NF}`, "\n\na b\nc\n\n\nd\n\n", nil, "1: a/c\n2: d/d\n", 0},
		{"regex RS", `BEGIN {RS = "[0-9]+"} {print "<" $0 ">"}`, "a1b22c", nil, "<a>\n<b>\n<c>\n", 0},
		{"printf", `BEGIN {printf "%5.2f|%-4s|%03d|%x|%c|%e|%s\n", 3.14159, "ab", 7, 255, 65, 1234.5, 1e20}`, "", nil, " 3.14|ab  |007|ff|A|1.234500e+03|100000000000000000000\n", 0},
		{"printf star", `BEGIN {printf "%*d|%.*f\n", 4, 7, 1, 2.25}`, "", nil, "   7|2.2\n", 0},
		{"gsub amp", `BEGIN {s = "abc"; gsub(/b/, "[&]", s); t = "abc"; gsub(/b/, "\\&", t); print s, t}`, "", nil, "a[b]c a&c\n", 0},
		{"gsub empty", `BEGIN {s = "abc"; n = gsub(/x*/, "-", s); print n, s}`, "", nil, "4 -a-b-c-\n", 0},
		{"sub field", `{sub(/o+/, "0", $2); print; print NF}`, "a foo b\n", nil, "a f0 b\n3\n", 0},
		{"match", `{if (match($0, /v[0-9.]+/)) print substr($0, RSTART, RLENGTH), RSTART}`, "app v1.2.3 x\n", nil, "v1.2.3 5\n", 0},
		{"split seps", `BEGIN {n = split("a1b22c", p, /[0-9]+/, s); print n, p[3], s[2]}`, "", nil, "3 c 22\n", 0},
		{"substr utf8", `BEGIN {print substr("héllo", 2, 3), length("héllo"), index("héllo", "l")}`, "", nil, "éll 5 3\n", 0},
		{"functions", `function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) } BEGIN { print fib(20) }`, "", nil, "6765\n", 0},
		{"array by ref", `function f(a, k) { a[k] = 1 } BEGIN { f(x, "q"); print length(x), ("q" in x) }`, "", nil, "1 1\n", 0},
		{"scalar by value", `function f(v) { v = 5 } BEGIN { y = 1; f(y); print y }`, "", nil, "1\n", 0},
		{"locals", `function f(n,   i, s) { for (i = 1; i <= n; i++) s = s i; return s } BEGIN { print f(3), i "" }`, "", nil, "123 \n", 0},
		{"multi subscripts", `BEGIN { a[1, 2] = 3; if ((1, 2) in a) print "yes"; for (k in a) { split(k, p, SUBSEP); print p[1] p[2] } }`, "", nil, "yes\n12\n", 0},
		{"delete", `BEGIN { a[1]; a[2]; delete a[1]; print length(a); delete a; print length(a) }`, "", nil, "1\n0\n", 0},
		{"loops", `BEGIN { while (i < 3) i++; do j++; while (j < 5); for (;;) { k++; if (k > 6) break }; print i, j, k }`, "", nil, "3 5 7\n", 0},
		{"next", `NR == 1 { next } { print }`, "a\nb\n", nil, "b\n", 0},
		{"exit status", `{ print } NR == 1 { exit 4 } END { print "end" }`, "a\nb\n", nil, "a\nend\n", 4},
		{"exit in END", `END { exit 2; print "no" }`, "", nil, "", 2},
		{"getline var", `NR == 1 { getline x; print "x=" x, NR, $0 }`, "a\nb\nc\n", nil, "x=b 2 a\n", 0},
		{"getline file", `BEGIN { while ((getline l < "a.txt") > 0) n++; print n, l }`, "", nil, "3 3 three\n", 0},
		{"getline missing", `BEGIN { print (getline l < "nope") }`, "", nil, "-1\n", 0},
		{"operands", `{ print FILENAME, x, $1 }`, "", []string{"x=1", "a.txt", "x=2", "dir/b.txt"}, "a.txt 1 1\na.txt 1 2\na.txt 1 3\ndir/b.txt 2 x:y:z\n", 0},
		{"ARGV", `BEGIN { print ARGC, ARGV[0], ARGV[1] }`, "", []string{"a.txt"}, "2 awk a.txt\n", 0},
		{"nextfile", `FNR == 2 { nextfile } { print FILENAME, FNR }`, "", []string{"a.txt", "a.txt"}, "a.txt 1\na.txt 1\n", 0},
		{"numbers", `BEGIN { print 1/3, 2^53, 1e6, 0.1 + 0.2, 100/2, -0, 1e300*1e300, log(0), 2**3**2, -2^2 }`, "", nil, "0.333333 9007199254740992 1000000 0.3 50 0 +inf -inf 512 -4\n", 0},
		{"CONVFMT OFMT", `BEGIN { CONVFMT = "%.2g"; x = 3.14159; y = x ""; OFMT = "%.3f"; print y, x, 10 }`, "", nil, "3.1 3.142 10\n", 0},
		{"string to number", `BEGIN { print "3x" + 1, " 12 " + 0, ".5" + 0, "1e3" + 0, "0x1A" + 0, "+inf" + 0 }`, "", nil, "4 12 0.5 1000 0 +inf\n", 0},
		{"source hex", `BEGIN { print 0x10, 011, 019 }`, "", nil, "16 9 19\n", 0},
		{"regex dynamic", `BEGIN { re = "^a.c$"; print ("abc" ~ re), ("abcd" ~ re), ("a\nc" ~ re) }`, "", nil, "1 0 1\n", 0},
		{"bracket classes", `/^[[:upper:]][[:digit:]]+$/`, "A12\nb12\nC\n", nil, "A12\n", 0},
		{"length forms", `{ print length, length(), length($0) }`, "héllo\n", nil, "5 5 5\n", 0},
		{"print parens", `BEGIN { print("a", "b"); print ("a")("b") }`, "", nil, "a b\nab\n", 0},
		{"comparison in print parens", `BEGIN { print (2 > 1) }`, "", nil, "1\n", 0},
		{"continuation", "BEGIN { x = 1 + \\\n 2; print x } # comment", "", nil, "3\n", 0},
		{"semicolons newlines", "BEGIN {\n if (1)\n  print \"a\"\n else\n  print \"b\"\n}\n", "", nil, "a\n", 0},
		{"tolower", `BEGIN { print tolower("ÀBC"), toupper("straße") }`, "", nil, "àbc STRAßE\n", 0},
		{"srand", `BEGIN { a = srand(3); b = srand(); x = rand(); srand(); y = rand(); print b, (x == y), (x >= 0 && x < 1) }`, "", nil, "3 1 1\n", 0},
		{"stderr", `BEGIN { print "e" > "/dev/stderr"; print "o" > "/dev/stdout" }`, "", nil, "o\n", 0},
		{"ENVIRON sealed", `BEGIN { n = 0; for (k in ENVIRON) n++; print n }`, "", nil, "0\n", 0},
		{"in precedence", `BEGIN { a["x"]; print "x" in a, !("y" in a) }`, "", nil, "1 1\n", 0},
		{"ternary assoc", `BEGIN { x = 2; print x == 1 ? "one" : x == 2 ? "two" : "many" }`, "", nil, "two\n", 0},
		{"incdec", `BEGIN { i = 5; print i++ + ++i, i--, --i }`, "", nil, "12 7 5\n", 0},
		{"field expr", `{ i = 1; print $i++, i, $(i+1), $NF-1 }`, "a b 3\n", nil, "0 1 b 2\n", 0},
		{"close", `BEGIN { getline a < "a.txt"; close("a.txt"); getline b < "a.txt"; print a == b, close("nope") }`, "", nil, "1 -1\n", 0},
		{"crlf kept", `{ print length($2) }`, "a b\r\n", nil, "2\n", 0},
		{"printf %c unicode", `BEGIN { printf "%c%c|%5s|%-3c|\n", 233, "élan", "é", "x" }`, "", nil, "éé|    é|x  |\n", 0},
		{"printf specials", `BEGIN { printf "%d %f %5.1e\n", -log(0), log(0), -log(0) }`, "", nil, "+inf -inf  +inf\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, st, err := run(t, context.Background(), tc.src, tc.in, awk.Config{Args: tc.args, FS: testFS})
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if out != tc.want || st != tc.status {
				t.Errorf("got %q status %d, want %q status %d", out, st, tc.want, tc.status)
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{print $1`, "cmd. line:1: unexpected newline or end of string"},
		{`BEGIN { print 1 +* 2 }`, "cmd. line:1: syntax error"},
		{"BEGIN {\n x = )\n}", "cmd. line:2: syntax error"},

		{`BEGIN { break }`, "cmd. line:1: `break' is not allowed outside a loop"},
		{`BEGIN { return }`, "cmd. line:1: `return' used outside function context"},
		{`/a(/`, "cmd. line:1: Unmatched ( or \\(: /a(/"},
		{`BEGIN { print substr("a") }`, "cmd. line:1: 1 is invalid as number of arguments for substr"},
		{`BEGIN { x = "abc }`, "cmd. line:1: unterminated string"},
		{`function f(a, a) {}`, "cmd. line:1: function `f': parameter #2, `a', duplicates parameter #1"},
	}
	for _, tc := range tests {
		_, err := awk.Compile(tc.src)
		var se *awk.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *SyntaxError", tc.src, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.src, err, tc.want)
		}
	}
	_, err := awk.CompileSources([]awk.Source{{Name: "a.awk", Text: "BEGIN {}"}, {Name: "b.awk", Text: "\n{ x = ) }"}})
	if err == nil || err.Error() != "b.awk:2: syntax error" {
		t.Errorf("got %v, want b.awk:2: syntax error", err)
	}
}

func TestRuntimeErrors(t *testing.T) {
	tests := []struct {
		src, in string
		args    []string
		want    string
		is      error
	}{
		{`BEGIN { x = 0; print 1 / x }`, "", nil, "cmd. line:1: fatal: division by zero attempted", nil},
		{`{ x = 0; print 1 % x }`, "a\n", nil, "cmd. line:1: (FILENAME=- FNR=1) fatal: division by zero attempted in `%'", nil},
		{`{ print }`, "", []string{"nope"}, "fatal: cannot open file `nope' for reading: No such file or directory", nil},
		{`BEGIN { print "x" > "out.txt" }`, "", nil, "cmd. line:1: fatal: cannot redirect to `out.txt': Read-only file system", nil},
		{`BEGIN { print "x" | "sort" }`, "", nil, "cmd. line:1: fatal: cannot open pipe `sort': running commands is not supported", nil},
		{`BEGIN { x = 1; x[1] = 2 }`, "", nil, "cmd. line:1: fatal: attempt to use scalar `x' as an array", nil},
		{`BEGIN { a[1]; print a }`, "", nil, "cmd. line:1: fatal: attempt to use array `a' in a scalar context", nil},
		{`function f(n) { return f(n+1) } BEGIN { f(1) }`, "", nil, "cmd. line:1: fatal: function `f': call depth exceeds 100", awk.ErrLimit},
		{`BEGIN { s = "x"; while (1) s = s s }`, "", nil, "cmd. line:1: fatal: string of", awk.ErrLimit},
		{`BEGIN { while (1) a[i++] }`, "", nil, "cmd. line:1: fatal: array `a' has more than 1000 elements", awk.ErrLimit},
		{`BEGIN { printf "%s %s\n", "a" }`, "", nil, "cmd. line:1: fatal: not enough arguments to satisfy format string", nil},
		{`BEGIN { s = sprintf("%10000s", ""); while (1) a[i++ % 500] = s i }`, "", nil, "cmd. line:1: fatal: arrays hold more than 262144 bytes", awk.ErrLimit},
		{`BEGIN { $(-1) = 1 }`, "", nil, "cmd. line:1: fatal: attempt to access field -1", nil},
	}
	for _, tc := range tests {
		_, _, st, err := run(t, context.Background(), tc.src, tc.in, awk.Config{Args: tc.args, FS: testFS, MaxDepth: 100, MaxString: 1 << 16, MaxArray: 1000})
		var re *awk.RuntimeError
		if !errors.As(err, &re) || st != 2 {
			t.Errorf("%s: got %v status %d, want a *RuntimeError and status 2", tc.src, err, st)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.src, err, tc.want)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v is not %v", tc.src, err, tc.is)
		}
	}
}

func TestWarnings(t *testing.T) {
	out, errOut, st, err := run(t, context.Background(), `BEGIN { r = system("ls"); "date" | getline d; print r, d "|" }`, "", awk.Config{})
	if err != nil || st != 0 {
		t.Fatalf("status %d, %v", st, err)
	}
	if out != "127 |\n" {
		t.Errorf("got %q", out)
	}
	for _, w := range []string{"awk: cmd. line:1: warning: system(\"ls\"): running commands is not supported\n", "warning: cannot run command `date' for getline"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
}

// TestDeadline: an endless loop, in BEGIN or over an endless input,
// ends when the context does.
func TestDeadline(t *testing.T) {
	for _, src := range []string{`BEGIN { while (1); }`, `BEGIN { for (;;) x++ }`, `function f() { while (1) {} } BEGIN { f() }`, `{ n++ }`} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		prog, err := awk.Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		st, err := prog.Run(ctx, &awk.Config{Stdin: endless{}, Stdout: &bytes.Buffer{}})
		cancel()
		if st != 2 || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: status %d, %v; want 2 and the deadline", src, st, err)
		}
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "ab\n"[i%3]
	}
	return len(p), nil
}

// TestEarlyExit: exit stops reading an endless input.
func TestEarlyExit(t *testing.T) {
	prog, err := awk.Compile(`NR == 3 { print; exit }`)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := prog.Run(context.Background(), &awk.Config{Stdin: endless{}, Stdout: &out})
	if err != nil || st != 0 || out.String() != "ab\n" {
		t.Errorf("got %q status %d %v", out.String(), st, err)
	}
}

func FuzzRun(f *testing.F) {
	for _, s := range []string{`{print $1}`, `BEGIN{x["a"]++; for(k in x) print k}`, `/a/,/b/{gsub(/x*/,"&&")}`, `function f(a){return f(a)} BEGIN{f()}`, `BEGIN{printf "%*.*d%c", 3, 2, 1, 300}`, `{$5=$1; NF=2; print length()}`, `BEGIN{RS="";FS=","} {print $2}`, `BEGIN { while (1) s = s "x" }`, `BEGIN{IGNORECASE=1; PROCINFO["sorted_in"]="@val_num_desc"} {a[$1]=gensub(/(.)(.)/,"\\2\\1","g")} END{n=asort(a,b); for(k in b) print k, b[k]}`, `BEGIN{FS="\\y"; RS="x+"} {print $1 ~ /\\<a/}`} {
		f.Add(s, "a b\nc d\n\ne")
	}
	f.Fuzz(func(t *testing.T, src, in string) {
		prog, err := awk.Compile(src)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err = prog.Run(ctx, &awk.Config{Stdin: strings.NewReader(in), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, FS: testFS, MaxDepth: 50, MaxString: 1 << 14, MaxArray: 1000})
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%q: %v", src, err)
		}
	})
}

func Example() {
	prog, err := awk.Compile(`{ n[$1]++ } END { for (k in n) printf "%-6s %d\n", k, n[k] }`)
	if err != nil {
		fmt.Println(err)
		return
	}
	status, err := prog.Run(context.Background(), &awk.Config{
		Stdin:  strings.NewReader("GET /a\nPOST /b\nGET /c\n"),
		Stdout: os.Stdout,
	})
	fmt.Println(status, err)
	// Output:
	// GET    2
	// POST   1
	// 0 <nil>
}

// TestHugePrograms: deep nesting and long chains are errors, not a
// blown stack.
func TestHugePrograms(t *testing.T) {
	for _, src := range []string{
		"BEGIN { x = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " }",
		"BEGIN { x = " + strings.Repeat("-", 100000) + "1 }",
		"BEGIN { x = 1" + strings.Repeat(" + 1", 100000) + " }",
		"BEGIN { x = 1" + strings.Repeat(" 1", 100000) + " }",
		"BEGIN " + strings.Repeat("{", 100000) + strings.Repeat("}", 100000),
		"BEGIN { x = $" + strings.Repeat("$", 100000) + "1 }",
	} {
		_, err := awk.Compile(src)
		var se *awk.SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "program nested too deeply") && !strings.Contains(se.Msg, "expression too long") {
			t.Errorf("%.30s...: got %v", src, err)
		}
	}
	prog, err := awk.Compile("BEGIN { x = 1" + strings.Repeat(" + 1", 9000) + "; print x }")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := prog.Run(context.Background(), &awk.Config{Stdout: &out}); err != nil || out.String() != "9001\n" {
		t.Errorf("a long chain: %q %v", out.String(), err)
	}
}

// TestArrayBytes: a function's local arrays stop counting towards the
// arrays' byte limit when it returns, and delete uncounts too.
func TestArrayBytes(t *testing.T) {
	for _, src := range []string{
		`function f(n,   t, i) { for (i = 0; i < 50; i++) t[i] = sprintf("%1000s", i); return length(t) } BEGIN { for (j = 0; j < 100; j++) s += f(); print s }`,
		`BEGIN { for (j = 0; j < 100; j++) { for (i = 0; i < 50; i++) t[i] = sprintf("%1000s", i); s += length(t); delete t }; print s }`,
		`BEGIN { for (j = 0; j < 100; j++) { n = split(sprintf("%2000s", "x"), t, ""); s += n / 40 }; print s }`,
	} {
		out, _, st, err := run(t, context.Background(), src, "", awk.Config{MaxString: 1 << 16})
		if err != nil || st != 0 || out != "5000\n" {
			t.Errorf("%s: got %q status %d %v", src, out, st, err)
		}
	}
}
