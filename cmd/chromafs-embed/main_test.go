package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		in    string
		code  int
		lines []string // prefixes of the output lines
	}{
		{"hash", []string{"hash"}, `{"texts":["x"]}` + "\n" + `{"texts":[""]}`, 0,
			[]string{`{"name":"consistent_hash","config":{"dim":384}}`, `{"vectors":[[`, `{"error":"failed to embed document: document must not be empty"}`}},
		{"default registered", []string{"default"}, "", 0, []string{`{"name":"default"}`}},
		{"unknown", []string{"bogus"}, "", 2, []string{`{"error":"chromastore: unknown embedding function \"bogus\" (valid: hash, ngram, default)"}`}},
		{"usage", nil, "", 2, []string{`{"error":"usage: chromafs-embed NAME | chromafs-embed -query"}`}},
		{"query", []string{"-query"}, `{"spec":{"Name":"","Config":null,"Space":"l2"},"dim":8,"override":"hash"}` + "\n" + `{"texts":["a query"]}`, 0,
			[]string{`{"name":"hash"}`, `{"vectors":[[`}},
		{"query without a function", []string{"-query"}, `{"spec":{},"dim":8}`, 2,
			[]string{`{"error":"cannot build the embedding function: the collection's configuration records no embedding function`}},
		{"bad request", []string{"hash"}, "{", 1, []string{`{"name":"consistent_hash"`}},
		{"query without setup", []string{"-query"}, "", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.in), &out, &errb)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if out.Len() == 0 {
				lines = nil
			}
			if code != tt.code || len(lines) != len(tt.lines) {
				t.Fatalf("status %d, output %q, stderr %q", code, out.String(), errb.String())
			}
			for i, l := range lines {
				if !strings.HasPrefix(l, tt.lines[i]) || !json.Valid([]byte(l)) {
					t.Errorf("line %d = %.80q, want a JSON value starting %q", i, l, tt.lines[i])
				}
			}
		})
	}
}
