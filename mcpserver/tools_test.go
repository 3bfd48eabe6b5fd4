package mcpserver_test

import (
	"context"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/search"
)

// TestToolSubset: Config.Tools and Config.NameSuffix choose the tools and
// their names. tools/list shows exactly those, calls to them answer,
// calls to any other name (a tool left out, a name without the suffix)
// fail as unknown, and the server's instructions and the descriptions
// name the tools by the names they are served under, and no tool that is
// not served.
func TestToolSubset(t *testing.T) {
	fsys := fstest.MapFS{"guides/a.md": {Data: []byte("rotate keys\n")}}
	eng := &search.Engine{}
	tests := []struct {
		name   string
		cfg    mcpserver.Config
		served []string
		call   map[string]any // arguments of a call to served[0]
		want   string         // in its answer
	}{
		{"all, no suffix", mcpserver.Config{Search: eng}, []string{"bash", "glob", "grep", "ls", "read", "search", "stat"}, map[string]any{"command": "cat /guides/a.md"}, "rotate keys"},
		{"all but search without a searcher", mcpserver.Config{}, []string{"bash", "glob", "grep", "ls", "read", "stat"}, map[string]any{"command": "ls /"}, "guides"},
		{"bash and search, suffixed", mcpserver.Config{Search: eng, Tools: []string{"bash", "search"}, NameSuffix: "acme"}, []string{"bash_acme", "search_acme"}, map[string]any{"command": "cd guides && pwd"}, "/guides"},
		{"search only", mcpserver.Config{Search: eng, Tools: []string{"search"}, NameSuffix: "docs-2"}, []string{"search_docs-2"}, map[string]any{"query": "rotate keys"}, "/guides/a.md:1-1"},
		{"read, ls, stat", mcpserver.Config{Tools: []string{"stat", "read", "ls", "read"}, NameSuffix: "x_1"}, []string{"ls_x_1", "read_x_1", "stat_x_1"}, map[string]any{"path": "/guides"}, "a.md"},
	}
	bases := mcpserver.ToolNames()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := connect(t, fsys, tt.cfg)
			res, err := c.cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			texts := []string{c.cs.InitializeResult().Instructions}
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				texts = append(texts, tool.Description)
			}
			if !slices.Equal(names, tt.served) {
				t.Fatalf("tools/list: %q, want %q", names, tt.served)
			}
			if got := c.text(tt.served[0], tt.call); !strings.Contains(got, tt.want) {
				t.Errorf("%s %v: %q, want it to hold %q", tt.served[0], tt.call, got, tt.want)
			}

			// Every name of every tool, with and without the suffix,
			// is callable exactly when it is served.
			for _, base := range bases {
				for _, name := range []string{base, base + "_" + tt.cfg.NameSuffix} {
					_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
					served := slices.Contains(tt.served, name)
					if served && err != nil {
						t.Errorf("call %s: %v", name, err)
					}
					if !served && (err == nil || !strings.Contains(err.Error(), "unknown tool")) {
						t.Errorf("call %s, not served: %v, want an unknown tool", name, err)
					}
				}
			}

			// The instructions name the tools to start with, as served.
			for _, base := range []string{"bash", "ls", "grep", "search", "read"} {
				name := base
				if tt.cfg.NameSuffix != "" {
					name += "_" + tt.cfg.NameSuffix
				}
				if slices.Contains(tt.served, name) && !strings.Contains(texts[0], name+" ") {
					t.Errorf("instructions do not name %s: %q", name, texts[0])
				}
			}
			if tt.cfg.NameSuffix == "" {
				return
			}
			// With a suffix, every tool the texts name is served.
			named := regexp.MustCompile(`\b(` + strings.Join(bases, "|") + `)_` + regexp.QuoteMeta(tt.cfg.NameSuffix) + `\b`)
			for _, text := range texts {
				for _, name := range named.FindAllString(text, -1) {
					if !slices.Contains(tt.served, name) {
						t.Errorf("%q names %s, which is not served", text, name)
					}
				}
				if strings.Contains(text, "bash's cd") {
					t.Errorf("%q names bash without its suffix", text)
				}
			}
		})
	}
}

// TestConfigValidate: Validate accepts the tool names and suffixes
// Config documents and rejects others with an error that says what is
// valid; New panics on what Validate rejects.
func TestConfigValidate(t *testing.T) {
	eng := &search.Engine{}
	tests := []struct {
		cfg  mcpserver.Config
		want string // in the error; "" for none
	}{
		{mcpserver.Config{}, ""},
		{mcpserver.Config{Tools: []string{"bash", "read", "ls", "glob", "grep", "stat"}}, ""},
		{mcpserver.Config{Tools: []string{"search"}, Search: eng, NameSuffix: "acme"}, ""},
		{mcpserver.Config{NameSuffix: "acme-docs_2"}, ""},
		{mcpserver.Config{NameSuffix: "9"}, ""},
		{mcpserver.Config{NameSuffix: strings.Repeat("a", mcpserver.MaxNameSuffix)}, ""},
		{mcpserver.Config{Tools: []string{"bash", "cat"}}, `unknown tool "cat": the tools are bash, read, ls, glob, grep, stat, search`},
		{mcpserver.Config{Tools: []string{"Bash"}}, `unknown tool "Bash"`},
		{mcpserver.Config{Tools: []string{""}}, `unknown tool ""`},
		{mcpserver.Config{Tools: []string{"search"}}, "search needs a searcher"},
		{mcpserver.Config{NameSuffix: "Acme"}, `name suffix "Acme": want at most 32 characters of a-z, 0-9, _ and -`},
		{mcpserver.Config{NameSuffix: "a b"}, `name suffix "a b"`},
		{mcpserver.Config{NameSuffix: "a.b"}, `name suffix "a.b"`},
		{mcpserver.Config{NameSuffix: "-a"}, `name suffix "-a"`},
		{mcpserver.Config{NameSuffix: "_a"}, `name suffix "_a"`},
		{mcpserver.Config{NameSuffix: "é"}, `name suffix "é"`},
		{mcpserver.Config{NameSuffix: strings.Repeat("a", mcpserver.MaxNameSuffix+1)}, "name suffix"},
	}
	fsys := fstest.MapFS{}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.cfg, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: %v, want an error with %q", tt.cfg, err, tt.want)
		}
		cfg := tt.cfg
		cfg.FS = func(context.Context) (fs.FS, error) { return fsys, nil }
		func() {
			defer func() {
				if p := recover(); (p != nil) != (err != nil) {
					t.Errorf("%+v: New panics with %v; Validate says %v", tt.cfg, p, err)
				}
			}()
			mcpserver.New(cfg)
		}()
	}
}
