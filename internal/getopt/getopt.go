// Package getopt parses command-line arguments as glibc's getopt_long
// does for GNU tools: combined short options (-la), attached values (-w80,
// --width=80), a value in the next argument (-w 80, --width 80), "--" to
// end the options, permutation (options may follow operands), and long
// options abbreviated to any unambiguous prefix (--hum for
// --human-readable).
//
// Errors carry glibc's own words ("unrecognized option '--bogus'",
// "invalid option -- 'z'"), without the program name, so that a caller
// prints them as GNU tools do:
//
//	ls: invalid option -- 'z'
//	Try 'ls --help' for more information.
//
// POSIXLY_CORRECT and a leading '+' or '-' in the short option string are
// not supported: parsing always permutes.
package getopt

import (
	"fmt"
	"strings"
)

// HasArg says whether an option takes a value.
type HasArg int

const (
	// NoArgument options take no value.
	NoArgument HasArg = iota
	// RequiredArgument options take a value, attached or in the next
	// argument.
	RequiredArgument
	// OptionalArgument options take a value only when it is attached
	// (-xVALUE, --name=VALUE).
	OptionalArgument
)

// Long describes a long option.
type Long struct {
	Name   string // without the leading "--"
	HasArg HasArg
	// Key identifies the option in the result; long and short spellings
	// of one option share a key (conventionally the short letter). Two
	// long options with the same key and HasArg are synonyms: a prefix
	// of both is not ambiguous, as in glibc.
	Key int
	// Exact options match only when spelled out in full, never by an
	// abbreviation: extensions to a GNU tool's table use it so that the
	// tool's own abbreviations keep their meaning (and their ambiguity
	// diagnostics).
	Exact bool
}

// Spec is the set of options a command accepts.
type Spec struct {
	// Short is getopt's option string: each letter an option, followed by
	// ':' if it requires a value or '::' if it takes an optional one.
	// A short option's key is its byte value.
	Short string
	Long  []Long
}

// Option is one option found on the command line.
type Option struct {
	Key int
	// Name is the option as the user spelled it, for messages: "-l" or
	// "--long" (the full name, even when abbreviated).
	Name string
	// Arg is the option's value; HasValue is false when none was given.
	Arg      string
	HasValue bool
	// Index is the index in args of the argument the option is in (for
	// a value in the next argument, the option's own).
	Index int
}

// Error is a usage error in glibc's words.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) *Error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// shortOpt reports whether c is a short option and whether it takes a
// value.
func (s *Spec) shortOpt(c byte) (ok bool, has HasArg) {
	if c == ':' {
		return false, NoArgument
	}
	i := strings.IndexByte(s.Short, c)
	if i < 0 {
		return false, NoArgument
	}
	switch {
	case strings.HasPrefix(s.Short[i+1:], "::"):
		return true, OptionalArgument
	case strings.HasPrefix(s.Short[i+1:], ":"):
		return true, RequiredArgument
	}
	return true, NoArgument
}

// matchLong finds the long option name (the text after "--", up to any
// "="), as glibc does: an exact name wins; otherwise a unique prefix, or
// prefixes of options that are synonyms.
func (s *Spec) matchLong(arg, name string) (*Long, error) {
	var found *Long
	var ambiguous []string
	for i := range s.Long {
		lo := &s.Long[i]
		if lo.Name == name {
			return lo, nil
		}
		if lo.Exact || !strings.HasPrefix(lo.Name, name) {
			continue
		}
		switch {
		case found == nil:
			found = lo
			ambiguous = []string{lo.Name}
		case found.HasArg != lo.HasArg || found.Key != lo.Key:
			ambiguous = append(ambiguous, lo.Name)
		}
	}
	if found == nil {
		return nil, errorf("unrecognized option '%s'", arg)
	}
	if len(ambiguous) > 1 {
		var b strings.Builder
		for _, n := range ambiguous {
			fmt.Fprintf(&b, " '--%s'", n)
		}
		return nil, errorf("option '%s' is ambiguous; possibilities:%s", arg, b.String())
	}
	return found, nil
}

// Parse splits args into options, in the order given, and operands. "-"
// alone is an operand; everything after "--" is an operand. The error, if
// any, is an *Error.
func (s *Spec) Parse(args []string) (opts []Option, operands []string, err error) {
	operands, err = s.Walk(args, func(o Option) error {
		opts = append(opts, o)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return opts, operands, nil
}

// Walk is Parse for a command that acts on each option as glibc's
// getopt_long hands it out, in order: it calls fn with each option, and
// stops at the first error, fn's (returned as is) or a usage error (an
// *Error) for an argument after the options fn has seen. It returns the
// operands.
func (s *Spec) Walk(args []string, fn func(Option) error) (operands []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			o, next, err := s.long(args, i)
			if err != nil {
				return nil, err
			}
			if err := fn(o); err != nil {
				return nil, err
			}
			i = next
		case len(a) > 1 && a[0] == '-':
			next, err := s.short(args, i, fn)
			if err != nil {
				return nil, err
			}
			i = next
		default:
			operands = append(operands, a)
		}
	}
	return operands, nil
}

// long parses the long option args[i] and returns the index of the last
// argument it used.
func (s *Spec) long(args []string, i int) (Option, int, error) {
	a := args[i]
	name, value, hasValue := strings.Cut(a[2:], "=")
	lo, err := s.matchLong(a, name)
	if err != nil {
		return Option{}, i, err
	}
	o := Option{Key: lo.Key, Name: "--" + lo.Name, Index: i}
	switch lo.HasArg {
	case NoArgument:
		if hasValue {
			return o, i, errorf("option '--%s' doesn't allow an argument", lo.Name)
		}
	case RequiredArgument:
		if !hasValue {
			if i+1 >= len(args) {
				return o, i, errorf("option '--%s' requires an argument", lo.Name)
			}
			i++
			value, hasValue = args[i], true
		}
	}
	o.Arg, o.HasValue = value, hasValue
	return o, i, nil
}

// short parses the cluster of short options args[i], calling fn with
// each, and returns the index of the last argument it used.
func (s *Spec) short(args []string, i int, fn func(Option) error) (int, error) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		c := a[j]
		ok, has := s.shortOpt(c)
		if !ok {
			return i, errorf("invalid option -- '%s'", a[j:j+1])
		}
		o := Option{Key: int(c), Name: "-" + a[j:j+1], Index: i}
		switch {
		case has == NoArgument:
		case j+1 < len(a):
			o.Arg, o.HasValue = a[j+1:], true
			j = len(a)
		case has == RequiredArgument:
			if i+1 >= len(args) {
				return i, errorf("option requires an argument -- '%s'", a[j:j+1])
			}
			i++
			o.Arg, o.HasValue = args[i], true
		}
		if err := fn(o); err != nil {
			return i, err
		}
	}
	return i, nil
}
