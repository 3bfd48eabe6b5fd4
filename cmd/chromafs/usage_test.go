package main

import (
	"debug/elf"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestUsageErrors: every command reports a bad command line in GNU's
// words, with the GNU tool's status, without a server.
func TestUsageErrors(t *testing.T) {
	try := func(cmd string) string { return "Try '" + cmd + " --help' for more information.\n" }
	for _, tc := range []struct {
		args   []string
		stderr string
		status int
	}{
		{[]string{"ls", "--bogus"}, "chromafs ls: unrecognized option '--bogus'\n" + try("chromafs ls"), 2},
		{[]string{"ls", "-z"}, "chromafs ls: invalid option -- 'z'\n" + try("chromafs ls"), 2},
		{[]string{"ls", "--al"}, "chromafs ls: option '--al' is ambiguous; possibilities: '--all' '--almost-all'\n" + try("chromafs ls"), 2},
		{[]string{"cat", "--bogus"}, "chromafs cat: unrecognized option '--bogus'\n" + try("chromafs cat"), 1},
		{[]string{"stat"}, "chromafs stat: missing operand\n" + try("chromafs stat"), 1},
		{[]string{"stat", "-c"}, "chromafs stat: option requires an argument -- 'c'\n" + try("chromafs stat"), 1},
		{[]string{"find", "/", "-bogus"}, "chromafs find: unknown predicate `-bogus'\n", 1},
		{[]string{"find", "/", "-name"}, "chromafs find: missing argument to `-name'\n", 1},
		{[]string{"find", "/", "("}, "chromafs find: invalid expression; expected to find a ')' but didn't see one. Perhaps you need an extra predicate after '('\n", 1},
		{[]string{"tree", "-L", "0"}, "chromafs tree: Invalid level, must be greater than 0.\n", 1},
		{[]string{"tree", "-z"}, "chromafs tree: Invalid argument -`z'.\nusage: chromafs tree [-adfhirsU] [-L level] [--si] [--noreport] [--dirsfirst]\n\t[--filesfirst] [--help] [--version] [--] [directory ...]\n", 1},
		{[]string{"ingest"}, "chromafs ingest: missing operand\n" + try("chromafs ingest"), 2},
		{[]string{"ingest", "a", "b"}, "chromafs ingest: extra operand 'b'\n" + try("chromafs ingest"), 2},
		{[]string{"ingest", "--bogus", "d"}, "chromafs ingest: unrecognized option '--bogus'\n" + try("chromafs ingest"), 2},
		{[]string{"ingest", "--max-chunk"}, "chromafs ingest: option '--max-chunk' requires an argument\n" + try("chromafs ingest"), 2},
		{[]string{"ingest", "--max-chunk", "x", "d"}, "chromafs ingest: invalid argument 'x' for '--max-chunk': strconv.ParseInt: parsing \"x\": invalid syntax\n" + try("chromafs ingest"), 2},
		{[]string{"validate", "x"}, "chromafs validate: extra operand 'x'\n" + try("chromafs validate"), 2},
		{[]string{"validate", "-z"}, "chromafs validate: invalid option -- 'z'\n" + try("chromafs validate"), 2},
		{[]string{"serve", "-h"}, "chromafs serve: invalid option -- 'h'\n" + try("chromafs serve"), 2},
		{[]string{"serve", "--bogus"}, "chromafs serve: unrecognized option '--bogus'\n" + try("chromafs serve"), 2},
		{[]string{"serve", "x"}, "chromafs serve: extra operand 'x'\n" + try("chromafs serve"), 2},
		{[]string{"hash-token", "x"}, "chromafs hash-token: extra operand 'x'\n" + try("chromafs hash-token"), 2},
		{[]string{"bogus"}, "chromafs: unknown command 'bogus'\n" + try("chromafs"), 2},
		{[]string{"-h"}, "chromafs: invalid option -- 'h'\n" + try("chromafs"), 2},
		{[]string{"--timeout"}, "chromafs: option '--timeout' requires an argument\n" + try("chromafs"), 2},
		{[]string{"ls", "--timeout", "x"}, "chromafs ls: invalid argument 'x' for '--timeout': time: invalid duration \"x\"\n" + try("chromafs ls"), 2},
		{[]string{"find", "/", "--collection"}, "chromafs find: option '--collection' requires an argument\n" + try("chromafs find"), 2},
	} {
		out, errOut, code := cli(t, tc.args...)
		if out != "" || errOut != tc.stderr || code != tc.status {
			t.Errorf("chromafs %q: status %d, stdout %q, stderr\n%s\nwant status %d, stderr\n%s", tc.args, code, out, errOut, tc.status, tc.stderr)
		}
	}
}

// TestHelpAndVersion: only --help asks for help, and --version and the
// version command name the module version and VCS revision.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"ls", "--help"}, {"ingest", "--help"}, {"find", "--help"}, {"tree", "--help"}} {
		out, errOut, code := cli(t, args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage:") && !strings.Contains(out, "usage:") {
			t.Errorf("%q: status %d, stderr %q, stdout\n%s", args, code, errOut, out)
		}
	}
	out, _, _ := cli(t, "ls", "--help")
	if !strings.Contains(out, "-h, --human-readable") {
		t.Errorf("ls --help does not list -h as --human-readable:\n%s", out)
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errOut, code := cli(t, args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "chromafs ") || !strings.Contains(out, "\nrevision ") {
			t.Errorf("%q: status %d, stderr %q, stdout %q", args, code, errOut, out)
		}
	}
	if out, _, code := cli(t, "ls", "--version"); code != 0 || !strings.HasPrefix(out, "chromafs ls (chromafs) ") {
		t.Errorf("ls --version: status %d, %q", code, out)
	}
}

