package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/search"
)

// echoSearcher fails every search with the query and options it was given.
type echoSearcher struct{}

func (echoSearcher) Search(_ context.Context, _ fs.FS, query string, opt search.Options) ([]search.Hit, error) {
	return nil, fmt.Errorf("searched %q k=%d path=%q", query, opt.K, opt.Path)
}

// TestArgsLikeSDK checks that the tools added with addTextTool list the
// same tools and answer every argument, valid or not, plain or not, as
// the same tools added with the SDK's mcp.AddTool do.
func TestArgsLikeSDK(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/a.md":   &fstest.MapFile{Data: []byte("one\ntwo\nthree\n")},
		"docs/b.md":   &fstest.MapFile{Data: []byte("bee\n")},
		"docs/é.md":   &fstest.MapFile{Data: []byte("accent\n")},
		"docs/x y.md": &fstest.MapFile{Data: []byte("space\n")},
	}
	cfg := Config{Search: echoSearcher{}, FS: func(context.Context) (fs.FS, error) { return fsys, nil }}
	ours := New(cfg)
	s, sdk := newServer(cfg)
	mcp.AddTool(sdk, s.tool("read"), s.read)
	mcp.AddTool(sdk, s.tool("ls"), s.ls)
	mcp.AddTool(sdk, s.tool("glob"), s.glob)
	mcp.AddTool(sdk, s.tool("search"), s.search)

	clients := map[string]*mcp.ClientSession{}
	for name, srv := range map[string]*mcp.Server{"ours": ours, "sdk": sdk} {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cs.Close()
			ss.Wait()
		})
		clients[name] = cs
	}

	tools := map[string]string{}
	for name, cs := range clients {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(res.Tools)
		if err != nil {
			t.Fatal(err)
		}
		tools[name] = string(data)
	}
	if tools["ours"] != tools["sdk"] {
		t.Errorf("tools/list differs:\nours %s\nsdk  %s", tools["ours"], tools["sdk"])
	}

	common := []string{
		`{}`, `null`, `[]`, `"x"`, `1`, `{"path":1}`, `{"path":null}`, `{"path":true}`,
		`{"path":"/docs/a.md","extra":1}`, `{"PATH":"/docs/a.md"}`, `{"Path":"/docs"}`,
		`{"path":"/docs/a.md","path":"/docs/b.md"}`, `{"path":"\u002fdocs/a.md"}`,
		`{"path":"/docs/\u00e9.md"}`, `{"path":"/docs/é.md"}`, `{"path":"/docs/x y.md"}`,
		`{"path":"/missing"}`, `{"path":"docs"}`, `{"path":""}`, ` { "path" : "/docs" } `,
		`{"path":"/docs/a.md\n"}`, `{"path":{"a":1}}`, `{"path":["/docs"]}`,
	}
	calls := map[string][]string{
		"read": append(common,
			`{"path":"/docs/a.md"}`, `{"path":"/docs/a.md","offset":2,"limit":1}`,
			`{"path":"/docs/a.md","offset":0,"limit":0}`, `{"path":"/docs/a.md","offset":-1}`,
			`{"path":"/docs/a.md","offset":1.5}`, `{"path":"/docs/a.md","offset":2.0}`,
			`{"path":"/docs/a.md","offset":1e1}`, `{"path":"/docs/a.md","offset":99999999999999999999}`,
			`{"path":"/docs/a.md","offset":"2"}`, `{"path":"/docs/a.md","limit":null}`,
			`{"path":"/docs/a.md","offset":9}`, `{"path":"/docs/a.md","limit":123456789}`,
			`{"path":"/docs/a.md","limit":1234567890}`, `{"offset":2}`, `{"path":"/docs"}`,
			`{"paths":[{"path":"/docs/a.md"},{"path":"/docs","offset":2},{"path":"/missing","limit":1}]}`,
			`{"paths":[]}`, `{"paths":null}`, `{"paths":[{"offset":1}]}`, `{"paths":"x"}`, `{"paths":[1]}`,
			`{"path":"/docs/a.md","paths":[{"path":"/docs/a.md"}]}`, `{"paths":[{"path":"/docs/a.md","extra":1}]}`),
		"ls":     append(common, `{"path":"/docs"}`, `{"path":"/"}`, `{"path":"/docs/a.md"}`),
		"glob":   append(common, `{"pattern":"**/*.md"}`, `{"pattern":"*.md","path":"/docs"}`, `{"pattern":"["}`, `{"pattern":1}`, `{"pattern":"/docs/*"}`),
		"search": append(common, `{"query":"bees"}`, `{"query":"bees","k":3,"path":"/docs"}`, `{"query":"bees","k":-3}`, `{"query":"bees","k":1001}`, `{"query":""}`),
	}
	for tool, argsList := range calls {
		for _, args := range argsList {
			answers := map[string]string{}
			for name, cs := range clients {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
				answers[name] = fmt.Sprintf("error %v", err)
				if err == nil {
					data, err := json.Marshal(res)
					if err != nil {
						t.Fatal(err)
					}
					answers[name] = string(data)
				}
			}
			if !reflect.DeepEqual(answers["ours"], answers["sdk"]) {
				t.Errorf("%s %s:\nours %s\nsdk  %s", tool, args, answers["ours"], answers["sdk"])
			}
		}
	}
}

