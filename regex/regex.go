// Package regex is the regular-expression engine of grep, sed, awk and
// find: it compiles patterns in the syntaxes of GNU grep (POSIX basic and
// extended regular expressions as GNU grep 3.8 reads them, fixed strings,
// Go's RE2 syntax, or grep -P's Perl-compatible expressions, see Perl)
// into matchers built on Go's regexp package, translates them to Go's
// syntax for callers that match with regexp themselves (Translate), and
// extracts the literals that every match must contain, for use as a
// coarse filter.
//
// Matching follows GNU grep in the C.UTF-8 locale: several patterns match
// a line when any of them does; matches are leftmost-longest (POSIX);
// -i folds case by Unicode simple case folding; -w and -x constrain a
// match to whole words or the whole line. Back-references have no
// equivalent in RE2 and are refused with an error that wraps
// ErrUnsupported.
//
// # GNU compatibility
//
// The behaviour was checked against GNU grep 3.8 (see gnu_test.go, which
// runs it as an oracle): BRE and ERE operators, a leading * (literal in
// BRE, ignored with a warning in ERE), '{' as a literal when it does not
// start a valid ERE interval, bracket expressions with POSIX classes,
// equivalence classes and collating symbols of one ASCII character, the
// C.UTF-8 character classes and case mappings (generated from the C
// library into tables.go; for example with -i 'i' also matches 'ı' but
// 'k' does not match the Kelvin sign), GNU's \< \> \b \B \w \W \s \S
// \` \' with Unicode word characters, the -w retry rule (including its
// quirk for grep -o), and GNU's error messages. Bytes that are not UTF-8
// never match '.', a class or a negated bracket expression; an invalid
// byte in a pattern matches the same byte.
//
// Known differences: GNU grep selects lines with its DFA matcher but
// finds -o and -w matches with the C library's regex, and the two
// disagree on ERE repetition operators with nothing to repeat ("^*a",
// "{1}a", "\<*"), on a backslash before an ordinary letter under -i, and
// on -o -w -x together (GNU prints an extra newline); this package
// follows the DFA for line selection where it can and the regex
// otherwise, so such patterns may select or print differently. A pattern
// byte that is not valid UTF-8 never matches inside a valid character
// (GNU matches it against the raw byte). Repetition counts above 1000
// (GNU allows 32767) and back-references give errors wrapping
// ErrUnsupported. The "stray \" warnings of later GNU versions are not
// produced (grep 3.8 as installed here does not print them either).
//
// # Performance
//
// Lines that are valid UTF-8 are matched with Go's regexp (Longest);
// patterns with word assertions, lines that are not UTF-8, and -w
// retries use a backtracking matcher whose memory is proportional to the
// pattern size times the line length. Next scans a whole buffer for the
// required literals (bytes.Index, or a case-folding search around the
// literal's rarest character with -i) before running either. A single
// pattern that is a plain literal is searched for directly. Without -w,
// lines are selected (Match, Next) with a DFA built lazily from Go's
// compiled program, one table lookup per ASCII byte, unless the
// patterns have word assertions or the DFA grows past 4,096 states;
// the matches themselves (-o, FindAll) are still found with Go's regexp.
//
// Long pattern lists (grep -f with thousands of words) are matched as
// GNU grep matches them: when their required literals are too many for
// a coarse filter (more than 16) and at most 64 patterns have none, one
// Aho-Corasick automaton finds the literals of all patterns in a line
// (case-folded with -i), and only the patterns whose literals occur
// there, plus those without literals, are tried on it: fixed strings by
// a direct comparison, others with a regexp compiled on first use. The
// results are those of the whole list. Compilation is linear in the total
// size of the patterns up to a logarithmic factor, and CompileContext
// stops when its context ends. A list of more than 16 required literals
// gives no coarse-filter literals (Literals reports false).
package regex

import "errors"

// Syntax selects how patterns are read.
type Syntax int

const (
	// Basic is POSIX basic regular expressions with GNU extensions (grep -G,
	// the default): \| \+ \? \{m,n\} \( \) \< \> \b \B \w \W \s \S \` \'.
	Basic Syntax = iota
	// Extended is POSIX extended regular expressions (grep -E).
	Extended
	// Fixed is a list of fixed strings (grep -F).
	Fixed
	// RE2 is Go's regexp syntax (regexp/syntax.Perl), close to the Rust
	// regex syntax of ripgrep. ^ and $ anchor at the ends of the line;
	// \b and \B use Unicode word characters, as in Rust; -i folds case
	// as for the other syntaxes; \d, \s and \w are ASCII classes, as in
	// Go (Unicode in Rust). Groups do not capture.
	RE2
	// Perl is Perl-compatible regular expressions as GNU grep 3.8 -P
	// reads them (PCRE2 10.42 with PCRE2_UTF and without PCRE2_UCP):
	// \d \s \w \b \B and the POSIX classes are ASCII (\s includes
	// \v), while '.', case folding (-i, (?i)), \h \v \R and \p{...} are
	// Unicode; matches are leftmost-first, as a backtracking matcher
	// finds them (grep -o 'a|ab' prints "a"). Options hold at most one
	// pattern ("the -P option only supports a single pattern"); -w is
	// (?<!\w)(?:P)(?!\w) and -x ^(?:P)$, as in GNU grep.
	//
	// Patterns that Go's regexp can express with the same meaning are
	// matched by it (and its DFA); lookarounds, back-references, \K,
	// atomic groups and possessive quantifiers use a backtracking
	// matcher (github.com/dlclark/regexp2), bounded per line: a line it
	// gives up on counts as not matching and Matcher.Err then returns
	// ErrMatchLimit. Recursion, subroutine calls, conditionals,
	// backtracking verbs, callouts, \G, \C and \X are refused with a
	// *Error wrapping ErrUnsupported; syntax errors have PCRE2's
	// messages ("missing closing parenthesis"). Required literals are
	// taken outside lookarounds and back-references only.
	Perl
)

// ErrUnsupported is wrapped by errors for patterns that are valid for GNU
// grep but that this package cannot match, such as back-references.
var ErrUnsupported = errors.New("not supported")

// Options describe what to compile.
type Options struct {
	// Patterns are matched as alternatives. Each is one line of a grep
	// pattern list: callers split -e values and -f files at newlines.
	// An empty pattern matches every line.
	Patterns []string
	Syntax   Syntax
	// IgnoreCase is grep -i.
	IgnoreCase bool
	// Word is grep -w; Line is grep -x (Line wins when both are set, as in
	// GNU grep).
	Word, Line bool
}
