package regex

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// corpusLines are the lines of the differential test file.
var corpusLines = []string{
	"",
	" ",
	"hello world",
	"Hello World",
	"HELLO, WORLD!",
	"foo bar baz",
	"foo_bar foo-bar foobar barfoo",
	"xabcabcx",
	"abcabcabc",
	"aaa",
	"a",
	"ab",
	"abab ba",
	"a+b=c (d) [e] {f} |g| ^h$ *i* ?j? .k. \\l\\",
	"a{1} a{,2} {1} a{ x{1,2 *abc +x",
	"path/to/file.go:42: func main() {",
	"\tindented\twith\ttabs",
	"trailing spaces   ",
	"x1 y22 z333 0x1F 3.14 -7",
	"The quick brown fox jumps over the lazy dog.",
	"Straße STRASSE strasse ß ẞ",
	"Kelvin: \u212a k K; long s: \u017f s S",
	"İstanbul ISTANBUL istanbul ıi Iİ",
	"Σίσυφος ΣΊΣΥΦΟΣ σς Σ",
	"µ μ Μ ǅ ǆ Ǆ ﬃ ffi",
	"日本語のテキスト 中文 한국어",
	"café CAFÉ cafe\u0301 naïve",
	"emoji 😀 ok 👍🏽",
	"word_with_underscore _x_ __",
	"x\xffy invalid \xfe\xfe byte",
	"\xc3( truncated \xe2\x82 seq",
	"élan über Ärger ÖL ﬁn",
	"123 456-7890 (555)",
	"<tag attr=\"v\">text</tag>",
	"-- dashes -- and --opts",
	"::colon:: [:space:] [[x]]",
	"a.b.c a*b*c a?b",
	"end.",
	"Ωmega ωmega",
	"e\u0301 e é",
}

// Patterns run with both -G and -E (GNU grep is the oracle for each).
var corpusPatterns = []string{
	"", "a", "ab", "abc", "hello", "Hello", "HELLO", "world", "o", "foo", "bar", "foo.bar",
	"^", "$", "^$", "^a", "a$", "^hello", "dog.$", "^.*$", "x^y", "a$b", "^*", "^*a", "*a", "*", "**",
	"a*", "a**", "ab*", "a\\*", "\\*", "a+", "a\\+", "a?", "a\\?", "+x", "?x", "a|b", "a\\|b", "foo|bar|baz",
	"a{2}", "a\\{2\\}", "a{1,2}", "a\\{1,2\\}", "a{,2}", "a\\{,2\\}", "a{2,}", "a\\{2,\\}", "a{", "a{1", "a{1,2", "a{,}",
	"{1}", "\\{1\\}", "x{1}", "a{1a}", "a{ 1}", "a{2,1}", "a\\{2,1\\}", "a{}", "a\\{\\}", "a\\{1", "x{1,2,3}", "a{32768}",
	"(a)", "\\(a\\)", "(ab)+", "\\(ab\\)*c", "(abc|abcabc)", "\\(abc\\|abcabc\\)", "(a|ab)(c|bcd)", "(|a)", "()", "\\(\\)",
	"(", ")", "\\(", "\\)", "a)", "(a", "(*a)", "(+)", "a|*b", "a\\|*b", "\\(*a\\)", "\\(^a\\)", "(^a)", "a(^b)", "a\\(^b\\)",
	"a$\\|q", "(a$)", "\\(a$\\)",
	".", "..", "...", "a.c", "x.y", ".*", ".+", "\\.", "e.d", "[.]",
	"[abc]", "[^abc]", "[a-c]", "[]]", "[]a]", "[^]a]", "[a-]", "[-a]", "[--z]", "[!--]", "[]-a]", "[a-b-c]", "[z-a]",
	"[\\]", "[\\n]", "[a", "[", "[]", "[^]", "[[]", "[[:alpha:]]", "[[:digit:]]+", "[[:upper:]]", "[[:lower:]]", "[[:space:]]",
	"[[:punct:]]", "[[:alnum:]_]+", "[[:xdigit:]]+", "[[:blank:]]", "[[:cntrl:]]", "[[:print:]]", "[[:graph:]]", "[^[:alpha:]]",
	"[[:foo:]]", "[[:alpha:]", "[[:alpha:]-z]", "[[:alpha:]-]", "[:space:]", "[:alpha:]x", "[:a]", "[:]", "[::]", "[:a:b]", "[:a:]",
	"[[=a=]]", "[[=e=]]", "[[.a.]]", "[[.-.]]", "[[.ab.]]", "[[=ab=]]", "[[.a.]-c]", "[[.", "[ä-ü]", "[α-ω]+", "[^ -~]", "[A-c]", "[Z-a]", "[a-ä]", "[[.ä.]]", "[[=é=]]", "[[.é.]-z]", "[^", "a[", "[\\",
	"\\w", "\\w+", "\\W", "\\W+", "\\s", "\\s+", "\\S+", "\\bfoo", "foo\\b", "\\bfoo\\b", "\\Boo", "o\\B", "\\<foo", "bar\\>",
	"\\<foo\\>", "\\<", "\\>", "\\b", "\\B", "\\<.", ".\\>", "\\`a", "c\\'", "\\`", "\\'", "\\<[a-z]", "x\\by", "\\<y",
	"\\d", "\\a", "\\%", "\\.", "\\-", "a\\", "\\", "\\1", "\\(a\\)\\1", "(a)\\1", "\\(a\\)\\2", "(a\\1)",
	"straße", "STRASSE", "ß", "ẞ", "k", "K", "\u212a", "s", "\u017f", "i", "I", "İ", "ı", "σ", "ς", "Σ", "µ", "μ", "ǅ", "ﬃ",
	"é", "É", "café", "ω", "Ω", "ö", "😀", "日本", "x\xffy", "\xff", "\xfe\xfe", "[\xff]", "invalid .", "\xe2\x82",
	"the", "The", "fox|dog", "qu[a-z]*k", "[0-9]+", "[0-9]{3}", "0x[0-9A-F]+", "-7", "--", "--opts", "::", "_",
	"_x_", "[[:alpha:]]+", "[a-z]+ing", "(foo|bar)baz", "o w", "lo, W", "a.b", "with.tabs", "\t",
	"x*", "a\\|", "|", "a||b", "\\|a", "^\\|a", "a*b*c*", "(a*)*", "(a*)+b", "(ab|a)(bc|c)", "abab|ab", "b?a", "ba*",
}

