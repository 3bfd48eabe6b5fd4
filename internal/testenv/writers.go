package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Writer is a real writer of Chroma collections that [WriteWith] runs:
// the npm packages of LangChain.js or LlamaIndex.TS, installed under
// internal/testenv/writers by `make deps-writers` (see its write.mjs for
// exactly what each one does).
type Writer string

const (
	// LangChain loads the folder with LangChain.js's DirectoryLoader and
	// TextLoader (.md, .mdx, .txt), splits it with
	// RecursiveCharacterTextSplitter and stores it with
	// @langchain/community's Chroma.fromDocuments: metadata source (the
	// absolute path), locFrom and locTo (1-based lines); trimmed chunks;
	// uuid v1 ids.
	LangChain Writer = "langchain"
	// LlamaIndex loads the folder with LlamaIndex.TS's
	// SimpleDirectoryReader and its default readers (Markdown files are
	// cut at headings, with links and images removed), splits it with
	// the SentenceSplitter and stores it with @llamaindex/chroma's
	// ChromaVectorStore: metadata file_path, file_name, document_id,
	// doc_id, ref_doc_id, _node_type and _node_content (a JSON string
	// holding startCharIdx and endCharIdx).
	LlamaIndex Writer = "llamaindex"
	// LlamaIndexText is LlamaIndex with the plain TextFileReader for
	// every file, so that each of its documents is one whole file.
	LlamaIndexText Writer = "llamaindex-text"
)

// SplitMode chooses the splitter settings of a [Writer].
type SplitMode string

const (
	// DefaultSplit is the library's defaults: 1,000 characters with an
	// overlap of 200 for LangChain.js, 1,024 tokens with an overlap of
	// 200 for LlamaIndex.TS.
	DefaultSplit SplitMode = "default"
	// NoOverlap is the defaults with an overlap of 0.
	NoOverlap SplitMode = "overlap0"
)

// WriteReport is what a writer reports after writing a collection.
type WriteReport struct {
	Writer     Writer    `json:"writer"`
	Mode       SplitMode `json:"mode"`
	Collection string    `json:"collection"`
	// Files is the number of files the loader read; Documents (LlamaIndex)
	// the number of documents they became; Chunks the number of records
	// written.
	Files, Documents, Chunks int
	// ChunkSize and ChunkOverlap are the splitter's settings.
	ChunkSize    int `json:"chunkSize"`
	ChunkOverlap int `json:"chunkOverlap"`
	// Versions are the versions of the npm packages used.
	Versions map[string]string `json:"versions"`
}

// writeTimeout bounds one run of write.mjs.
const writeTimeout = 3 * time.Minute

// WriteWith writes the files under dir into a new collection of the Chroma
// server at chromaURL (default tenant and database) with w and mode, and
// returns the collection's name. Without node or the writers' npm
// packages it skips tb, or fails it under CI=true; a writer that fails or
// runs longer than three minutes fails tb with its output. The collection
// is deleted when tb ends without failing.
func WriteWith(tb testing.TB, chromaURL string, w Writer, mode SplitMode, dir string) string {
	tb.Helper()
	return WriteWithReport(tb, chromaURL, w, mode, dir).Collection
}

// WriteWithReport is [WriteWith], returning the writer's report.
func WriteWithReport(tb testing.TB, chromaURL string, w Writer, mode SplitMode, dir string) WriteReport {
	tb.Helper()
	node, script, err := findWriters()
	if err != nil {
		fail(tb, err)
	}
	chromaURL = strings.TrimRight(chromaURL, "/")
	name := collectionName(tb.Name() + "-" + string(w))
	tb.Cleanup(func() {
		if !tb.Failed() {
			deleteCollectionAt(chromaURL, name)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, "--url", chromaURL, "--collection", name,
		"--writer", string(w), "--mode", string(mode), "--dir", dir)
	cmd.Dir = filepath.Dir(script)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		tb.Fatalf("testenv: write.mjs --writer %s --mode %s did not finish in %v\nstderr:\n%s", w, mode, writeTimeout, stderr.String())
	}
	if err != nil {
		tb.Fatalf("testenv: write.mjs --writer %s --mode %s: %v\nstdout:\n%s\nstderr:\n%s", w, mode, err, stdout.String(), stderr.String())
	}
	var rep WriteReport
	out := strings.TrimSpace(stdout.String())
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Collection != name {
		tb.Fatalf("testenv: write.mjs --writer %s --mode %s: no report for collection %s (%v)\nstdout:\n%s\nstderr:\n%s", w, mode, name, err, stdout.String(), stderr.String())
	}
	tb.Logf("testenv: %s (%s) wrote %d chunks of %d files into %s in %v", w, mode, rep.Chunks, rep.Files, name, time.Since(start).Round(time.Millisecond))
	return rep
}

// findWriters returns node and internal/testenv/writers/write.mjs, or a
// missingError when either is not installed.
func findWriters() (node, script string, err error) {
	const install = "run `make deps-writers` or `cd internal/testenv/writers && npm ci --ignore-scripts --omit=optional`"
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", &missingError{"testenv: the writers need node in PATH (Node.js 20 or later): " + install}
	}
	root, err := RepoRoot()
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(root, "internal", "testenv", "writers")
	for _, pkg := range []string{"@langchain/community", "@langchain/textsplitters", "@langchain/classic", "chromadb", "llamaindex", "@llamaindex/chroma", "@llamaindex/readers"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
			return "", "", &missingError{fmt.Sprintf("testenv: the writers' npm package %s is not installed in %s: %s", pkg, dir, install)}
		}
	}
	return node, filepath.Join(dir, "write.mjs"), nil
}

// deleteCollectionAt removes name from the default tenant and database of
// the Chroma at base, ignoring every error.
func deleteCollectionAt(base, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := base + "/api/v2/tenants/default_tenant/databases/default_database/collections/" + url.PathEscape(name)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}
