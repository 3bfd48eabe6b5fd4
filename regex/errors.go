package regex

import "fmt"

// Error is the error Compile and Translate return for a pattern they
// cannot use.
//
// Msg is GNU grep's diagnostic for the pattern without the "grep: "
// prefix, for example "Unmatched ( or \\(", "Unmatched [, [^, [:, [., or
// [=", "Trailing backslash", "Invalid content of \\{\\}", "Unmatched \\{",
// "Invalid back reference", "Unmatched ) or \\)", "Invalid range end",
// "Invalid character class name", "Invalid collation character",
// "Regular expression too big" or "character class syntax is
// [[:space:]], not [:space:]". For a pattern that GNU grep accepts but
// this package cannot match (a back-reference, a repetition count above
// 1000), Msg says so and Err wraps ErrUnsupported.
type Error struct {
	// Pattern is the offending pattern (one element of Options.Patterns).
	Pattern string
	// Msg is the diagnostic.
	Msg string
	// Err is nil or ErrUnsupported (possibly wrapped).
	Err error
}

// Error returns e.Msg.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// GNU grep's messages (from the GNU C library's regcomp and GNU dfa).
const (
	msgUnmatchedParen   = "Unmatched ( or \\("
	msgUnmatchedRParen  = "Unmatched ) or \\)"
	msgUnmatchedBracket = "Unmatched [, [^, [:, [., or [="
	msgUnmatchedBrace   = "Unmatched \\{"
	msgBadBrace         = "Invalid content of \\{\\}"
	msgTooBig           = "Regular expression too big"
	msgTrailingBS       = "Trailing backslash"
	msgBadBackref       = "Invalid back reference"
	msgBadRange         = "Invalid range end"
	msgBadClass         = "Invalid character class name"
	msgBadCollation     = "Invalid collation character"
	msgColonClass       = "character class syntax is [[:space:]], not [:space:]"
	msgBackref          = "back-references are not supported"
	msgInvalid          = "Invalid regular expression"
)

// CanceledError is the error CompileContext returns when its context
// ends before the compilation does. It wraps the context's error, so
// errors.Is(err, context.Canceled) or errors.Is(err,
// context.DeadlineExceeded) holds.
type CanceledError struct {
	// Patterns is the number of patterns that were being compiled.
	Patterns int
	// Err is the context's error.
	Err error
}

// Error describes the interruption, for example "compiling 80660
// patterns: context deadline exceeded".
func (e *CanceledError) Error() string {
	return fmt.Sprintf("compiling %d patterns: %v", e.Patterns, e.Err)
}

// Unwrap returns e.Err.
func (e *CanceledError) Unwrap() error { return e.Err }