// fixedPatterns run with -F.
var fixedPatterns = []string{
	"", "a", "ab", "foo", "a.b", "a*b", "[abc]", "\\", "\\l\\", "hello world", "HELLO", "straße", "ß", "k", "\u212a", "ſ",
	"İ", "ı", "σ", "Σ", "µ", "ǆ", "ﬃ", "é", "\xff", "x\xffy", "^h$", "(d)", "foo bar", "o", "_", "😀", " ", "--",
}

// isKnownDiff reports the cases where grep -o and grep -w knowingly
// differ from GNU grep, which selects lines with its DFA but finds -o and
// -w matches with the C library's regex, and the two disagree: an ERE
// repetition operator with nothing to repeat (GNU warns about those:
// "^*a", "{1}a"), and, with -i, a backslash before an ordinary letter.
func isKnownDiff(c diffCase) bool {
	if c.syn == Extended {
		for _, pat := range c.patterns() {
			if _, p, err := parse(pat, c.syn, false, false); err == nil && p.ambiguous {
				return true
			}
		}
	}
	if c.w && c.x {
		// GNU grep -o -w -x prints each match followed by an extra
		// newline (its match includes the line's '\n').
		return true
	}
	return c.i && len(c.pat) == 2 && c.pat[0] == '\\' && strings.ContainsRune("ad", rune(c.pat[1]))
}

// gnuGrep returns the path of GNU grep, failing under CI when missing.
func gnuGrep(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("grep")
	if err == nil {
		out, _ := exec.Command(path, "--version").Output()
		if bytes.Contains(out, []byte("GNU grep")) {
			return path
		}
		err = fmt.Errorf("%s is not GNU grep", path)
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("GNU grep is required for the differential tests: %v", err)
	}
	t.Skipf("GNU grep not available: %v", err)
	return ""
}

type gnuResult struct {
	status   int
	stdout   string
	errMsg   string   // "grep: " diagnostic, without the prefix
	warnings []string // "grep: warning: " lines, without the prefix
}