// TestPlainArgs checks which arguments take the direct path: the
// schemas of read, ls, glob and search are plain, and plain arguments
// are exactly the objects every decoder reads alike.
func TestPlainArgs(t *testing.T) {
	for name, typ := range map[string]reflect.Type{
		"read": reflect.TypeFor[readIn](), "ls": reflect.TypeFor[lsIn](),
		"glob": reflect.TypeFor[globIn](), "search": reflect.TypeFor[searchIn](),
	} {
		sc, err := jsonschema.ForType(typ, &jsonschema.ForOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if plainSchema(sc) == nil {
			t.Errorf("%s: the schema is not plain: %+v", name, sc)
		}
	}
	if plainSchema(grepSchema()) != nil {
		t.Error("grep's schema (an enum, a default, minimums) is plain")
	}
	props := map[string]bool{"path": true, "offset": false, "limit": false}
	for _, tc := range []struct {
		raw   string
		plain bool
	}{
		{`{"path":"/a.md"}`, true},
		{` { "path" : "/a b.md" , "offset" : 2 , "limit":100 } `, true},
		{`{"path":"/é.md","limit":0}`, true},
		{`{"path":"/a.md","limit":123456789}`, true},
		{`{}`, false}, // path is required
		{`{"offset":1}`, false},
		{``, false},
		{`null`, false},
		{`[]`, false},
		{`{"path":"/a.md"}x`, false},
		{`{"path":"/a.md",}`, false},
		{`{"path":"/a.md" "offset":1}`, false},
		{`{"path":"/a.md","path":"/b.md"}`, false},
		{`{"path":"\/a.md"}`, false},
		{`{"pa\u0074h":"/a.md"}`, false},
		{`{"path":"/a.md","extra":1}`, false},
		{`{"PATH":"/a.md"}`, false},
		{`{"path":1}`, false},
		{`{"path":null}`, false},
		{`{"path":"/a.md","offset":"1"}`, false},
		{`{"path":"/a.md","offset":-1}`, false},
		{`{"path":"/a.md","offset":01}`, false},
		{`{"path":"/a.md","offset":1.0}`, false},
		{`{"path":"/a.md","offset":1e3}`, false},
		{`{"path":"/a.md","limit":1234567890}`, false},
		{"{\"path\":\"/a\x01.md\"}", false},
		{"{\"path\":\"/a\xff.md\"}", false},
		{`{"path":"/a.md"`, false},
		{`{"path":"/a.md`, false},
	} {
		if got := plainArgs([]byte(tc.raw), props, []string{"path"}); got != tc.plain {
			t.Errorf("plainArgs(%s) = %v, want %v", tc.raw, got, tc.plain)
		}
	}
}

// BenchmarkToolArgs decodes a read's arguments directly (Plain) and the
// way mcp.AddTool does (SDKPath: decode to a map, defaults, validation,
// encode, decode), which TestArgsLikeSDK shows answer alike.
func BenchmarkToolArgs(b *testing.B) {
	sc, err := jsonschema.ForType(reflect.TypeFor[readIn](), &jsonschema.ForOptions{})
	if err != nil {
		b.Fatal(err)
	}
	resolved, err := sc.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"path":"/guides/auth/oauth-webhooks.mdx"}`)
	for _, tc := range []struct {
		name string
		a    *args[readIn]
	}{
		{"Plain", &args[readIn]{resolved: resolved, plain: plainSchema(sc)}},
		{"SDKPath", &args[readIn]{resolved: resolved}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if in, err := tc.a.decode(raw); err != nil || in.Path == "" {
					b.Fatal(in, err)
				}
			}
		})
	}
}
