package validate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/memstore"
	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
	"github.com/chromafs/chromafs/validate"
)

func chunk(slug string, i int, text string) collection.Record {
	return collection.Record{
		ID:       fmt.Sprintf("%s#%d", slug, i),
		Document: text,
		Metadata: map[string]any{"page_slug": slug, "chunk_index": i},
	}
}

func treeRec(doc string) collection.Record {
	return collection.Record{ID: "__path_tree__", Document: doc, System: true, Metadata: map[string]any{"_system": true}}
}

// schemeTree is a tree record that declares chunk ids slug#index.
func schemeTree(doc string) collection.Record {
	r := treeRec(doc)
	r.Metadata[collection.ChunkIDsKey] = collection.ChunkIDScheme
	return r
}

// shardedTree is the records of doc (padded with JSON whitespace past
// the limit) written as a manifest and 1 KiB shards; drop leaves out
// shard number drop (-1: none).
func shardedTree(t *testing.T, doc string, drop int) []collection.Record {
	t.Helper()
	doc += strings.Repeat(" ", 3000)
	manifest, shards, err := collection.ShardTree("__path_tree__", []byte(doc), collection.MinShardBytes)
	if err != nil || len(shards) < 3 {
		t.Fatalf("%d shards, %v", len(shards), err)
	}
	var out []collection.Record
	for i, sh := range shards {
		if i != drop {
			out = append(out, sh)
		}
	}
	return append(out, treeRec(string(manifest)))
}

// runFindings runs validate.Run on s with no options and returns the
// report and its findings, one a line.
func runFindings(t *testing.T, s validate.Store) (*validate.Report, string) {
	t.Helper()
	rep, err := validate.Run(context.Background(), s, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, f := range rep.Findings {
		all = append(all, f.String())
	}
	return rep, strings.Join(all, "\n")
}

// checkReport fails t unless rep.OK() is ok and the findings (joined,
// from runFindings) mention each of want; nil want means no findings.
func checkReport(t *testing.T, rep *validate.Report, joined string, ok bool, want []string) {
	t.Helper()
	if rep.OK() != ok {
		t.Errorf("OK() = %v; want %v; findings:\n%s", rep.OK(), ok, joined)
	}
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("findings do not mention %q:\n%s", w, joined)
		}
	}
	if want == nil && len(rep.Findings) > 0 {
		t.Errorf("unexpected findings:\n%s", joined)
	}
}

func TestRun(t *testing.T) {
	good := []collection.Record{chunk("a.md", 0, "hello "), chunk("a.md", 1, "world\n")}
	stray := collection.Record{ID: "__path_tree__/shard/0123456789abcdef/0", Document: "x", System: true}
	tests := []struct {
		name     string
		records  []collection.Record
		ok       bool
		findings []string // substrings, each must appear in some finding
	}{
		{"clean", append(good, treeRec(`{"a.md":{"isPublic":true,"size":12}}`)), true, nil},
		{"no tree", good, false, []string{`no path tree record "__path_tree__"`}},
		{"malformed tree", append(good, treeRec(`{"a.md":`)), false, []string{"path tree:"}},
		{"gap", []collection.Record{chunk("a.md", 0, "x"), chunk("a.md", 2, "z"), treeRec(`{"a.md":{"isPublic":true}}`)}, false, []string{"a.md", "missing chunk index 1"}},
		{"no chunks", []collection.Record{treeRec(`{"a.md":{"isPublic":true}}`)}, false, []string{"has no chunks"}},
		{"orphan", append(append(good, chunk("gone.md", 0, "x")), treeRec(`{"a.md":{"isPublic":true}}`)), false, []string{"gone.md", "orphan"}},
		{"size mismatch", append(good, treeRec(`{"a.md":{"isPublic":true,"size":3}}`)), false, []string{"tree records 3 bytes"}},
		{"hash mismatch", append(good, treeRec(`{"a.md":{"isPublic":true,"hash":"sha256:00"}}`)), false, []string{"does not match"}},
		{"bad slug", append(good, treeRec(`{"a.md":{"isPublic":true},"../x":{"isPublic":true}}`)), false, []string{"../x"}},
		{"missing isPublic warns", append(good, treeRec(`{"a.md":{"groups":["staff"]}}`)), true, []string{"warning: a.md: no isPublic"}},
		{"private without groups warns", append(good, treeRec(`{"a.md":{"isPublic":false}}`)), true, []string{"visible to nobody"}},
		{"ids follow the declared scheme", append(good, schemeTree(`{"a.md":{"isPublic":true}}`)), true, nil},
		{"id off the declared scheme", []collection.Record{chunk("a.md", 0, "hello "), {ID: "other", Document: "world\n", Metadata: map[string]any{"page_slug": "a.md", "chunk_index": 1}}, schemeTree(`{"a.md":{"isPublic":true}}`)},
			false, []string{`a.md: chunk 1 has id "other", not "a.md#1"`}},
		{"sharded tree", append(good, shardedTree(t, `{"a.md":{"isPublic":true,"size":12}}`, -1)...), true, nil},
		{"sharded tree missing a shard", append(good, shardedTree(t, `{"a.md":{"isPublic":true,"size":12}}`, 1)...), false, []string{"path tree:", "shard 1 of"}},
		{"stray tree shard warns", append(good, stray, treeRec(`{"a.md":{"isPublic":true,"size":12}}`)), true, []string{"1 tree shard record is not named"}},
		{"no _system marker warns", append(good, collection.Record{ID: "__path_tree__", Document: `{"a.md":{"isPublic":true}}`}), true, []string{"_system"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New(tt.name)
			if err := s.Upsert(context.Background(), tt.records); err != nil {
				t.Fatal(err)
			}
			rep, joined := runFindings(t, s)
			checkReport(t, rep, joined, tt.ok, tt.findings)
		})
	}
}

