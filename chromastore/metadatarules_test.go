package chromastore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/internal/testenv"
)

// requests returns how many requests rec has seen.
func requests(rec *recorder) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, c := range rec.counts {
		n += c
	}
	return n
}

// TestMetadataKeys: the keys Chroma 1.3 refuses (empty, or starting with
// '#' or '$') fail Upsert and SetMetadata before any request, on every
// server, with an error that names the key; keys with those characters
// elsewhere are written and read back.
func TestMetadataKeys(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	for _, tc := range []struct {
		key  string
		want string // "" when the key is accepted
	}{
		{"", "empty metadata key"},
		{"#document", `"#document" starts with "#"`},
		{"$and", `"$and" starts with "$"`},
		{"x#y", ""},
		{"price$", ""},
		{"_x", ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			before := requests(rec)
			id := "k/" + tc.key
			err := c.Upsert(ctx, []collection.Record{{ID: id, Document: "d", Metadata: map[string]any{tc.key: "v"}, System: true}})
			mdErr := c.SetMetadata(ctx, map[string]any{tc.key: "v"})
			if tc.want == "" {
				if err != nil || mdErr != nil {
					t.Fatalf("Upsert: %v; SetMetadata: %v", err, mdErr)
				}
				got, err := c.RecordsByID(ctx, []string{id})
				if err != nil {
					t.Fatal(err)
				}
				if v := got[id].Metadata[tc.key]; v != "v" {
					t.Errorf("record metadata %q = %v", tc.key, v)
				}
				if v := c.Metadata()[tc.key]; v != "v" {
					t.Errorf("collection metadata %q = %v", tc.key, v)
				}
				return
			}
			for name, err := range map[string]error{"Upsert": err, "SetMetadata": mdErr} {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Chroma 1.3") {
					t.Errorf("%s: %v; want an error containing %q", name, err, tc.want)
				}
			}
			if n := requests(rec) - before; n != 0 {
				t.Errorf("%d requests sent for a refused key", n)
			}
		})
	}
}

// TestRecordArrayMetadata: Chroma 1.3 stores arrays of one scalar type in
// record metadata and reads them back; Chroma 1.0 refuses them (422).
// chromastore sends them as they are and decodes them as []any.
func TestRecordArrayMetadata(t *testing.T) {
	c, _ := open(t, nil)
	ctx := context.Background()
	version, err := testenv.ChromaVersion()
	if err != nil {
		t.Fatal(err)
	}
	md := map[string]any{"tags": []string{"a", "b"}, "lines": []int64{1, 2}, "w": []float64{0.5, 1.5}}
	err = c.Upsert(ctx, []collection.Record{{ID: "arr", Document: "d", Metadata: md, System: true}})
	if version == testenv.Chroma10 {
		if err == nil || !strings.Contains(err.Error(), "422") {
			t.Fatalf("Chroma 1.0: Upsert with array metadata: %v; want its 422", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.RecordsByID(ctx, []string{"arr"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tags": []any{"a", "b"}, "lines": []any{int64(1), int64(2)}, "w": []any{0.5, 1.5}, chromastore.SystemKey: true}
	if !reflect.DeepEqual(got["arr"].Metadata, want) {
		t.Errorf("metadata read back = %#v, want %#v", got["arr"].Metadata, want)
	}
}

// TestCollectionArrayMetadata: no Chroma stores an array in collection
// metadata: 1.0 answers 422, and 1.3.4 closes the connection without an
// answer (its handler panics: "Array metadata values are written to
// embedding_metadata_array") and keeps serving. SetMetadata refuses one
// before any request.
func TestCollectionArrayMetadata(t *testing.T) {
	rec := newRecorder(t)
	c, _ := open(t, rec)
	ctx := context.Background()
	before := requests(rec)
	err := c.SetMetadata(ctx, map[string]any{"tags": []string{"a"}})
	if err == nil || !strings.Contains(err.Error(), `"tags" is an array`) {
		t.Errorf("SetMetadata with an array: %v", err)
	}
	if n := requests(rec) - before; n != 0 {
		t.Errorf("%d requests sent for a refused array", n)
	}

	// What the server does with one, on a server of this test's own.
	version, err := testenv.ChromaVersion()
	if err != nil {
		t.Fatal(err)
	}
	srv := testenv.NewChroma(t)
	base := srv.URL + "/api/v2/tenants/default_tenant/databases/default_database/collections"
	post := func(body string) (*http.Response, error) {
		return http.Post(base, "application/json", bytes.NewReader([]byte(body)))
	}
	resp, err := post(`{"name":"arrays","metadata":{"tags":["a","b"]}}`)
	switch version {
	case testenv.Chroma10:
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("Chroma 1.0 answered %s to array collection metadata, want 422", resp.Status)
		}
	default:
		if err == nil {
			resp.Body.Close()
			t.Errorf("Chroma %s answered %s to array collection metadata; it used to close the connection (a panic): update SetMetadata's doc", version, resp.Status)
		}
	}
	// The server still serves, and did not create the collection.
	resp, err = post(`{"name":"arrays","get_or_create":true,"metadata":{"tags":"a"}}`)
	if err != nil {
		t.Fatalf("after the array: %v; log:\n%s", err, srv.LogTail())
	}
	defer resp.Body.Close()
	var col struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&col); err != nil || fmt.Sprint(col.Metadata) != "map[tags:a]" {
		t.Errorf("after the array: %s, %v, metadata %v", resp.Status, err, col.Metadata)
	}
}
