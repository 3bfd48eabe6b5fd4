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
		{"unknown", []string{"bogus"}, "", 2, []string{`{"error":"chromastore: unknown embedding function \"bogus\" (valid: hash, default)"}`}},
		{"usage", nil, "", 2, []string{`{"error":"usage: chromafs-embed NAME"}`}},
		{"bad request", []string{"hash"}, "{", 1, []string{`{"name":"consistent_hash"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.in), &out, &errb)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
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
