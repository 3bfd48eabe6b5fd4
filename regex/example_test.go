package regex_test

import (
	"errors"
	"fmt"

	"github.com/chromafs/chromafs/regex"
)

func ExampleCompile() {
	m, err := regex.Compile(regex.Options{Patterns: []string{`colou\?r`}})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Match([]byte("What colour is it?")), m.Match([]byte("colr")))
	// Output: true false
}

func ExampleCompile_error() {
	_, err := regex.Compile(regex.Options{Patterns: []string{`\(a`}})
	fmt.Println("grep:", err)
	_, err = regex.Compile(regex.Options{Patterns: []string{`\(a\)\1`}})
	fmt.Println(errors.Is(err, regex.ErrUnsupported), err)
	// Output:
	// grep: Unmatched ( or \(
	// true back-references are not supported
}

func ExampleMatcher_FindAll() {
	m, _ := regex.Compile(regex.Options{Patterns: []string{"(abc|abcabc)"}, Syntax: regex.Extended})
	line := []byte("xabcabcx abc")
	for _, loc := range m.FindAll(line, nil) {
		fmt.Println(string(line[loc[0]:loc[1]]))
	}
	// Output:
	// abcabc
	// abc
}

func ExampleMatcher_Next() {
	m, _ := regex.Compile(regex.Options{Patterns: []string{"error"}, IgnoreCase: true, Word: true})
	buf := []byte("ok\nerrors: 0\nERROR: disk full\nok\n")
	for pos := 0; pos < len(buf); {
		start, end, ok := m.Next(buf[pos:])
		if !ok {
			break
		}
		fmt.Printf("%q\n", buf[pos+start:pos+end])
		pos += end + 1
	}
	// Output: "ERROR: disk full"
}

func ExampleMatcher_Literals() {
	m, _ := regex.Compile(regex.Options{Patterns: []string{"func [A-Z][a-z]*Handler"}, IgnoreCase: true})
	fmt.Println(m.Literals())
	// Output: [handler] true true
}

func ExampleTranslate() {
	src, _ := regex.Translate(`^\(ab\)*c\{2,\}$`, regex.Basic)
	fmt.Println(src)
	// Output: \A(?:ab)*c{2,}\z
}

func ExampleCompile_perl() {
	// grep -oP: lookbehind, \K and leftmost-first alternation.
	for _, p := range []string{`(?<=href=")[^"]+`, `version: \K\S+`, `a|ab`} {
		m, err := regex.Compile(regex.Options{Patterns: []string{p}, Syntax: regex.Perl})
		if err != nil {
			panic(err)
		}
		line := []byte(`<a href="/docs">version: 1.2.3 ab`)
		for _, loc := range m.FindAll(line, nil) {
			fmt.Printf("%s: %s\n", p, line[loc[0]:loc[1]])
		}
	}
	_, err := regex.Compile(regex.Options{Patterns: []string{`(a`}, Syntax: regex.Perl})
	fmt.Println("grep:", err)
	// Output:
	// (?<=href=")[^"]+: /docs
	// version: \K\S+: 1.2.3
	// a|ab: a
	// a|ab: a
	// grep: missing closing parenthesis
}