func TestRunStoreError(t *testing.T) {
	s := memstore.New("down")
	s.SetFailure(fmt.Errorf("connection refused"))
	if _, err := validate.Run(context.Background(), s, validate.Options{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run on a failing store: %v; want the store's error", err)
	}
}

func TestCheckPointers(t *testing.T) {
	body := "pointer content\n"
	sum := sha256.Sum256([]byte(body))
	hash := "sha256:" + hex.EncodeToString(sum[:])
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch r.URL.Path {
		case "/good", "/nosize", "/badhash":
			_, _ = io.WriteString(w, body)
		case "/slow":
			select {
			case <-time.After(300 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			_, _ = io.WriteString(w, body)
		case "/short":
			_, _ = io.WriteString(w, body[:5])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	entry := func(slug, path string, size int, hash string) string {
		s := fmt.Sprintf(`%q:{"isPublic":true,"url":%q`, slug, srv.URL+path)
		if size >= 0 {
			s += fmt.Sprintf(`,"size":%d`, size)
		}
		if hash != "" {
			s += fmt.Sprintf(`,"hash":%q`, hash)
		}
		return s + "}"
	}
	n := len(body)
	doc := "{" + strings.Join([]string{
		entry("good", "/good", n, hash),
		entry("missing", "/missing", n, ""),
		entry("short", "/short", n, ""),
		entry("slow", "/slow", n, hash),
		entry("nosize", "/nosize", -1, ""),
		entry("badhash", "/badhash", n, "sha256:"+strings.Repeat("0", 64)),
	}, ",") + "}"
	s := memstore.New("pointers")
	if err := s.Upsert(context.Background(), []collection.Record{treeRec(doc)}); err != nil {
		t.Fatal(err)
	}

	// Without CheckPointers nothing is fetched.
	rep, err := validate.Run(context.Background(), s, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || requests.Load() != 0 {
		t.Fatalf("without CheckPointers: %d requests, findings %v", requests.Load(), rep.Findings)
	}

	// The server listens on 127.0.0.1, which pointers may reach only when
	// allowed.
	policy, err := pointer.NewPolicy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	local := &pointer.HTTPResolver{Policy: policy}
	rep, err = validate.Run(context.Background(), s, validate.Options{CheckPointers: true, PointerConcurrency: 2, Resolver: local})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.String())
	}
	want := []struct {
		sev     validate.Severity
		slug    string
		message string
	}{
		{validate.Error, "badhash", "does not match the tree's sha256:0000"},
		{validate.Error, "missing", "404 Not Found"},
		{validate.Warning, "nosize", "size not declared"},
		{validate.Error, "short", "the tree declares 16"},
	}
	if len(rep.Findings) != len(want) {
		t.Fatalf("findings:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		f := rep.Findings[i]
		if f.Severity != w.sev || f.Slug != w.slug || !strings.Contains(f.Message, w.message) {
			t.Errorf("finding %d: %s; want %s for %s containing %q", i, f, w.sev, w.slug, w.message)
		}
	}
	if rep.OK() {
		t.Error("report OK with broken pointers")
	}

	// A fetch past PointerTimeout is an error naming the timeout.
	rep, err = validate.Run(context.Background(), s, validate.Options{CheckPointers: true, PointerTimeout: 100 * time.Millisecond, Resolver: local})
	if err != nil {
		t.Fatal(err)
	}
	var slow []validate.Finding
	for _, f := range rep.Findings {
		if f.Slug == "slow" {
			slow = append(slow, f)
		}
	}
	if len(slow) != 1 || slow[0].Severity != validate.Error || !strings.Contains(slow[0].Message, "timeout 100ms") {
		t.Errorf("slow pointer past the timeout: %v", slow)
	}

	// A custom resolver is used instead of HTTP.
	res := pointer.ResolverFunc(func(_ context.Context, e *tree.Entry) ([]byte, error) {
		if e.Slug == "missing" {
			return nil, errors.New("no such object")
		}
		if e.Slug == "badhash" || e.Slug == "short" {
			return nil, nil
		}
		return []byte(body), nil
	})
	rep, err = validate.Run(context.Background(), s, validate.Options{CheckPointers: true, Resolver: res})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(validate.Error) != 3 || !strings.Contains(rep.Findings[1].String(), "missing: lazy pointer: no such object") {
		t.Errorf("custom resolver: %v", rep.Findings)
	}
}