// TestHelpWidth: every command's --help fits 80 columns, as GNU's do,
// except the tables that cobra and pflag lay out one line per entry (the
// Flags:, Global Flags: and Available Commands: sections), whose
// descriptions they do not wrap, and the completion commands' help, which
// cobra writes.
func TestHelpWidth(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if c.Name() != "completion" {
				walk(sub, append(slices.Clone(path), sub.Name()))
			}
		}
	}
	walk(root, nil)
	if len(paths) < 15 {
		t.Fatalf("found only %d commands: %q", len(paths), paths)
	}
	for _, p := range paths {
		args := append(slices.Clone(p), "--help")
		out, errOut, code := cli(t, args...)
		if code != 0 || errOut != "" || out == "" {
			t.Errorf("chromafs %s: status %d, stderr %q, stdout %q", strings.Join(args, " "), code, errOut, out)
			continue
		}
		table := false
		for i, line := range strings.Split(out, "\n") {
			switch {
			case line == "Available Commands:":
				table = true
			case line == "":
				table = false
			case !table:
				if w := columns(line); w > 80 {
					t.Errorf("chromafs %s, line %d is %d columns wide:\n%s", strings.Join(args, " "), i+1, w, line)
				}
			}
		}
	}
}

// columns is the width of line on a terminal: a tab goes to the next
// multiple of 8.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}

// TestVersionStamp: a binary built from the checkout prints its VCS
// revision.
func TestVersionStamp(t *testing.T) {
	bin := chromafsBinary(t)
	b, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	// The build may have no VCS stamp (GOFLAGS=-buildvcs=false, or no
	// git): then it says so instead of printing a wrong revision.
	if !strings.HasPrefix(out, "chromafs ") || !(strings.Contains(out, "\nrevision unknown") || regexpRevision.MatchString(out)) {
		t.Fatalf("chromafs --version:\n%s", out)
	}
}

var regexpRevision = regexp.MustCompile(`\nrevision [0-9a-f]{40}( \(.*\))?\n`)

// TestVersionNoVCSStamp: a binary built with -buildvcs=false says that
// stamping was off or the tree no checkout, not only the latter.
func TestVersionNoVCSStamp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chromafs")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=false: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "chromafs (devel)\n" + noStamp; !strings.HasPrefix(string(out), want) {
		t.Errorf("chromafs --version of a -buildvcs=false build:\n%s\nwant it to start with:\n%s", out, want)
	}
}

// TestFormatVersion: what --version prints for each kind of build info.
func TestFormatVersion(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "d664137bf2039ec2b362a38e36ee9cf35a727841"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "chromafs (devel)\n" + noStamp},
		{"no VCS stamp", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: setting("-buildmode", "exe", "GOOS", "linux")},
			"chromafs (devel)\n" + noStamp + "built with go1.26.0\n"},
		{"go install of a release", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}},
			"chromafs v1.2.0\nrevision unknown: built from module version v1.2.0, not from a checkout\nbuilt with go1.26.0\n"},
		{"checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261127064822-d664137bf203"},
			Settings: setting("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-27T06:48:22Z", "vcs.modified", "false")},
			"chromafs v0.0.0-20261127064822-d664137bf203\nrevision " + rev + " (2026-11-27T06:48:22Z)\nbuilt with go1.26.0\n"},
		{"modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: setting("vcs.revision", rev, "vcs.modified", "true")},
			"chromafs (devel)\nrevision " + rev + " (modified)\n"},
	} {
		if got := formatVersion(tc.bi); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(noStamp, "-buildvcs=false") || !strings.Contains(noStamp, "checkout") {
		t.Errorf("the no-stamp message names neither cause:\n%s", noStamp)
	}
}