func runGNU(t *testing.T, grep, file string, args ...string) gnuResult {
	cmd := exec.Command(grep, append(append([]string{"-a"}, args...), file)...)
	cmd.Args[0] = "grep" // GNU grep prefixes its messages with argv[0]
	for _, kv := range os.Environ() {
		// GREP_COLOR is deprecated: GNU grep warns when it is set.
		if !strings.HasPrefix(kv, "GREP_COLOR=") && !strings.HasPrefix(kv, "GREP_COLORS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C.UTF-8", "GREP_COLORS="+gnuColors)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := gnuResult{stdout: stdout.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running grep: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "grep: warning: "):
			res.warnings = append(res.warnings, strings.TrimPrefix(l, "grep: warning: "))
		case strings.HasPrefix(l, "grep: "):
			res.errMsg = strings.TrimPrefix(l, "grep: ")
		default:
			res.errMsg = l
		}
	}
	return res
}

// gnuColors makes grep --color=always mark its matches, and nothing else,
// with matchStart and matchEnd: no color for line numbers, byte offsets,
// separators or file names, and no erase-line sequences (ne).
const gnuColors = "ms=1:ln=:bn=:se=:fn=:ne"

const (
	matchStart = "\x1b[1m"
	matchEnd   = "\x1b[m"
)

// splitColored turns the output of grep -n -b --color=always (with
// gnuColors) into what grep -n (lines) and grep -n -b -o (only) print.
// GNU grep finds the matches it colors with the same loop that prints
// them for -o, so one run answers both questions. The corpus must not
// contain ESC.
func splitColored(colored string) (lines, only string, err error) {
	var lb, ob strings.Builder
	for l := range strings.Lines(colored) {
		l = strings.TrimSuffix(l, "\n")
		num, rest, ok1 := strings.Cut(l, ":")
		offs, text, ok2 := strings.Cut(rest, ":")
		off, err := strconv.Atoi(offs)
		if !ok1 || !ok2 || err != nil {
			return "", "", fmt.Errorf("not a line of grep -n -b: %q", l)
		}
		var plain strings.Builder
		for text != "" {
			before, after, found := strings.Cut(text, matchStart)
			plain.WriteString(before)
			if !found {
				break
			}
			match, after, found := strings.Cut(after, matchEnd)
			if !found {
				return "", "", fmt.Errorf("an unterminated match in %q", l)
			}
			fmt.Fprintf(&ob, "%s:%d:%s\n", num, off+plain.Len(), match)
			plain.WriteString(match)
			text = after
		}
		fmt.Fprintf(&lb, "%s:%s\n", num, plain.String())
	}
	return lb.String(), ob.String(), nil
}

// runGNUBoth runs GNU grep once for c over file and returns what grep -n
// prints and, except under -w -x, what grep -n -b -o prints. Under -w -x
// GNU grep's matches run into the next line (see isKnownDiff): it runs
// grep -n alone, and the -o output is not compared. The error reports an
// output that splitColored cannot read.
func runGNUBoth(t *testing.T, grep, file string, c diffCase) (res gnuResult, only string, err error) {
	if c.w && c.x {
		return runGNU(t, grep, file, append(c.args(), "-n")...), "", nil
	}
	res = runGNU(t, grep, file, append(c.args(), "-n", "-b", "--color=always")...)
	if res.status == 2 {
		return res, "", nil
	}
	res.stdout, only, err = splitColored(res.stdout)
	return res, only, err
}

// ourOutput renders what grep -n (lines) or grep -n -b -o prints.
func ourOutput(m *Matcher, lines []string, only bool) string {
	var b strings.Builder
	off := 0
	for i, l := range lines {
		if only {
			for _, loc := range m.FindAll([]byte(l), nil) {
				fmt.Fprintf(&b, "%d:%d:%s\n", i+1, off+loc[0], l[loc[0]:loc[1]])
			}
		} else if m.Match([]byte(l)) {
			fmt.Fprintf(&b, "%d:%s\n", i+1, l)
		}
		off += len(l) + 1
	}
	return b.String()
}

type diffCase struct {
	pat  string
	syn  Syntax
	i, w bool
	x    bool
}

