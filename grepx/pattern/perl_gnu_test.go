package pattern

import "testing"

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
	grep := gnuGrep(t)
	var cases []diffCase
	flagSets := [][3]bool{{}, {true}, {false, true}, {false, false, true}, {true, true}, {false, true, true}}
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