// TestMethodsPruned: the chromafs binary does not link text/template's
// executor. A template that can run may call any exported method by
// name, so the linker keeps every exported method of every type that
// reaches an interface: cobra's template-based --version did that, and
// the binary was 41 MB instead of 28 (see BENCHMARKS.md, "Process
// start"). --version and the help must print without templates.
func TestMethodsPruned(t *testing.T) {
	f, err := elf.Open(chromafsBinary(t))
	var format *elf.FormatError
	if errors.As(err, &format) {
		t.Skipf("not an ELF binary: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	const exec = "text/template.(*state).evalField"
	found := false
	for _, s := range syms {
		found = found || s.Name == exec
	}
	if !found && len(syms) < 1000 {
		t.Fatalf("the binary has %d symbols; a check for %s would prove nothing", len(syms), exec)
	}
	if found {
		t.Errorf("chromafs links %s: some code runs a text/template (cobra's Set*Template, for one), so the linker keeps every exported method; find it with `go build -ldflags=-dumpdep ./cmd/chromafs 2>&1 | grep ReflectMethod`", exec)
	}
}

// TestGNUCommands checks, on a real collection, the command lines whose
// behaviour was once wrong: ls -lh printed the help; tree of a file and
// of a missing path used formats of their own; statuses.
func TestGNUCommands(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if out, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args           []string
		stdout, stderr string // stdout: a substring; stderr: exact
		status         int
	}{
		{[]string{"ls", "-lh", "/guides/auth"}, " 822 ", "", 0},
		{[]string{"ls", "-1Ad", "/guides", "/index.md"}, "/guides\n/index.md\n", "", 0},
		{[]string{"ls", "/nonexistent"}, "", "chromafs ls: cannot access '/nonexistent': No such file or directory\n", 2},
		{[]string{"ls", "/internal"}, "", "chromafs ls: cannot access '/internal': No such file or directory\n", 2},
		{[]string{"cat", "/nope"}, "", "chromafs cat: /nope: No such file or directory\n", 1},
		{[]string{"stat", "/nope"}, "", "chromafs stat: cannot statx '/nope': No such file or directory\n", 1},
		{[]string{"stat", "-c", "%n %s %F", "/index.md"}, "/index.md 448 regular file\n", "", 0},
		{[]string{"find", "/nope"}, "", "chromafs find: ‘/nope’: No such file or directory\n", 1},
		{[]string{"find", "/guides", "-name", "*.md", "-o", "-name", "*.mdx"}, "/guides/auth/oauth.mdx\n", "", 0},
		{[]string{"tree", "/index.md"}, "/index.md  [error opening dir]\n\n0 directories, 1 file\n", "", 0},
		{[]string{"tree", "/nope"}, "/nope  [error opening dir]\n\n0 directories, 0 files\n", "", 2},
		{[]string{"tree", "-d", "-L", "1", "/"}, "/\n├── concepts\n", "", 0},
		{[]string{"--groups", "staff", "tree", "/internal"}, "/internal\n", "", 0},
		{[]string{"cat", "-n", "/index.md"}, "     1\t", "", 0},
	} {
		out, errOut, code := cli(t, append(g, tc.args...)...)
		if !strings.Contains(out, tc.stdout) || errOut != tc.stderr || code != tc.status {
			t.Errorf("%q: status %d, stderr %q, stdout\n%s\nwant status %d, stderr %q, stdout with %q", tc.args, code, errOut, out, tc.status, tc.stderr, tc.stdout)
		}
	}
	// validate -q prints only problems: nothing on a clean collection.
	if out, errOut, code := cli(t, append(g, "validate", "-q")...); code != 0 || out != "" || errOut != "" {
		t.Errorf("validate -q on a clean collection: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, _, code := cli(t, append(g, "validate")...); code != 0 || !strings.Contains(out, " pages, ") {
		t.Errorf("validate: status %d, %q lacks the summary", code, out)
	}
	// Global flags may come anywhere among the command's own arguments.
	out, errOut, code := cli(t, "ls", "--chroma-url", srv.URL, "-l", "--collection="+coll, "/guides/auth")
	if code != 0 || !strings.Contains(out, "oauth.mdx") {
		t.Errorf("ls with global flags among its own: status %d, %s%s", code, out, errOut)
	}
}

// TestDemoQuote: scripts/demo.sh prints each command so that pasting it
// into a shell runs the same argument list ("*.md" stays quoted).
func TestDemoQuote(t *testing.T) {
	args := []string{"./bin/chromafs", "find", "/", "-type", "f", "-name", "*.md", "it's", "", "a b", "$HOME", "x;y", "~", "plain-word/x.md"}
	script := `source <(sed -n '/^quote()/,/^}/p' ../../scripts/demo.sh)
line=$(quote "$@")
printf '%s\n' "$line"
eval "set -- $line"
printf '[%s]' "$@"`
	out, err := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	line, roundTrip, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(line, "./bin/chromafs find / -type f -name '*.md' ") {
		t.Errorf("printed command %q does not quote the pattern", line)
	}
	want := ""
	for _, a := range args {
		want += "[" + a + "]"
	}
	if roundTrip != want {
		t.Errorf("the printed command %q runs as %s, want %s", line, roundTrip, want)
	}
}
