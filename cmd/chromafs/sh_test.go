package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// cliIn runs the command in-process with stdin as its standard input.
func cliIn(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	_, err := root.ExecuteContextC(context.Background())
	var ee exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.code
	default:
		errb.WriteString(err.Error())
		code = 2
	}
	return out.String(), errb.String(), code
}

// TestSh: chromafs sh -c runs one line over the collection and exits with
// its status; without -c it runs the lines of standard input in one
// session, whose working directory lasts from line to line.
func TestSh(t *testing.T) {
	srv := testenv.Chroma(t)
	g := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t)}
	if out, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	lsOut, _, _ := cli(t, append(g, "ls", "-R", "/")...)
	for _, c := range []struct {
		args     []string
		stdin    string
		out, err string
		code     int
	}{
		{args: []string{"sh", "-c", "ls -R /"}, out: lsOut},
		{args: []string{"sh", "-c", "cd /guides && pwd && ls auth | cat -n"}, out: "/guides\n     1\tapi-keys.md\n     2\toauth.mdx\n"},
		{args: []string{"sh", "-c", "cat /internal/oncall.md"}, err: "cat: /internal/oncall.md: No such file or directory\n", code: 1},
		{args: append([]string{"--groups", "staff"}, "sh", "-c", "ls /internal"), out: "oncall.md\nrunbooks\n"},
		{args: []string{"sh", "-c", "echo x > /index.md; exit 3"}, err: "bash: /index.md: Read-only file system\n", code: 3},
		{args: []string{"sh", "-c", "curl https://example.com"}, err: "bash: curl: command not found\n", code: 127},
		{args: []string{"sh", "-c", "echo 0123456789 | cat", "--max-output", "5"}, out: "01234\n[output truncated: 6 more characters; narrow the command, e.g. with head, grep -m or a more specific path]\n"},
		{args: []string{"sh"}, stdin: "cd guides\npwd\nfor f in *; do\n  echo \"<$f>\"\ndone\ncd /nope\n", out: "/guides\n<auth>\n<quickstart.md>\n", err: "bash: cd: /nope: No such file or directory\n", code: 1},
		{args: []string{"sh"}, stdin: "cd /concepts\nls\n", out: "limits.md\nprojects.md\n"},
		// Reads after the collection opened (a page, not only listings).
		{args: []string{"sh", "-c", "cat /guides/quickstart.md | head -1"}, out: "# Quickstart\n"},
		// search: BM25 needs no model; the private runbook is hidden.
		{args: []string{"sh", "-c", "search --lexical -n 1 rotate keys | cut -d ' ' -f 1"}, out: "/guides/auth/api-keys.md:1-9\n"},
		// "rotation" has the stem of "rotate".
		{args: append([]string{"--groups", "staff"}, "sh", "-c", "search --lexical --path internal rotate | cut -d ' ' -f 1"), out: "/internal/runbooks/rotate-signing-key.md:1-1\n/internal/oncall.md:3-3\n"},
	} {
		args := append(append([]string(nil), g...), c.args...)
		out, errOut, code := cliIn(t, c.stdin, args...)
		if out != c.out || errOut != c.err || code != c.code {
			t.Errorf("%q (stdin %q):\n got out %q err %q status %d\nwant out %q err %q status %d", c.args, c.stdin, out, errOut, code, c.out, c.err, c.code)
		}
	}
}

// TestShSearchEmbedding: the shell's semantic search builds the query
// embedder in chromafs-embed, whose errors it reports: a collection
// written with ingest's default (the consistent hash, not recorded)
// names no function. With --vectors the shell's search fails and points
// to its --lexical, chromafs search to --embedding and --lexical; by
// default (hybrid) both answer from the lexical ranking after one line on
// stderr that says why.
func TestShSearchEmbedding(t *testing.T) {
	t.Setenv("CHROMAFS_EMBED_BIN", embedBinary(t))
	srv := testenv.Chroma(t)
	g := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t)}
	if out, errOut, code := cli(t, append(g, "ingest", docsDir)...); code != 0 {
		t.Fatalf("ingest: status %d\n%s%s", code, out, errOut)
	}
	_, errOut, code := cli(t, append(g, "sh", "-c", "search --vectors rotate keys")...)
	if code != 2 || !strings.Contains(errOut, "records no embedding function") || !strings.Contains(errOut, "; search --lexical ranks the pages by the query's words\n") {
		t.Errorf("search --vectors over a consistent-hash collection: status %d, %q; want 2 and an error that names search --lexical", code, errOut)
	}
	out, errOut, code := cli(t, append(g, "sh", "-c", "search rotate keys")...)
	if code != 0 || !strings.Contains(out, "\n/guides/auth/api-keys.md:") || strings.Count(errOut, "\n") != 1 ||
		!strings.HasPrefix(errOut, "search: ranked by the query's words alone (") || !strings.Contains(errOut, "records no embedding function") {
		t.Errorf("search over a consistent-hash collection: status %d, %q, %q; want the lexical hits after one line that says why", code, out, errOut)
	}
	_, errOut, code = cli(t, append(g, "search", "--vectors", "rotate keys")...)
	if code != 2 || !strings.Contains(errOut, "was embedded with ingest's default, hash, whose vectors carry no meaning") ||
		!strings.Contains(errOut, "with --lexical") || !strings.Contains(errOut, "chromafs ingest --recreate --embedding ngram DIR") {
		t.Errorf("chromafs search --vectors over a consistent-hash collection: status %d, %q; want 2 and an error that names hash, --lexical and the re-ingest", code, errOut)
	}
	out, errOut, code = cli(t, append(g, "search", "rotate keys")...)
	if code != 0 || !strings.Contains(out, "\n/guides/auth/api-keys.md:") || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "ranked by the query's words alone") || !strings.Contains(errOut, "embedded with hash") {
		t.Errorf("chromafs search over a consistent-hash collection: status %d, %q, %q; want the lexical hits after one line that names hash", code, out, errOut)
	}
	// sh --embedding names the function; the consistent hash of the
	// collection's dimension ranks (meaninglessly) one hit.
	out, errOut, code = cli(t, append(g, "sh", "--embedding", "hash", "-c", "search -n 1 rotate keys | grep -c '^/'")...)
	if out != "1\n" || errOut != "" || code != 0 {
		t.Errorf("sh --embedding hash: %q %q status %d; want one hit", out, errOut, code)
	}
}
