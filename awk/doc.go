// Package awk is a POSIX awk with gawk's extensions where agents lean on
// them, written for a sealed shell: a lexer, a parser to a syntax tree
// and a tree-walking interpreter.
//
// Programs compile once (Compile, CompileSources) and run with a Config
// (Program.Run) that gives the standard streams, how files are opened,
// the operands, -v and -F, and ENVIRON's content. Nothing else of the
// host is reached: output redirections other than /dev/stdout and
// /dev/stderr fail as on a read-only filesystem, commands (print |
// "cmd", "cmd" | getline, system()) are refused, and rand starts from a
// fixed seed (srand() takes 0 rather than the clock).
//
// Semantics follow POSIX awk and gawk where POSIX leaves room:
// strnum comparisons for input, uninitialized values, regex record
// separators (RS of more than one character), paragraph mode (RS=""),
// FS="" splitting into characters, ** and **=, nextfile, delete of a
// whole array, length(array), split's fourth argument, fflush, gensub,
// asort, asorti, PROCINFO["sorted_in"]'s predefined orders, IGNORECASE
// (regexes, regex FS and RS, string comparisons, index), and
// character (not byte) positions in length, index, substr and match,
// as gawk in a UTF-8 locale. for (k in a) visits keys in the order they
// were first added (gawk's order is unspecified).
//
// Regular expressions are POSIX EREs translated by package
// regex to Go's regexp and matched leftmost-longest; ^ and $
// anchor at the ends of the string. gawk's \y \< \> are Go's \b (an ASCII
// word boundary), \B, \` and \' Go's \B, \A and \z; back-references are
// refused as syntax errors.
//
// A run is bounded: the context is checked in loops, function calls and
// per record; call depth, string and array sizes have limits (Config);
// errors are *SyntaxError or *RuntimeError, never a panic.
package awk
