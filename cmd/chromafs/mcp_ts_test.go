package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromafs/chromafs/internal/server"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
)

// tsClient returns the node executable and the path of the independent MCP
// client internal/testenv/mcpclient/check.mjs, whose npm package (the
// official TypeScript SDK) `make deps` installs. Without node or the
// package the test is skipped, or fails under CI=true.
func tsClient(t *testing.T) (node, script string) {
	t.Helper()
	missing := func(msg string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("the TypeScript MCP client needs node in PATH (Node.js 20 or later)")
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "internal", "testenv", "mcpclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the TypeScript MCP client is not installed: run `make deps` or `cd internal/testenv/mcpclient && npm ci`")
	}
	return node, filepath.Join(dir, "check.mjs")
}

// tsCorpus writes testcorpus.Files, plus a page of more lines than the read
// tool returns by default and a page with a line longer than it returns
// whole, into a directory, ingests it into a collection of the shared
// Chroma with internal/ private to staff, and returns the global flags that
// select that collection, the directory and the private pages' slugs. The
// tests only read them: the first to ask makes them, once per test binary.
func tsCorpus(t *testing.T) (global []string, dir string, private []string) {
	t.Helper()
	// The search tool embeds queries in chromafs-embed.
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	c := tsData.get(t, makeTSCorpus)
	return slices.Clone(c.global), c.dir, slices.Clone(c.private)
}

type tsCorpusData struct {
	global, private []string
	dir             string
}

var tsData shared[tsCorpusData]

