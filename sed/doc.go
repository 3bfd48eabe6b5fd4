// Package sed is the language of GNU sed 4.9, written for a sealed
// shell: Compile parses a script and Program.Run runs it over input
// files, writing to a standard output. Package gnu's Sed is its command
// line.
//
// Scripts have GNU sed's addresses (N, $, /re/ and \%re% with I,
// first~step, 0,/re/, addr1,addr2, addr1,+N, addr1,~N, !), blocks,
// labels and the commands { } = a b c d D F g G h H i l n N p P q Q r R
// s t T x y z and #, s/// with the flags g p I N and w, and the
// replacement escapes & \0-\9 \n \L \U \l \u \E. Regular expressions
// are GNU BREs (EREs with Options.Extended) translated by package regex,
// so they match as GNU sed's in the C.UTF-8 locale, with these
// differences: back-references inside a regex and the M flag are
// refused with an error; a regex that grep's parser reads differently
// from sed's in the corners package regex documents may match
// differently.
//
// # Writes and processes
//
// Nothing is ever written and no process is run: the w and W commands
// and the s///w flag accept /dev/stdout and /dev/stderr only, any other
// file failing at Compile as on a read-only filesystem; the e command
// and the s///e flag are refused as script errors. Editing in place
// (sed -i) is the command line's to refuse.
//
// # Errors
//
// Errors are worded as GNU sed's, without the program name. Compile
// returns a *SyntaxError ("-e expression #1, char 1: unknown command:
// `k'") for what GNU sed rejects with status 1, and another error for
// what it reports as fatal (status 4). Run prints its diagnostics
// ("can't read f: No such file or directory", "read error on d: Is a
// directory") to Config.Stderr, after flushing Config.Stdout, and
// returns GNU sed's exit status.
package sed
