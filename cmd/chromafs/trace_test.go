package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestTrace runs grep with and without CHROMAFS_TRACE: the output is the
// same, and the trace names every phase and the requests to Chroma.
func TestTrace(t *testing.T) {
	srv := testenv.Chroma(t)
	coll := testenv.CollectionName(t)
	g := []string{"--chroma-url", srv.URL, "--collection", coll}
	if _, errOut, code := cli(t, append(g, "ingest", "--rules", "../../examples/access.rules", docsDir)...); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	bin := chromafsBinary(t)
	run := func(trace string) (string, string) {
		cmd := exec.Command(bin, append(g, "grep", "-rn", "token", "/")...)
		cmd.Env = append(os.Environ(), "CHROMAFS_TRACE="+trace)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromafs grep: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	plain, quiet := run("0")
	traced, trace := run("1")
	if quiet != "" {
		t.Errorf("CHROMAFS_TRACE=0 wrote to stderr:\n%s", quiet)
	}
	if plain == "" || traced != plain {
		t.Errorf("output with the trace differs:\n%s\nwithout:\n%s", traced, plain)
	}
	for _, want := range []string{
		"parse arguments", "open store (collection lookup)", "http GET /collections/" + coll + ": 200",
		"session (tree fetch and parse", "/get (", "walk", "match (", "output flush", "exit",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace does not mention %q:\n%s", want, trace)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(trace), "\n") {
		if !strings.HasPrefix(l, "chromafs trace: ") {
			t.Errorf("trace line without its prefix: %q", l)
		}
	}
}

func TestDescribeBody(t *testing.T) {
	for body, want := range map[string]string{
		`{"ids":["a","b"],"include":["documents"]}`:                     ` (2 ids, include ["documents"])`,
		`{"where_document":{"$regex":"x\\.y"},"include":[]}`:            ` (regex "x\\.y", include [])`,
		`{"where":{"page_slug":{"$in":["a"]}},"include":["metadatas"]}`: ` (include ["metadatas"])`,
		`{}`: ``,
	} {
		if got := describeBody([]byte(body)); got != want {
			t.Errorf("describeBody(%s) = %q, want %q", body, got, want)
		}
	}
}
