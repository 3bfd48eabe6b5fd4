package regex

import (
	"fmt"
	"regexp"
	"regexp/syntax"
)

// Translate returns Go regexp syntax (as regexp.Compile reads it)
// equivalent to one grep pattern read with syn: for Fixed,
// regexp.QuoteMeta(expr). The result matches, within one line and with
// (*regexp.Regexp).Longest, what GNU grep matches: POSIX classes are
// expanded to the C.UTF-8 locale's character sets, and ^ and $ become \A
// and \z. Patterns GNU grep rejects give a *Error with its message.
// Constructs with no Go equivalent give a *Error wrapping ErrUnsupported:
// back-references, GNU's Unicode word assertions \< \> \b \B, bytes that
// are not valid UTF-8, and repetition counts above 1000.
//
// For Perl, the result is the Go regexp that matches lines as PCRE2
// would (leftmost-first, without Longest), and patterns that need the
// backtracking engine give a *Error wrapping ErrUnsupported.
func Translate(expr string, syn Syntax) (string, error) {
	if syn == Perl {
		t, err := parsePerl(expr, false)
		if err != nil {
			return "", err
		}
		re, ok := perlGoTree(t.root, true, true)
		if !ok || t.bt {
			return "", &Error{Pattern: expr, Msg: "pattern needs a backtracking matcher (lookaround, back-reference, atomic group or possessive quantifier)", Err: ErrUnsupported}
		}
		return goString(re), nil
	}
	return translate(&parser{src: expr, ere: syn == Extended}, syn)
}

// TranslateGroups is Translate for a stream editor such as sed, whose
// text may hold newlines: the groups of expr (\(...\) in BRE, (...) in
// ERE) are Go capturing groups with the same numbers, so that submatch i
// of the result is what POSIX calls group i; '.' also matches a newline,
// as negated bracket expressions do; and with fold, literals and bracket
// expressions match their case counterparts as they do under grep -i.
// ^ and $ still become \A and \z. syn must be Basic or Extended.
func TranslateGroups(expr string, syn Syntax, fold bool) (string, error) {
	if syn == Fixed {
		return "", &Error{Pattern: expr, Msg: "TranslateGroups needs Basic or Extended syntax", Err: ErrUnsupported}
	}
	return translate(&parser{src: expr, ere: syn == Extended, fold: fold, capture: true}, syn)
}

func translate(p *parser, syn Syntax) (string, error) {
	expr := p.src
	if syn == Fixed {
		if _, p, _ := parse(expr, syn, false, false); p.invalid {
			return "", &Error{Pattern: expr, Msg: "invalid UTF-8 in pattern has no Go regexp equivalent", Err: ErrUnsupported}
		}
		return regexp.QuoteMeta(expr), nil
	}
	re, p, err := parseWith(p, syn)
	if err != nil {
		return "", err
	}
	if err := checkRepeats(expr, re); err != nil {
		return "", err
	}
	switch {
	case p.wordOps:
		return "", &Error{Pattern: expr, Msg: "word assertions \\< \\> \\b \\B have no Go regexp equivalent", Err: ErrUnsupported}
	case p.invalid:
		return "", &Error{Pattern: expr, Msg: "invalid UTF-8 in pattern has no Go regexp equivalent", Err: ErrUnsupported}
	}
	src := goString(re)
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return "", &Error{Pattern: expr, Msg: fmt.Sprintf("pattern not supported: %v", err), Err: ErrUnsupported}
	}
	return src, nil
}