// patterns splits c.pat at newlines, as grep does with -e.
func (c diffCase) patterns() []string { return strings.Split(c.pat, "\n") }

func (c diffCase) args() []string {
	a := []string{map[Syntax]string{Basic: "-G", Extended: "-E", Fixed: "-F", Perl: "-P"}[c.syn]}
	if c.i {
		a = append(a, "-i")
	}
	if c.w {
		a = append(a, "-w")
	}
	if c.x {
		a = append(a, "-x")
	}
	for _, p := range c.patterns() {
		a = append(a, "-e", p)
	}
	return a
}

func (c diffCase) String() string {
	return fmt.Sprintf("grep %q", c.args())
}

// TestGNUDifferential compares Match, FindAll, errors and warnings with
// GNU grep 3.8 over corpusPatterns × corpusLines × flags.
func TestGNUDifferential(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	var cases []diffCase
	flagSets := [][3]bool{{}, {true}, {false, true}, {false, false, true}, {true, true}, {true, false, true}, {false, true, true}}
	if testing.Short() {
		flagSets = flagSets[:2]
	}
	for _, f := range flagSets {
		for _, p := range corpusPatterns {
			cases = append(cases, diffCase{p, Basic, f[0], f[1], f[2]}, diffCase{p, Extended, f[0], f[1], f[2]})
		}
		for _, p := range fixedPatterns {
			cases = append(cases, diffCase{p, Fixed, f[0], f[1], f[2]})
		}
	}
	runDiff(t, grep, corpusLines, cases)
}

// runDiff compares each case with GNU grep over lines: the lines that
// grep -n selects, its errors and warnings, and the matches that
// grep -n -b -o prints, all from one run of GNU grep (see runGNUBoth).
func runDiff(t *testing.T, grep string, lines []string, cases []diffCase) {
	t.Helper()
	runDiffCompiled(t, grep, lines, cases, nil)
}

// runDiffCompiled is runDiff with the matchers that the caller compiled
// already: compiled[c] for case c, when present, instead of compiling c
// again (a list of 5,000 patterns costs a CPU second under -race).
func runDiffCompiled(t *testing.T, grep string, lines []string, cases []diffCase, compiled map[diffCase]*Matcher) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, "\x1b") {
			t.Fatalf("line %q contains ESC, which grep --color uses to mark matches", l)
		}
	}
	file := filepath.Join(t.TempDir(), "corpus.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
		ch       = make(chan diffCase)
		compared int
	)
	report := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for range runtime.GOMAXPROCS(0) * 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range ch {
				m, err := compiled[c], error(nil)
				if m == nil {
					m, err = Compile(Options{Patterns: c.patterns(), Syntax: c.syn, IgnoreCase: c.i, Word: c.w, Line: c.x})
				}
				gl, gnuOnly, gerr := runGNUBoth(t, grep, file, c)
				if gerr != nil {
					report("%v: %v", c, gerr)
					continue
				}
				if err != nil {
					var pe *Error
					switch {
					case !errors.As(err, &pe):
						report("%v: error of type %T: %v", c, err, err)
					case errors.Is(err, ErrUnsupported):
						if gl.status == 2 {
							report("%v: we say unsupported (%v), GNU says %q", c, err, gl.errMsg)
						}
					case gl.status != 2 || gl.errMsg != pe.Msg:
						report("%v: error %q, GNU status %d %q", c, pe.Msg, gl.status, gl.errMsg)
					}
					continue
				}
				if gl.status == 2 {
					report("%v: compiled, GNU error %q", c, gl.errMsg)
					continue
				}
				if !slices.Equal(m.Warnings(), gl.warnings) {
					report("%v: warnings %q, GNU %q", c, m.Warnings(), gl.warnings)
				}
				known := isKnownDiff(c)
				if got := ourOutput(m, lines, false); got != gl.stdout && !(known && (c.w && !c.x || strings.Contains(c.pat, "\\"))) {
					report("%v: lines differ\n%s", c, diffLines(got, gl.stdout))
				}
				if got := ourOutput(m, lines, true); got != gnuOnly && !known {
					report("%v: -o differs\n%s", c, diffLines(got, gnuOnly))
				}
				mu.Lock()
				compared++
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		ch <- c
	}
	close(ch)
	wg.Wait()
	t.Logf("%d cases, %d compared with GNU grep, %d failures", len(cases), compared, len(failures))
	slices.Sort(failures)
	for i, f := range failures {
		if i == 60 {
			t.Errorf("... and %d more", len(failures)-i)
			break
		}
		t.Error(f)
	}
}

