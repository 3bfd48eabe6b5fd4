package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/testenv"
)

// readmeExample is a command line that README.md shows: a line of a sh
// block, or a `$ ` line of a console block or of a block without a
// language, with the output shown under it.
type readmeExample struct {
	line  int      // where it starts in README.md, from 1
	cmd   string   // as written: continuation lines joined, trailing comment removed
	shown []string // the output lines shown under it (console and plain blocks)
}

// readmeNotRun are the README's examples that TestREADMEExamples does not
// run, keyed by the command as readmeExamples gives it, with the reason.
// An entry that matches no example fails the test, so the table cannot
// outlive the README's lines.
var readmeNotRun = map[string]string{
	"make demo":            "starts Chroma on port 8000 and writes bin/ and .chroma-demo/ in the repository; the collection this test ingests is the demo's (same docs, rules and --embedding ngram)",
	"make test":            "runs the test suite this test is part of",
	"make build":           "writes bin/ in the repository; the test builds its own chromafs and chromafs-embed",
	"go install ./cmd/...": "writes into $(go env GOPATH)/bin, outside the test's own directories",
	"chromafs serve --http 127.0.0.1:8080 --webdav 127.0.0.1:8081 --users users.txt": "a server that runs until stopped, on fixed ports, with a users file the README does not ship; TestServe runs serve --http and --webdav",
	"chromafs mcp": "serves MCP on standard input until it ends; TestMCPStdio drives it with a client, and the Inspector lines run here start it",
	"chromafs serve --mcp 127.0.0.1:8082 --users users.txt":                                                                       "a server that runs until stopped, on a fixed port, with a users file the README does not ship; TestMCPServe runs serve --mcp",
	`claude mcp add chromafs -e CHROMA_URL=http://localhost:8000 -e CHROMAFS_COLLECTION=example-docs -- "$PWD/bin/chromafs" mcp`:  "needs Claude Code, and changes its configuration",
	"claude mcp add --transport http chromafs-docs http://127.0.0.1:8082/mcp --header \"Authorization: Bearer $TOKEN\"":           "needs Claude Code and a serve --mcp server with a users file",
	"npx -y @modelcontextprotocol/inspector@0.15.0 --cli http://127.0.0.1:8082/mcp --method tools/list":                           "needs a serve --mcp server on 127.0.0.1:8082; TestMCPTypeScriptClientHTTP drives serve --mcp with the same SDK",
	"chromafs adopt --collection docs-langchain --dry-run":                                                                        "needs a collection that LangChain.js wrote; TestAdopt runs adopt (with --dry-run), grep, cat, stat and validate on one, and package adopt's tests write them with the real LangChain.js",
	"chromafs adopt --collection docs-langchain --rules examples/access.rules":                                                    "as the --dry-run line: TestAdopt adopts with --rules",
	"chromafs --collection docs-langchain grep -rn \"rotate\" /":                                                                  "as the --dry-run line: TestAdopt compares grep -rn on an adopted collection with GNU grep",
	"chromafs adopt --collection docs-langchain":                                                                                  "as the --dry-run line: TestAdopt adopts a second time and checks that every page is unchanged",
	"chromafs loadtest -c 8 --duration 10s http://127.0.0.1:8082/mcp":                                                             "needs a serve --mcp server on 127.0.0.1:8082 and runs 10 s; TestLoadtest runs loadtest against two serve --mcp processes",
	"chromafs serve --sites sites.yaml --http 127.0.0.1:8080 --webdav 127.0.0.1:8081 --mcp 127.0.0.1:8082":                        "a server that runs until stopped, on fixed ports, with a sites file whose identity providers the README names but does not run; TestServeSites runs serve --sites with three sites",
	"claude mcp add --transport http example http://127.0.0.1:8082/example/mcp --header \"Authorization: Bearer $EXAMPLE_TOKEN\"": "needs Claude Code and a serve --sites server",
	"claude mcp add --transport http acme https://docs.acme.com/mcp --header \"Authorization: Bearer $ACME_JWT\"":                 "needs Claude Code, a serve --sites server behind docs.acme.com and a token of its identity provider",
	"claude mcp add --transport http globex https://docs.example.net/globex/mcp --header \"Authorization: Bearer $GLOBEX_JWT\"":   "needs Claude Code, a serve --sites server behind docs.example.net and a token of its identity provider",
	"curl -i http://127.0.0.1:8080/readyz":                                                                                        "needs a serve process whose Chroma is stopped; TestServeChromaDownAtStart checks that answer",
}

