package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestIngestShardedTree: `ingest --tree-max-bytes` writes the tree in
// shards, every command reads the collection as if it were whole (the
// same listing, contents, grep output and tree as a collection ingested
// without the limit), validate is clean, and --prune keeps the shards.
func TestIngestShardedTree(t *testing.T) {
	srv := testenv.Chroma(t)
	sharded := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t) + "-sharded"}
	whole := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t) + "-whole"}
	ingestArgs := []string{"ingest", "--no-progress", "--plain-tree", "--rules", "../../examples/access.rules", docsDir}

	out, errOut, code := cli(t, append(append(sharded, ingestArgs...), "--tree-max-bytes", "1024")...)
	if code != 0 || !strings.Contains(out, "shards") {
		t.Fatalf("sharded ingest: status %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli(t, append(whole, ingestArgs...)...); code != 0 || strings.Contains(out, "shards") {
		t.Fatalf("whole ingest: status %d\n%s%s", code, out, errOut)
	}
	checkCollection(t, sharded)
	for _, args := range [][]string{
		{"ls", "-l", "-a", "/"},
		{"tree", "-a", "/"},
		{"find", "/"},
		{"grep", "-rn", "token", "/"},
		{"--groups", "staff", "find", "/", "-type", "f"},
		{"--groups", "staff", "grep", "-rc", "the", "/"},
	} {
		a, aerr, acode := cli(t, append(sharded, args...)...)
		b, berr, bcode := cli(t, append(whole, args...)...)
		if a != b || aerr != berr || acode != bcode {
			t.Fatalf("%q: the sharded collection answers (status %d)\n%s%s\nthe whole one (status %d)\n%s%s", args, acode, a, aerr, bcode, b, berr)
		}
	}
	if out, errOut, code := cli(t, append(sharded, "validate")...); code != 0 || strings.Contains(out+errOut, "tree shard") {
		t.Fatalf("validate: status %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, append(append(sharded, ingestArgs...), "--tree-max-bytes", "1024", "--prune")...)
	if code != 0 || !strings.Contains(out, " 0 added, 0 updated") || strings.Contains(out, "pruned") {
		t.Fatalf("re-ingest with --prune: status %d\n%s%s", code, out, errOut)
	}
	checkCollection(t, sharded)
	if _, errOut, code := cli(t, append(append(sharded, ingestArgs...), "--tree-max-bytes", "100")...); code == 0 || !strings.Contains(errOut, "below the minimum") {
		t.Fatalf("--tree-max-bytes 100: status %d, %q", code, errOut)
	}
}

// TestCloudLimitsIngest: --cloud-limits shards a tree over Chroma Cloud's
// 16 KiB document limit without being told, and the collection reads back.
func TestCloudLimitsIngest(t *testing.T) {
	srv := testenv.Chroma(t)
	g := []string{"--chroma-url", srv.URL, "--collection", testenv.CollectionName(t), "--cloud-limits"}
	dir := t.TempDir()
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("page-%03d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("page %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := cli(t, append(g, "ingest", "--no-progress", "--plain-tree", dir)...)
	if code != 0 || !strings.Contains(out, "shards") {
		t.Fatalf("ingest --cloud-limits: status %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, append(g, "cat", "/d3/page-199.md")...)
	if code != 0 || out != "page 199\n" {
		t.Fatalf("cat: status %d, %q %s", code, out, errOut)
	}
	out, errOut, code = cli(t, append(g, "find", "/", "-type", "f")...)
	if code != 0 || strings.Count(out, "\n") != 300 {
		t.Fatalf("find: status %d, %d lines %s", code, strings.Count(out, "\n"), errOut)
	}
}
