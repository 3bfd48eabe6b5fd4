package mcpserver_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/search"
)

// toolsList returns the result of a tools/list request to a server of
// cfg, as the server wrote it on the wire, and the size of each tool in it.
func toolsList(t testing.TB, cfg mcpserver.Config) (json.RawMessage, map[string]int) {
	t.Helper()
	fsys := fstest.MapFS{"a.md": {Data: []byte("a\n")}}
	cfg.FS = func(context.Context) (fs.FS, error) { return fsys, nil }
	c := rawPipe(t, mcpserver.New(cfg))
	c.id++
	answer := c.roundTrip([]byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(c.id)+`,"method":"tools/list","params":{}}`), false)
	var a struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(answer, &a); err != nil || a.Result == nil {
		t.Fatalf("tools/list: %v: %s", err, answer)
	}
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(a.Result, &r); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	for _, tool := range r.Tools {
		var n struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(tool, &n); err != nil {
			t.Fatal(err)
		}
		sizes[n.Name] = len(tool)
	}
	return a.Result, sizes
}

// TestToolFootprint keeps the tools/list an agent's context pays for
// within budget: at most 8,000 bytes for all seven tools, at most 3,000
// for a site of bash and search only.
func TestToolFootprint(t *testing.T) {
	tests := []struct {
		name  string
		cfg   mcpserver.Config
		tools int
		max   int
	}{
		{"all", mcpserver.Config{Search: &search.Engine{}}, 7, 8000},
		{"bash+search", mcpserver.Config{Search: &search.Engine{}, Tools: []string{"bash", "search"}}, 2, 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, sizes := toolsList(t, tt.cfg)
			if len(sizes) != tt.tools {
				t.Fatalf("tools/list has %d tools (%v), want %d", len(sizes), sizes, tt.tools)
			}
			t.Logf("tools/list: %d bytes; per tool %v", len(res), sizes)
			if len(res) > tt.max {
				t.Errorf("tools/list is %d bytes, over the budget of %d; per tool %v", len(res), tt.max, sizes)
			}
		})
	}
}