// readmeStatus is the exit status of the README's examples that do not
// succeed, keyed like readmeNotRun; every other example must exit 0.
var readmeStatus = map[string]int{
	"chromafs ingest --bogus": 2, // a usage error, shown as one
}

// readmeEnv are the variables an `export` line of the README may set: the
// ones the test sets itself, to its binary, its Chroma and its collection.
// The values are those of `make demo`, which the test replaces by its own
// (for PATH, the README must put the binary make demo built first).
var readmeEnv = map[string]func(string) bool{
	"PATH":                func(v string) bool { return strings.HasPrefix(strings.Trim(v, `"`), "$PWD/bin:") },
	"CHROMA_URL":          func(v string) bool { return v == "http://localhost:8000" },
	"CHROMAFS_COLLECTION": func(v string) bool { return v == "example-docs" },
}

// TestREADMEExamples runs every command line README.md shows (see
// readmeExamples) against the demo collection: examples/docs ingested
// with examples/access.rules and --embedding ngram, as `make demo` does,
// into a collection of its own. Each runs in `sh -c`, in the repository's
// root, with the built chromafs first on PATH, CHROMA_URL and
// CHROMAFS_COLLECTION naming the test's Chroma and collection (the README's
// http://localhost:8000, example-docs and redis://localhost:6379 are
// replaced by the test's), and `npx -y @modelcontextprotocol/inspector@V`
// running the Inspector CLI that make deps installed (V must be its
// version). Each must exit as readmeStatus says (0 when it says nothing)
// and print something: on standard output when it succeeds (standard
// error then empty, but for the Inspector's node), on standard error when
// it fails; an Inspector answer must not be a tool error. Where the
// README shows the output, the output must be that (search scores within
// 0.01). Every other example (make, go, curl, ...) must be in readmeNotRun
// with the reason, or the test fails: it runs only chromafs and npx lines.
func TestREADMEExamples(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(string(text))
	seen := map[string]bool{}
	var run, ingest []readmeExample
	shown := 0
	for _, ex := range examples {
		if seen[ex.cmd] {
			continue // shown twice, run once
		}
		seen[ex.cmd] = true
		switch _, skip := readmeNotRun[ex.cmd]; {
		case skip:
		case strings.HasPrefix(ex.cmd, "export "):
			checkReadmeExport(t, ex)
		case strings.HasPrefix(ex.cmd, "chromafs ingest "):
			ingest = append(ingest, ex)
		case strings.HasPrefix(ex.cmd, "chromafs ") || strings.HasPrefix(ex.cmd, "npx "):
			run = append(run, ex)
		default:
			// Not run: it could change the repository or the machine.
			t.Errorf("README.md:%d %s: an example the test neither runs (chromafs and npx lines) nor lists in readmeNotRun: add it there with the reason", ex.line, ex.cmd)
		}
		if ex.shown != nil {
			shown++
		}
	}
	for _, table := range []map[string]string{readmeNotRun, statusReasons()} {
		for cmd := range table {
			if !seen[cmd] {
				t.Errorf("the table entry %q matches no example of README.md: remove it or fix it", cmd)
			}
		}
	}
	// The parser must find the README's examples, not none of them.
	if len(run) < 20 || shown < 3 {
		t.Fatalf("found %d examples to run and %d with output shown in README.md: the parser missed them", len(run), shown)
	}

	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	if out, errOut, code := cli(t, "--chroma-url", srv.URL, "--collection", coll, "ingest",
		"--embedding", "ngram", "--rules", filepath.Join(root, "examples/access.rules"), filepath.Join(root, "examples/docs")); code != 0 {
		t.Fatalf("ingest the demo collection: status %d\n%s%s", code, out, errOut)
	}
	bin := chromafsBinary(t)
	npxDir := t.TempDir()
	inspector := writeNpxShim(t, root, npxDir)
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CHROMA") || name == "PATH" || name == "LC_ALL" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+npxDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CHROMA_URL="+srv.URL, "CHROMAFS_COLLECTION="+coll, "CHROMAFS_EMBED_BIN="+embedBinary(t), "LC_ALL=C.UTF-8")

	check := func(t *testing.T, ex readmeExample) {
		t.Helper()
		replace := []string{"http://localhost:8000", srv.URL, "example-docs", coll}
		if strings.Contains(ex.cmd, "redis://localhost:6379") {
			replace = append(replace, "redis://localhost:6379", testenv.Redis(t).URL)
		}
		npx := strings.HasPrefix(ex.cmd, "npx ")
		if npx {
			tsClient(t) // node and make deps' packages, or skip (fail under CI)
			if _, err := os.Stat(inspector); err != nil {
				t.Fatalf("the MCP Inspector's CLI is not installed (make deps): %v", err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", strings.NewReplacer(replace...).Replace(ex.cmd))
		cmd.Dir = root
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("README.md:%d %s: %v", ex.line, ex.cmd, err)
			}
			code = ee.ExitCode()
		}
		out, errOut := stdout.String(), stderr.String()
		want := readmeStatus[ex.cmd]
		switch {
		case code != want:
			t.Errorf("README.md:%d %s: status %d, want %d\nstdout:\n%s\nstderr:\n%s", ex.line, ex.cmd, code, want, out, errOut)
		case code == 0 && strings.TrimSpace(out) == "":
			t.Errorf("README.md:%d %s: printed nothing on the demo collection (stderr %q): show an example that prints something", ex.line, ex.cmd, errOut)
		case code == 0 && errOut != "" && !npx:
			t.Errorf("README.md:%d %s: wrote to standard error:\n%s", ex.line, ex.cmd, errOut)
		case code != 0 && strings.TrimSpace(errOut) == "":
			t.Errorf("README.md:%d %s: status %d with no message", ex.line, ex.cmd, code)
		case npx && strings.Contains(out, `"isError": true`):
			t.Errorf("README.md:%d %s: the tool answered an error:\n%s", ex.line, ex.cmd, out)
		}
		if ex.shown != nil {
			if diff := diffShown(out+errOut, ex.shown); diff != "" {
				t.Errorf("README.md:%d %s: the output is not what the README shows: %s\ngot:\n%s%s\nshown:\n%s", ex.line, ex.cmd, diff, out, errOut, strings.Join(ex.shown, "\n"))
			}
		}
	}
	// Ingests write the collection: one at a time, before the readers.
	for _, ex := range ingest {
		t.Run(ex.cmd, func(t *testing.T) { check(t, ex) })
	}
	t.Run("readers", func(t *testing.T) {
		for _, ex := range run {
			t.Run(ex.cmd, func(t *testing.T) {
				t.Parallel()
				check(t, ex)
			})
		}
	})
}