func makeTSCorpus(t *testing.T) tsCorpusData {
	t.Helper()
	srv := testenv.Chroma(t)
	global := []string{"--chroma-url", srv.URL, "--collection", testenv.SharedCollectionName("mcp-ts-corpus")}
	var private []string
	files := testcorpus.Files(t)
	var many strings.Builder
	for i := range 2100 {
		fmt.Fprintf(&many, "%d\n", i%10)
	}
	files["reference/many-lines.md"] = many.String()
	files["reference/long-line.md"] = "# Long\n" + strings.Repeat("0123456789", 250) + "\nafter\n"
	dir, err := testenv.TempDir("chromafs-mcp-ts-")
	if err != nil {
		t.Fatal(err)
	}
	for slug, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(slug))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// Whole-second times set here, different between pages, rather
		// than the write's: check.mjs compares stat's time with the
		// source file's, and a time the clock gave at the write could
		// read back differently across a second boundary (seen once).
		mt := testcorpus.ModTime.Add(time.Duration(len(slug)*60+len(content)%60) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		if ok, _ := testcorpus.Access(slug); !ok {
			private = append(private, slug)
		}
	}
	slices.Sort(private)
	if len(private) == 0 {
		t.Fatal("the corpus has no private page")
	}
	rules := filepath.Join(t.TempDir(), "access.rules")
	if err := os.WriteFile(rules, []byte("** public\ninternal/** private groups=staff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Embedded with the n-gram function, which the search tool's check
	// needs (a page's own words find it) and which downloads nothing.
	if out, errOut, code := cli(t, append(slices.Clone(global), "ingest", "--embedding", "ngram", "--rules", rules, dir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	return tsCorpusData{global: global, dir: dir, private: private}
}

// tsReport is the JSON report of check.mjs.
type tsReport struct {
	Transport string   `json:"transport"`
	Tools     []string `json:"tools"`
	Calls     int      `json:"calls"`
	Checks    int      `json:"checks"`
	Passed    int      `json:"passed"`
	Failures  []struct {
		Check  string `json:"check"`
		Detail string `json:"detail"`
	} `json:"failures"`
}

// readTSReport reads the JSON report that the TypeScript script name
// printed on stdout, having exited with err, and fails t with every
// failed check, or when there is no report, or when the script failed
// with no failed check.
func readTSReport(t *testing.T, name string, err error, stdout, stderr fmt.Stringer) tsReport {
	t.Helper()
	var rep tsReport
	if jerr := json.Unmarshal([]byte(stdout.String()), &rep); jerr != nil {
		t.Fatalf("%s: %v; no JSON report (%v)\nstdout:\n%s\nstderr:\n%s", name, err, jerr, stdout.String(), stderr.String())
	}
	for _, f := range rep.Failures {
		t.Errorf("%s: %s: %s", name, f.Check, f.Detail)
	}
	if err != nil && len(rep.Failures) == 0 {
		t.Errorf("%s: %v with no failed check\nstderr:\n%s", name, err, stderr.String())
	}
	return rep
}

// runTSClient runs check.mjs with args and fails t with every failed check.
func runTSClient(t *testing.T, args ...string) tsReport {
	t.Helper()
	node, script := tsClient(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = filepath.Dir(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	rep := readTSReport(t, "check.mjs", err, &stdout, &stderr)
	if rep.Checks == 0 {
		t.Errorf("check.mjs ran no check")
	}
	t.Logf("check.mjs over %s: %d tool calls, %d of %d checks passed", rep.Transport, rep.Calls, rep.Passed, rep.Checks)
	return rep
}

// TestMCPTypeScriptClientStdio drives `chromafs mcp` with the official
// TypeScript SDK (check.mjs): a public user and a staff user each list the
// tools, call every one and get the source files' contents, listings,
// sizes and matches; the public user never sees, in any answer, a page of
// internal/, and gets for each the answer a missing path gets.
func TestMCPTypeScriptClientStdio(t *testing.T) {
	tsClient(t)
	global, dir, private := tsCorpus(t)
	bin := chromafsBinary(t)
	t.Run("public", func(t *testing.T) {
		args := []string{"--docs", dir}
		for _, p := range private {
			args = append(args, "--private", p)
		}
		runTSClient(t, append(append(args, "--stdio", bin), append(global, "mcp")...)...)
	})
	t.Run("staff", func(t *testing.T) {
		runTSClient(t, append([]string{"--docs", dir, "--stdio", bin}, append(global, "--groups", "staff", "mcp")...)...)
	})
}

// TestMCPInspectorCLI runs the MCP Inspector's CLI (the pinned npm package
// @modelcontextprotocol/inspector-cli, which `npx
// @modelcontextprotocol/inspector --cli` runs) against `chromafs mcp`: it
// lists the six tools and calls read.
func TestMCPInspectorCLI(t *testing.T) {
	node, script := tsClient(t)
	cli := filepath.Join(filepath.Dir(script), "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the MCP Inspector's CLI is not installed (make deps): %v", err)
	}
	global, dir, _ := tsCorpus(t)
	bin := chromafsBinary(t)
	inspect := func(args ...string) []byte {
		t.Helper()
		argv := append(append([]string{cli, "--cli", bin}, global...), "mcp")
		cmd := exec.Command(node, append(argv, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcp-inspector-cli %q: %v\n%s%s", args, err, out, stderr.String())
		}
		return out
	}
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	out := inspect("--method", "tools/list")
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("tools/list: %s is not annotated read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"bash", "glob", "grep", "ls", "read", "search", "stat"}; !slices.Equal(names, want) {
		t.Errorf("tools/list: %q, want %q", names, want)
	}
	var call struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	out = inspect("--method", "tools/call", "--tool-name", "read", "--tool-arg", "path=/index.md", "--tool-arg", "limit=2")
	if err := json.Unmarshal(out, &call); err != nil {
		t.Fatalf("tools/call read: %v\n%s", err, out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	want := fmt.Sprintf("     1\t%s     2\t%s(lines 1-2 of %d; use offset=3 to continue)\n", lines[0], lines[1], strings.Count(string(src), "\n"))
	if call.IsError || len(call.Content) != 1 || call.Content[0].Text != want {
		t.Errorf("tools/call read path=/index.md limit=2: %s\nwant the text %q", out, want)
	}
}

// TestMCPTypeScriptClientHTTP drives `chromafs serve --mcp` with the
// official TypeScript SDK's streamable HTTP client (check.mjs), four users
// at once over one server: anonymous and dave (basic sign-in, a group
// without pages) see the public pages only and never a page of internal/;
// carol (basic sign-in) and bot (a bearer token), both staff, see them all.
func TestMCPTypeScriptClientHTTP(t *testing.T) {
	tsClient(t)
	global, dir, private := tsCorpus(t)
	users := filepath.Join(t.TempDir(), "users")
	entries := "carol password=" + cheapHash(t, "carol-pw") + " groups=staff\n" +
		"dave password=" + cheapHash(t, "dave-pw") + " groups=sales\n" +
		"bot token-sha256=" + server.HashToken("bot-token") + " groups=staff\n"
	if err := os.WriteFile(users, []byte(entries), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint := startMCPServe(t, global, "--users", users)
	publicArgs := []string{"--docs", dir}
	for _, p := range private {
		publicArgs = append(publicArgs, "--private", p)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"anonymous", append(slices.Clone(publicArgs), "--url", endpoint)},
		{"dave", append(slices.Clone(publicArgs), "--url", endpoint, "--basic", "dave:dave-pw")},
		{"carol", []string{"--docs", dir, "--url", endpoint, "--basic", "carol:carol-pw"}},
		{"bot", []string{"--docs", dir, "--url", endpoint, "--token", "bot-token"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if rep := runTSClient(t, c.args...); rep.Transport != "http" {
				t.Errorf("transport %q, want http", rep.Transport)
			}
		})
	}
}

// TestMCPTypeScriptClientResources drives `chromafs serve --mcp` with the
// official TypeScript SDK's client (resources.mjs) as an anonymous user:
// it lists the resources page by page and reads each against the source
// folder (internal/ is private: never listed, read as a missing page
// is), reads the template list and bad URIs; then, after `chromafs
// ingest` of a changed folder (a page added, one changed, one removed)
// into the served collection, it receives
// notifications/resources/list_changed and lists and reads the new tree.
func TestMCPTypeScriptClientResources(t *testing.T) {
	node, script := tsClient(t)
	script = filepath.Join(filepath.Dir(script), "resources.mjs")
	global := []string{"--chroma-url", testenv.Chroma(t).URL, "--collection", testenv.CollectionName(t)}
	files := testcorpus.Files(t)
	files["reference/a page (2).md"] = "# A page\n\nwhose name needs percent-encoding\n"
	var private, public []string
	for slug := range files {
		if ok, _ := testcorpus.Access(slug); !ok {
			private = append(private, slug)
		} else {
			public = append(public, slug)
		}
	}
	slices.Sort(public)
	if len(private) == 0 || len(public) < 3 {
		t.Fatal("the corpus has no private page, or too few public ones")
	}
	changed := maps.Clone(files)
	changed["changelog/new-page.md"] = "# New\n\nadded after the server started\n"
	changed[public[0]] += "\nchanged after the server started\n"
	delete(changed, public[1])
	before, after := testenv.WriteTree(t, files), testenv.WriteTree(t, changed)
	rules := filepath.Join(t.TempDir(), "access.rules")
	if err := os.WriteFile(rules, []byte("** public\ninternal/** private groups=staff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ingestDir := func(dir string) {
		t.Helper()
		if out, errOut, code := cli(t, append(slices.Clone(global), "ingest", "--rules", rules, dir)...); code != 0 {
			t.Fatalf("ingest %s: status %d\n%s%s", dir, code, out, errOut)
		}
	}
	ingestDir(before)
	endpoint := startMCPServe(t, global, "--tree-max-age", "1s")
	args := []string{script, "--docs", before, "--after", after, "--url", endpoint, "--wait", "60"}
	for _, p := range private {
		args = append(args, "--private", p)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = filepath.Dir(script)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(stderrPipe)
	ingested := false
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if sc.Text() == "ready" && !ingested {
			ingested = true
			ingestDir(after)
		}
	}
	err = cmd.Wait()
	rep := readTSReport(t, "resources.mjs", err, &stdout, &stderr)
	if !ingested {
		t.Errorf("resources.mjs never said ready\nstderr:\n%s", stderr.String())
	}
	if rep.Checks < 2*len(public) {
		t.Errorf("resources.mjs ran %d checks, fewer than two per page", rep.Checks)
	}
	t.Logf("resources.mjs: %d requests, %d of %d checks passed", rep.Calls, rep.Passed, rep.Checks)
}
