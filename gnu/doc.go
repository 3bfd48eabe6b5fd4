// Package gnu holds the file commands that chromafs's surfaces share:
// ls, cat, stat, tree, find and grep (with egrep and fgrep), and the
// text utilities of GNU coreutils (head, tail, wc, sort, uniq, cut, tr,
// nl, tac, seq, yes, basename, dirname, paste, comm, fold, expand,
// realpath, readlink, du) and its write commands (rm, rmdir, mkdir,
// touch, cp, mv, ln, chmod, tee), util-linux's rev and file 5.44's file,
// each a function
// that runs over any io/fs.FS with its own GNU-style arguments, writes
// what the real tool writes, and returns the tool's exit status.
// Lookup finds one by name and Names lists them. grep searches with grepx.Search, so
// a chromafs.FS keeps its accelerations.
// sed is GNU sed 4.9's command line over package sed, without writes
// (-i, w and e fail as on a read-only mount); awk's is over package awk.
// rg is ripgrep 13 as it prints to a pipe, sorted by path, on
// grepx.Search. jq is jq 1.6's command line on gojq. diff is GNU diff
// 3.8's normal and unified formats, with GNU's choice of hunks.
//
// The same functions back the `chromafs` command line and are meant for
// any other front-end (a sealed shell, an agent's tools): a behaviour
// fixed here is fixed everywhere.
//
//	status := gnu.Ls(ctx, &gnu.Env{FS: fsys, Stdout: os.Stdout, Stderr: os.Stderr}, []string{"-lh", "/guides"})
//
// # Compatibility
//
// Each command parses its arguments like the GNU tool it imitates (ls,
// cat, stat and grep with glibc's getopt_long rules: clusters, attached
// values, "--", permutation, abbreviated long options, and grep's -NUM;
// find with its own expression grammar; tree as tree 2.1 parses), prints
// the same output and diagnostics as GNU coreutils 9.1, findutils 4.9,
// grep 3.8 and tree 2.1 in the C.UTF-8 locale with output to a pipe, and
// exits with the same status.
// The tests run both on the same files and compare. The differences are
// deliberate and documented on each function: names sort in byte order
// and find visits entries in name order; ls -l shows the owner and group
// "chromafs", a link count computed from the tree, and a "total" from
// sizes rather than allocated blocks; stat's default output lists what
// the filesystem knows instead of inode and device numbers.
//
// # Text commands
//
// The text commands read their operands from the filesystem and "-",
// or no operand, from Env.Stdin (empty input when it is nil). They work
// on bytes as coreutils 9.1 does in C.UTF-8 (wc counts characters and
// words in UTF-8). They stream their input, except where the result
// depends on all of it (sort, tac, head's all-but-last, tail's last
// lines): there they hold at most HoldLimit bytes and otherwise stop
// with ErrTooLarge.
//
// # Write commands
//
// The filesystem is read-only. rm, rmdir, mkdir, touch, cp, mv, ln,
// chmod and tee exist so that a command line written for a real system
// gets the answer it would get on a read-only mount: each checks its
// arguments and operands as GNU coreutils does, then fails with the
// same diagnostic ("rm: cannot remove 'x': Read-only file system") and
// status. tee still copies standard input to standard output, and
// /dev/null is the one file it may write.
//
// # Paths
//
// Operands are slash paths: absolute ones from the root of Env.FS,
// relative ones from Env.Dir ("/" by default). Output shows operands as
// the user wrote them, as the GNU tools do.
//
// # Errors
//
// Commands never return Go errors: like the tools, they print a
// diagnostic naming the operand and the problem on Env.Stderr, go on
// with the other operands, and report failure in the exit status. A
// filesystem error that is not one of the standard ones (a broken page
// of chromafs) is printed in its own words.
package gnu