func statusReasons() map[string]string {
	m := map[string]string{}
	for cmd, code := range readmeStatus {
		m[cmd] = strconv.Itoa(code)
	}
	return m
}

// checkReadmeExport checks that an `export` line of the README sets only
// variables the test sets itself (readmeEnv), to make demo's values.
func checkReadmeExport(t *testing.T, ex readmeExample) {
	t.Helper()
	for _, a := range strings.Fields(strings.TrimPrefix(ex.cmd, "export ")) {
		name, value, _ := strings.Cut(a, "=")
		ok, known := readmeEnv[name]
		switch {
		case !known:
			t.Errorf("README.md:%d %s: sets %s, which the test does not set for the examples: set it in TestREADMEExamples", ex.line, ex.cmd, name)
		case !ok(value):
			t.Errorf("README.md:%d %s: %s=%s is not what make demo sets up", ex.line, ex.cmd, name, value)
		}
	}
}

// writeNpxShim writes into dir an npx that runs the README's
// `npx -y @modelcontextprotocol/inspector@V ARGS` as the Inspector CLI
// that make deps installed under internal/testenv/mcpclient, when V is
// its version, and refuses anything else. It returns the CLI's path.
func writeNpxShim(t *testing.T, root, dir string) string {
	t.Helper()
	pkg := filepath.Join(root, "internal", "testenv", "mcpclient", "node_modules", "@modelcontextprotocol", "inspector-cli")
	version := "not-installed"
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil {
		var p struct{ Version string }
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		version = p.Version
	}
	cli := filepath.Join(pkg, "build", "cli.js")
	script := fmt.Sprintf(`#!/bin/sh
# npx for TestREADMEExamples: the pinned MCP Inspector CLI only.
if [ "$1" = -y ] && [ "$2" = @modelcontextprotocol/inspector@%s ]; then
	shift 2
	exec node '%s' "$@"
fi
echo "npx (TestREADMEExamples): only 'npx -y @modelcontextprotocol/inspector@%s ...' runs here, the Inspector make deps installs" >&2
exit 127
`, version, cli, version)
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cli
}

