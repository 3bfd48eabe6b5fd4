package regex

import (
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// perlPatterns run with -P (one pattern each, as GNU grep -P takes).
var perlPatterns = []string{
	"", "a", "ab", "hello", "Hello", "foo", "foo.bar", "^", "$", "^$", "^a", "a$", "dog\\.$", "^.*$", "x^y",
	"a*", "a+", "a?", "a*?", "a+?", "a??", "a{2}", "a{1,2}", "a{2,}", "a{,2}", "a{", "a{1", "a{1,2", "{1}", "x{1,2,3}",
	"a|b", "a|ab", "ab|a", "(a|ab)(c|bcd)", "(abc|abcabc)", "abab|ab", "(a*)*", "(a*)+b", "(|a)", "()", "(?:ab)+",
	"(", ")", "a)", "(a", "*a", "a**", "+x", "?x", "a{2,1}", "\\", "a\\", "[", "[a", "[]", "[]a]", "[^]a]", "[a-]",
	"[-a]", "[z-a]", "[a-b-c]", "[\\d-z]", "[[:alpha:]]", "[[:alpha:]]+", "[[:^alpha:]]+", "[[:digit:]]+", "[[:upper:]]",
	"[[:lower:]]", "[[:space:]]", "[[:punct:]]+", "[[:word:]]+", "[[:xdigit:]]+", "[[:foo:]]", "[:space:]", "[[.a.]]",
	"\\w", "\\w+", "\\W", "\\W+", "\\s", "\\s+", "\\S+", "\\d+", "\\D+", "[\\W]+", "[^\\w]+", "[\\S]+", "[\\D]+",
	"\\bfoo", "foo\\b", "\\bfoo\\b", "\\Boo", "o\\B", "\\b", "\\B", "\\b.", ".\\b", "x\\by", "\\bé", "é\\b",
	"\\h+", "\\H+", "\\v", "\\V+", "\\R", "\\N+", "\\t", "\\x41", "\\x{e9}", "\\x{212a}", "\\o{101}", "\\101", "\\0", "\\cI",
	"\\e", "\\a", "\\Qa.b\\E", "\\Q(d)", "\\Q\\E", "a\\Eb", "\\p{L}+", "\\p{Lu}", "\\P{L}+", "\\p{Greek}+", "\\p{Han}",
	"\\p{^L}+", "\\pL+", "\\p{Any}", "\\p{L&}+", "\\p{Xan}+", "\\p{Foo}", "\\i", "\\k", "\\U", "\\N{U+41}",
	"(?i)hello", "(?i:H)ello", "hel(?i)LO", "(?i)straße", "(?i)ß", "(?i)k", "(?i)\u212a", "(?i)\u017f", "(?i)σ", "(?i)ς",
	"(?i)[a-z]+", "(?i)[^a-z]+", "(?i)[[:upper:]]+", "(?i)é", "(?i)İ", "(?i)ı", "(?i)µ", "(?i)ǅ", "(?z)", "(?x) a b # c",
	"(?s).", "(?n)(a)", "(?U)a+", "(?#comment)a", "a(?#x",
	"foo(?=bar)", "foo(?!bar)", "(?<=foo)bar", "(?<!foo)bar", "(?<=a|bc)x", "(?<=a+)b", "(?<=\\bfoo)_", "(?<![a-z])o",
	"(?=.*world)hello", "(?!a)\\w+", "\\w+(?=\\W)", "(a)\\1", "(\\w)\\1", "(?<n>a)\\k<n>", "(?P<n>b)(?P=n)", "(a)\\g{-1}",
	"(a)\\g1", "(a)\\2", "\\8", "a++", "a*+a", "(?>a+)b", "(?>a|ab)c", "a{1,2}+", "a\\Kb", "\\Ka", "a\\K", "(?|(a)|(b))\\1",
	"ab\\K|b", "\\w+\\K\\d", "x\\Ky|x", "(?<=a\\Kb)", "x\\xffy", "\\xff", "[\\x80-\\xff]+", ".", "..", "x.y", "[^a]",
	"😀", "日本", "[α-ω]+", "[^ -~]+", "\\d{3}", "0x[0-9A-F]+", "-7", "_x_", "(foo|bar)baz", "\\$", "\\^h\\$",
	"(?<=ab|c)a", "(?<=\\d{2})\\s", "(?<!^)\\w", "(?<=^a)\\w", "(?<=x(?=y))", "\\w+?", "\\w*?x", ".*?o", "o*", "(?=o)",
	"\\b(?=\\w)", "a\\K\\w*", "(?i)(a)\\1", "(a)(?i)\\1", "(?J)(?<n>a)|(?<n>b)", "(?<n>a)\\g{n}", "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10",
	"\\10", "\\18", "(?^i)A", "(?i)a(?^)A", "(?x)[ a]", "(?xx)[a b]+", "[\\Q]\\E]", "[]-a]", "[a\\]]", "\\ca", "\\c",
	"[\\b]", "\\x", "\\x{}", "\\x{110000}", "(?i)\\p{Lu}", "(?i)[[:upper:]]+", "(?i)[[:lower:]]", "[[:^space:]]+", "[\\h]",
	"a{0}", "a{0,0}b", "(?:a|b)*+c", "(a+)+b", "(?=(\\w))\\1", "\\bw", "\\Bo\\B", "é+", "(?i)É+", "[é]",
	"x*(?=y)", "(?!)", "(?=)", "(?<=)", "(?:)", "a(?=b)?", "(?!a)*b", "\\Z", "\\z", "\\A", "a\\z", "\\Aa", "$a", "a^",
}

// TestGNUDifferentialPerl compares -P matching, -o matches and errors
// with GNU grep 3.8 -P (PCRE2 10.42) over corpusLines × flags.
func TestGNUDifferentialPerl(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	var cases []diffCase
	// -i -w and -w -x run in TestGNUDifferentialPerlAgent (its corpus is
	// smaller: this one costs seconds per flag set under -race).
	flagSets := [][3]bool{{}, {true}, {false, true}, {false, false, true}}
	if testing.Short() {
		flagSets = flagSets[:2]
	}
	for _, f := range flagSets {
		for _, p := range perlPatterns {
			cases = append(cases, diffCase{p, Perl, f[0], f[1], f[2]})
		}
	}
	runDiff(t, grep, corpusLines, cases)
}

// agentLines are documentation and code lines of the kind agents search.
var agentLines = []string{
	"# Getting started",
	"## Install — version 2.14.0-rc.1",
	"version: 1.2.3",
	`  "name": "chromafs", "version": "0.9.12",`,
	`See [the guide](https://example.com/docs/guide.md) and <a href="/api/v2/users">users</a>.`,
	"func NewServer(ctx context.Context, addr string) (*Server, error) {",
	"def parse_args(argv):  # TODO: handle --help",
	"import os.path, sys",
	"export API_KEY=${API_KEY:-default} # FIXME",
	"Contact: jane.doe+docs@example.co.uk or admin@localhost",
	"Servers 10.0.0.1, 192.168.1.254 and 999.1.1.1",
	"\tindented\twith tabs\t",
	"error: connection refused (code 111) at 2024-03-05 12:00:01",
	"ERROR Timeout after 30s; retry=3 backoff=2.5",
	"the the quick brown fox fox",
	"--verbose -v --log-level=debug -- file",
	"  ",
	"",
	"日本語のテキスト 中文 — em dash “quotes” café",
	"CRLF line\r",
	`say "hello" and 'bye' then "unterminated`,
	"[x] done [ ] open [link text](./rel/path.md)",
	"GET /users/{id} -> 200 OK",
}

var agentPatterns = []string{
	`\d+\.\d+`, `\bfoo\s+bar`, `version: \K\S+`, `(?<=href=")[^"]+`, `fox(?! fox)`, `\t`, `"name":\s*"\K[^"]+`,
	`https?://[^\s)"]+`, `\b[A-Z]{2,}\b`, `(?i)todo|fixme`, `^\s*def \K\w+`, `func \K\w+(?=\()`, `import\s+\K[\w.]+`,
	`\$\{?\K\w+`, `[\w.+-]+@[\w-]+\.[\w.]+`, `\b\d{1,3}(?:\.\d{1,3}){3}\b`, `(?<=\[)[^\]]+(?=\])`, `\w+(?==)`,
	`(?<!\w)-{1,2}[a-z][\w-]*`, `^#{1,6} \K.*`, `\[([^\]]+)\]\(([^)]+)\)`, `(["'])(?:(?!\1).)*\1`, `\b(\w+)\s+\1\b`,
	`^(?!\s*$).+`, `^\s*$`, `\bv?\d+(?:\.\d+){1,2}(?:-[\w.]+)?\b`, `(?i)\berror\b.*$`, `(?<=code )\d+`, `[^\x00-\x7F]+`,
	`\p{Han}+`, `\Q{id}\E`, `\x{2014}`, `(?<y>\d{4})-(?<m>\d\d)-\d\d`, `\S+@\S+`, `(?i)(?<=api[_-]key=\s?)\w+`,
	`\r$`, `\w+\r?$`, `\s+$`, `(?<=\()\d+(?=\))`, `\b\w+(?=\s*\()`, `retry=\K\d+`, `\d+(?=s\b)`, `(?i)^error`,
	`\b(?:GET|POST|PUT|DELETE)\s+\K/\S*`, `[[:upper:]][[:lower:]]+`, `\.md\b`, `(?:\d+\.){2,}\d+`, `.{60,}`,
}

// TestGNUDifferentialPerlAgent compares -P with GNU grep on the
// patterns agents use, over documentation and code lines.
func TestGNUDifferentialPerlAgent(t *testing.T) {
	testenv.Battery(t)
	grep := gnuGrep(t)
	var cases []diffCase
	for _, f := range [][3]bool{{}, {true}, {false, true}, {false, false, true}, {true, true}, {false, true, true}} {
		for _, p := range agentPatterns {
			cases = append(cases, diffCase{p, Perl, f[0], f[1], f[2]})
		}
	}
	runDiff(t, grep, agentLines, cases)
}