// diffLines lists the lines only in got (+) or only in want (-).
func diffLines(got, want string) string {
	g := strings.Split(got, "\n")
	w := strings.Split(want, "\n")
	var b strings.Builder
	n := 0
	for _, l := range g {
		if !slices.Contains(w, l) && n < 8 {
			fmt.Fprintf(&b, "\t+ %q\n", l)
			n++
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) && n < 16 {
			fmt.Fprintf(&b, "\t- %q\n", l)
			n++
		}
	}
	return b.String()
}

// TestGNUMultiple compares several patterns at once (grep -e p1 -e p2).
func TestGNUMultiple(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	sets := []string{
		"foo\nbar", "abc\nabcabc", "a\n", "\nzzz", "^a\nb$", "hello\nHELLO", "\\<foo\nbar\\>", "a*\nb", "k\nſ",
		"(foo\nbar)", "x\\{1\nq", "foo\n[", "ab\nabab\nba", "wor\nworld", "o w\nlo", "a\\(b\\)\nb\\|c",
	}
	var cases []diffCase
	for _, f := range [][3]bool{{}, {true}, {false, true}, {false, false, true}, {true, true}} {
		for _, p := range sets {
			cases = append(cases, diffCase{p, Basic, f[0], f[1], f[2]}, diffCase{p, Extended, f[0], f[1], f[2]}, diffCase{p, Fixed, f[0], f[1], f[2]})
		}
	}
	runDiff(t, grep, corpusLines, cases)
}

// TestGNURandom compares random patterns built from grep's special
// characters over lines from a small alphabet.
func TestGNURandom(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	atoms := []string{"a", "b", "ab", ".", "*", "+", "?", "|", "(", ")", "\\(", "\\)", "\\|", "\\+", "\\?", "{", "}",
		"\\{", "\\}", "1", ",", "2", "[ab]", "[^a]", "[[:alpha:]]", "^", "$", "\\<", "\\>", "\\b", "\\B", "\\w", "\\W",
		"-", " ", "_", "é", "A", "[a-", "]", "\\.", "{1}", "{,2}", "\\{1,2\\}", "K", "ß"}
	lines := []string{"", "a", "b", "ab", "ba", "aab", "abab", "a b", "a_b", "a-b", "a.b", "a{1}", "b*a", "é a",
		"É", "aé", "{,2}", "(a)", "a|b", "A B", "aaa bbb", "_a_", "-a-", " ab ", "k K", "ß SS", "ab\xffab", "1,2"}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if v, err := strconv.Atoi(os.Getenv("GNU_RANDOM_N")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 100
	}
	var cases []diffCase
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		c := diffCase{pat: b.String(), syn: Syntax(rng.IntN(2)), i: rng.IntN(3) == 0, w: rng.IntN(3) == 0, x: rng.IntN(5) == 0}
		if !isKnownDiff(c) && !strings.Contains(c.pat, "\n") {
			cases = append(cases, c)
		}
	}
	runDiff(t, grep, lines, cases)
}

// TestGNUFixedWordMatches compares -w -o matches with GNU grep 3.8 where
// its fixed-string matcher (which it uses for -F, and for two or more -G
// or -E patterns without special characters) differs from its regex
// matcher: after a match, a shorter match at the next word is retried
// over the whole line, and a match that starts where the previous one
// ended counts as preceded by a non-word character.
func TestGNUFixedWordMatches(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	lines := []string{
		"Value if not to filesystem embedding",
		"-x-x and -x",
		"foo-bar foo -bar",
		"a to file to",
	}
	var cases []diffCase
	for _, pat := range []string{"not\nto\nto file", "-x", "-x\nzzz", "foo\n-bar", "fo+\n-bar", "to file\nto"} {
		for _, syn := range []Syntax{Fixed, Basic, Extended} {
			cases = append(cases, diffCase{pat, syn, false, true, false})
		}
	}
	runDiff(t, grep, lines, cases)
}