// readmeExamples returns the command lines of the markdown text: every
// line of a sh, bash or shell block but comments, and the `$ ` lines of
// console blocks and blocks without a language, with the lines under each
// up to the next `$ ` line as its shown output (trailing blank lines
// dropped; nil when none is shown). A line ending in a
// backslash continues on the next; a trailing comment is dropped.
func readmeExamples(text string) []readmeExample {
	var out []readmeExample
	lang, in := "", false
	var cur *readmeExample
	pending := ""
	flush := func() {
		if cur != nil {
			for n := len(cur.shown); n > 0 && cur.shown[n-1] == ""; n-- {
				cur.shown = cur.shown[:n-1]
			}
			out = append(out, *cur)
			cur = nil
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			if in {
				flush()
				in = false
			} else {
				lang, in = strings.TrimSpace(strings.TrimPrefix(line, "```")), true
			}
			continue
		}
		if !in {
			continue
		}
		shell := lang == "sh" || lang == "bash" || lang == "shell"
		if !shell && lang != "console" && lang != "" {
			continue
		}
		if pending != "" {
			pending += " " + strings.TrimSpace(line)
		} else {
			switch {
			case shell:
				if s := strings.TrimSpace(line); s == "" || strings.HasPrefix(s, "#") {
					continue
				}
				pending = line
			case strings.HasPrefix(line, "$ "):
				pending = strings.TrimPrefix(line, "$ ")
			case cur != nil:
				cur.shown = append(cur.shown, line)
				continue
			default:
				continue
			}
			flush()
			cur = &readmeExample{line: i + 1}
			if !shell {
				cur.shown = []string{}
			}
		}
		if c := strings.TrimRight(pending, " \t"); strings.HasSuffix(c, `\`) && !strings.HasSuffix(c, `\\`) {
			pending = strings.TrimSpace(strings.TrimSuffix(c, `\`))
			continue
		}
		cur.cmd = stripShellComment(pending)
		pending = ""
		if shell {
			flush()
		}
	}
	flush()
	for i := range out {
		if s := out[i].shown; s != nil && len(s) == 0 {
			out[i].shown = nil // a command shown without its output
		}
	}
	return out
}

// stripShellComment removes a trailing `# comment` from a shell command
// line: a # that starts a word outside quotes.
func stripShellComment(s string) string {
	var quote rune
	escaped := false
	for i, r := range s {
		switch {
		case escaped:
			escaped = false
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' {
				escaped = true
			}
		case r == '\\':
			escaped = true
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimRight(s[:i], " \t")
		}
	}
	return strings.TrimRight(s, " \t")
}

// searchHit is a line of `chromafs search`: /path:START-END, the score, the
// text.
var searchHit = regexp.MustCompile(`^(/\S+:[0-9]+-[0-9]+)  (-?[0-9]+\.[0-9]+)  (.*)$`)

// diffShown compares output with the lines the README shows for it and
// describes the first difference, or returns "". Search hits compare
// their path, lines and text exactly and their scores within 0.01 (a
// score is rounded from Chroma's distance).
func diffShown(output string, shown []string) string {
	got := strings.Split(strings.TrimSuffix(output, "\n"), "\n")
	if len(got) != len(shown) {
		return fmt.Sprintf("%d lines, shown %d", len(got), len(shown))
	}
	for i := range got {
		if got[i] == shown[i] {
			continue
		}
		g, s := searchHit.FindStringSubmatch(got[i]), searchHit.FindStringSubmatch(shown[i])
		if g != nil && s != nil && g[1] == s[1] && g[3] == s[3] {
			gs, _ := strconv.ParseFloat(g[2], 64)
			ss, _ := strconv.ParseFloat(s[2], 64)
			if math.Abs(gs-ss) <= 0.0100001 {
				continue
			}
		}
		return fmt.Sprintf("line %d is %q, shown %q", i+1, got[i], shown[i])
	}
	return ""
}

// TestReadmeExamplesParse: which lines of a markdown text are examples,
// joined and without comments, and which are their shown output.
func TestReadmeExamplesParse(t *testing.T) {
	md := "intro `chromafs ls` inline\n" +
		"```sh\n" +
		"# a comment\n" +
		"export A=1\n" +
		"\n" +
		"chromafs ls /   # list\n" +
		"chromafs sh -c 'echo a # b' \\\n" +
		"  --max-output 5\n" +
		"chromafs grep -e \\# /\n" +
		"```\n" +
		"```go\n" +
		"chromafs.New(ctx, store)\n" +
		"```\n" +
		"```\n" +
		"alice password=x\n" +
		"```\n" +
		"```console\n" +
		"$ chromafs search q   # best first\n" +
		"/a.md:1-2  0.50  # A\n" +
		"\n" +
		"$ chromafs search -v q\n" +
		"```\n" +
		"```\n" +
		"$ chromafs ingest --bogus\n" +
		"chromafs ingest: unrecognized option '--bogus'\n" +
		"```\n"
	want := []readmeExample{
		{line: 4, cmd: "export A=1"},
		{line: 6, cmd: "chromafs ls /"},
		{line: 7, cmd: "chromafs sh -c 'echo a # b' --max-output 5"},
		{line: 9, cmd: `chromafs grep -e \# /`},
		{line: 18, cmd: "chromafs search q", shown: []string{"/a.md:1-2  0.50  # A"}},
		{line: 21, cmd: "chromafs search -v q"},
		{line: 24, cmd: "chromafs ingest --bogus", shown: []string{"chromafs ingest: unrecognized option '--bogus'"}},
	}
	got := readmeExamples(md)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readmeExamples:\n%+v\nwant\n%+v", got, want)
	}
	for _, c := range []struct {
		output string
		shown  []string
		same   bool
	}{
		{"/a.md:1-2  0.50  # A\n", []string{"/a.md:1-2  0.50  # A"}, true},
		{"/a.md:1-2  0.51  # A\n", []string{"/a.md:1-2  0.50  # A"}, true},
		{"/a.md:1-2  0.52  # A\n", []string{"/a.md:1-2  0.50  # A"}, false},
		{"/a.md:1-3  0.50  # A\n", []string{"/a.md:1-2  0.50  # A"}, false},
		{"/a.md:1-2  0.50  # B\n", []string{"/a.md:1-2  0.50  # A"}, false},
		{"x\ny\n", []string{"x"}, false},
		{"28 ./a.md\n", []string{"29 ./a.md"}, false},
	} {
		if got := diffShown(c.output, c.shown) == ""; got != c.same {
			t.Errorf("diffShown(%q, %q) same = %v, want %v", c.output, c.shown, got, c.same)
		}
	}
}
