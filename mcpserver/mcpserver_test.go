package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/mcpserver"
)

// client is an MCP client session connected to a server over in-memory
// transports.
type client struct {
	t  testing.TB
	cs *mcp.ClientSession
}

// connect serves fsys with cfg (cfg.FS is set to return fsys) and
// returns a client of a new session.
func connect(t testing.TB, fsys fs.FS, cfg mcpserver.Config) *client {
	t.Helper()
	cfg.FS = func(context.Context) (fs.FS, error) { return fsys, nil }
	return connectServer(t, mcpserver.New(cfg))
}

func connectServer(t testing.TB, srv *mcp.Server) *client {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return &client{t, cs}
}

// result is a tool's answer: its text, whether it is an error, and its
// structured content.
type result struct {
	text       string
	isError    bool
	structured map[string]any
}

func (c *client) call(name string, args map[string]any) result {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s %v: %v", name, args, err)
	}
	var r result
	for _, ct := range res.Content {
		tc, ok := ct.(*mcp.TextContent)
		if !ok {
			c.t.Fatalf("%s %v: content %T", name, args, ct)
		}
		r.text += tc.Text
	}
	r.isError = res.IsError
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.structured); err != nil {
			c.t.Fatal(err)
		}
	}
	return r
}

// text calls a tool that must succeed and returns its text.
func (c *client) text(name string, args map[string]any) string {
	c.t.Helper()
	r := c.call(name, args)
	if r.isError {
		c.t.Fatalf("%s %v: error %q", name, args, r.text)
	}
	return r.text
}

// fail calls a tool that must fail and returns its error text.
func (c *client) fail(name string, args map[string]any) string {
	c.t.Helper()
	r := c.call(name, args)
	if !r.isError {
		c.t.Fatalf("%s %v: %q, want an error", name, args, r.text)
	}
	return r.text
}

// catN is content as cat -n numbers it.
func catN(content string) string {
	if content == "" {
		return ""
	}
	var b strings.Builder
	for i, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, strings.TrimSuffix(l, "\n"))
	}
	return b.String()
}

// view is one user's filesystem of the corpus in one backend, written
// one way.
type view struct {
	name  string
	fsys  *chromafs.FS
	files map[string]string // what the user may see
	all   map[string]string // the whole corpus
}

// views returns, for memstore and a real Chroma, and for the corpus
// written by chromafs's ingest and by a foreign writer, a public view and
// a staff view.
func views(t *testing.T) []view {
	ctx := context.Background()
	files := testcorpus.Files(t)
	var out []view
	for _, b := range testbackend.Backends() {
		for _, w := range testcorpus.Writers() {
			store := b.New(t)
			w.Write(t, store, files)
			for _, groups := range [][]string{nil, {"staff"}} {
				fsys, err := chromafs.New(ctx, store, chromafs.WithGroups(groups...))
				if err != nil {
					t.Fatal(err)
				}
				name := b.Name + "/" + w.Name + "/public"
				if groups != nil {
					name = b.Name + "/" + w.Name + "/staff"
				}
				out = append(out, view{name, fsys, testcorpus.Visible(files, groups...), files})
			}
		}
	}
	return out
}

// dirs returns the directories of files, "." included.
func dirs(files map[string]string) map[string][]string {
	out := map[string][]string{".": nil}
	for slug := range files {
		child := slug
		for d := path.Dir(slug); ; d = path.Dir(d) {
			name := path.Base(child)
			if child != slug {
				name += "/"
			}
			if !slices.Contains(out[d], name) {
				out[d] = append(out[d], name)
			}
			if d == "." {
				break
			}
			child = d
		}
	}
	for d := range out {
		slices.Sort(out[d])
	}
	return out
}

func abs(name string) string {
	if name == "." {
		return "/"
	}
	return "/" + name
}

// TestTools checks every tool's answers against the source files, on
// memstore and real Chroma, for a public and a staff user.
func TestTools(t *testing.T) {
	for _, v := range views(t) {
		t.Run(v.name, func(t *testing.T) {
			c := connect(t, v.fsys, mcpserver.Config{MaxOutput: -1})
			checkRead(t, c, v)
			checkReadPaths(t, c, v)
			checkLs(t, c, v)
			checkGlob(t, c, v)
			checkGrep(t, c, v)
			checkStat(t, c, v)
			checkBash(t, c, v)
			checkHidden(t, c, v)
		})
	}
}

func checkRead(t *testing.T, c *client, v view) {
	for slug, content := range v.files {
		got := c.text("read", map[string]any{"path": "/" + slug})
		want := catN(content)
		if content == "" {
			want = "(/" + slug + " is an empty file)"
		}
		if got != want {
			t.Errorf("read /%s:\n%q\nwant\n%q", slug, got, want)
		}
	}
}

func checkLs(t *testing.T, c *client, v view) {
	for dir, entries := range dirs(v.files) {
		got := c.text("ls", map[string]any{"path": abs(dir)})
		var want strings.Builder
		for _, e := range entries {
			if strings.HasSuffix(e, "/") {
				fmt.Fprintln(&want, e)
				continue
			}
			size := len(v.files[path.Join(dir, e)])
			unit := "bytes"
			if size == 1 {
				unit = "byte"
			}
			fmt.Fprintf(&want, "%s  %d %s\n", e, size, unit)
		}
		if strings.Contains(v.name, "foreign") {
			// The foreign writer records no sizes: ls says so rather
			// than read every page. Compare the names.
			got = stripSizes(got)
			w := stripSizes(want.String())
			if got != w {
				t.Errorf("ls %s:\n%s\nwant\n%s", abs(dir), got, w)
			}
			continue
		}
		if got != want.String() {
			t.Errorf("ls %s:\n%s\nwant\n%s", abs(dir), got, want.String())
		}
	}
}

func stripSizes(s string) string {
	var out []string
	for l := range strings.Lines(s) {
		name, _, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "  ")
		out = append(out, name)
	}
	return strings.Join(out, "\n")
}

func checkGlob(t *testing.T, c *client, v view) {
	var want []string
	for d := range dirs(v.files) {
		if d != "." {
			want = append(want, "/"+d+"/")
		}
	}
	var md []string
	for slug := range v.files {
		want = append(want, "/"+slug)
		if path.Ext(slug) == ".md" {
			md = append(md, "/"+slug)
		}
	}
	slices.Sort(want)
	slices.Sort(md)
	if got := c.text("glob", map[string]any{"pattern": "**"}); got != strings.Join(want, "\n")+"\n" {
		t.Errorf("glob **:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if got := c.text("glob", map[string]any{"pattern": "/**/*.md"}); got != strings.Join(md, "\n")+"\n" {
		t.Errorf("glob /**/*.md:\n%s\nwant\n%s", got, strings.Join(md, "\n"))
	}
}

func checkGrep(t *testing.T, c *client, v view) {
	for _, word := range []string{"token", "access_token", "line end", "Résumé"} {
		var files, content, counts []string
		for slug, text := range v.files {
			n := 0
			for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if strings.Contains(l, word) {
					n++
					content = append(content, fmt.Sprintf("/%s:%d:%s", slug, i+1, l))
				}
			}
			if n > 0 {
				files = append(files, "/"+slug)
				counts = append(counts, fmt.Sprintf("/%s:%d", slug, n))
			}
		}
		slices.Sort(files)
		slices.Sort(counts)
		join := func(s []string) string {
			if len(s) == 0 {
				return "No matches found\n"
			}
			return strings.Join(s, "\n") + "\n"
		}
		if got := c.text("grep", map[string]any{"pattern": word, "path": "/"}); got != join(files) {
			t.Errorf("grep %s:\n%s\nwant\n%s", word, got, join(files))
		}
		if got := c.text("grep", map[string]any{"pattern": word, "output_mode": "count"}); got != join(counts) {
			t.Errorf("grep -c %s:\n%s\nwant\n%s", word, got, join(counts))
		}
		got := c.text("grep", map[string]any{"pattern": word, "output_mode": "content", "fixed_strings": true})
		gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(content) == 0 {
			gotLines = nil
			if got != "No matches found\n" {
				t.Errorf("grep -n %s: %q", word, got)
			}
		}
		// grep -r prints files in name order, lines in file order.
		slices.Sort(gotLines)
		slices.Sort(content)
		if !slices.Equal(gotLines, content) {
			t.Errorf("grep -n %s:\n%s\nwant\n%s", word, strings.Join(gotLines, "\n"), strings.Join(content, "\n"))
		}
	}
	// glob: by name at any depth, or by path.
	var mdx []string
	for slug, text := range v.files {
		if strings.HasSuffix(slug, ".mdx") && strings.Contains(text, "token") {
			mdx = append(mdx, "/"+slug)
		}
	}
	slices.Sort(mdx)
	for _, glob := range []string{"*.mdx", "**/*.mdx"} {
		got := c.text("grep", map[string]any{"pattern": "token", "glob": glob})
		if got != strings.Join(mdx, "\n")+"\n" {
			t.Errorf("grep --glob %s:\n%s\nwant\n%s", glob, got, mdx)
		}
	}
	if got := c.text("grep", map[string]any{"pattern": "token", "glob": "nothing/**/*.md"}); !strings.HasPrefix(got, "No files under / match the glob") {
		t.Errorf("grep with a glob that matches nothing: %q", got)
	}
	// -i, and context.
	got := c.text("grep", map[string]any{"pattern": "FIVE LEVELS", "case_insensitive": true, "output_mode": "content", "context": 1})
	if want := "/deep/a/b/c/d/leaf.md-1-# Leaf\n/deep/a/b/c/d/leaf.md:2:five levels down\n"; got != want {
		t.Errorf("grep -i -C1: %q, want %q", got, want)
	}
	got = c.text("grep", map[string]any{"pattern": "five", "path": "/deep", "output_mode": "content", "line_numbers": false})
	if want := "/deep/a/b/c/d/leaf.md:five levels down\n"; got != want {
		t.Errorf("grep without -n: %q, want %q", got, want)
	}
	if e := c.fail("grep", map[string]any{"pattern": "a(b"}); !strings.Contains(e, "Unmatched ( or \\(") {
		t.Errorf("grep with a bad regex: %q", e)
	}
}

func checkStat(t *testing.T, c *client, v view) {
	for _, slug := range []string{"guides/auth/oauth.mdx", "empty.md", "api/users"} {
		r := c.call("stat", map[string]any{"path": "/" + slug})
		if r.isError {
			t.Fatalf("stat /%s: %s", slug, r.text)
		}
		size := len(v.files[slug])
		if r.structured["type"] != "file" || r.structured["size"] != float64(size) || r.structured["path"] != "/"+slug {
			t.Errorf("stat /%s: %v, want a file of %d bytes", slug, r.structured, size)
		}
		if !strings.Contains(r.text, fmt.Sprintf("size: %d bytes\n", size)) {
			t.Errorf("stat /%s: %q", slug, r.text)
		}
		if strings.Contains(v.name, "ingest") {
			if r.structured["mod_time"] != "2025-03-14T15:09:26Z" || !strings.HasPrefix(fmt.Sprint(r.structured["hash"]), "sha256:") {
				t.Errorf("stat /%s: %v, want the ingest's mod time and hash", slug, r.structured)
			}
		}
	}
	r := c.call("stat", map[string]any{"path": "/guides"})
	if r.structured["type"] != "directory" || r.structured["entries"] != float64(len(dirs(v.files)["guides"])) {
		t.Errorf("stat /guides: %v", r.structured)
	}
}

func checkBash(t *testing.T, c *client, v view) {
	r := c.call("bash", map[string]any{"command": "cat /guides/quickstart.md"})
	if r.text != v.files["guides/quickstart.md"] || r.structured["stdout"] != r.text || r.structured["exit_code"] != float64(0) {
		t.Errorf("bash cat: %q %v", r.text, r.structured)
	}
	// The working directory persists, and every tool resolves against it.
	c.text("bash", map[string]any{"command": "cd /guides/auth"})
	if got := c.text("bash", map[string]any{"command": "pwd; ls"}); got != "/guides/auth\napi-keys.md\noauth.mdx\n" {
		t.Errorf("bash after cd: %q", got)
	}
	if got := c.text("read", map[string]any{"path": "oauth.mdx"}); got != catN(v.files["guides/auth/oauth.mdx"]) {
		t.Errorf("read relative to the working directory: %q", got)
	}
	if got := c.text("ls", map[string]any{"path": ".."}); !strings.HasPrefix(got, "auth/\n") {
		t.Errorf("ls ..: %q", got)
	}
	r = c.call("bash", map[string]any{"command": "cd /; cat nope.md; echo done"})
	if r.text != "cat: nope.md: No such file or directory\ndone\n" || r.structured["stderr"] != "cat: nope.md: No such file or directory\n" || r.structured["cwd"] != "/" {
		t.Errorf("bash: %q %v", r.text, r.structured)
	}
	if got := c.text("bash", map[string]any{"command": "grep -q zzzzz -r /"}); got != "[exit status 1]" {
		t.Errorf("bash with status 1: %q", got)
	}
	if got := c.text("bash", map[string]any{"command": "rm /index.md"}); got != "rm: cannot remove '/index.md': Read-only file system\n[exit status 1]" {
		t.Errorf("bash rm: %q", got)
	}
}

// checkHidden: what a user may not see is missing, in every tool, with
// the same words as a path that does not exist.
func checkHidden(t *testing.T, c *client, v view) {
	_, staff := v.files["internal/oncall.md"]
	if staff {
		if got := c.text("read", map[string]any{"path": "/internal/oncall.md"}); got != catN(v.all["internal/oncall.md"]) {
			t.Errorf("staff read /internal/oncall.md: %q", got)
		}
		return
	}
	for _, p := range []string{"/internal/oncall.md", "/internal/secret/plan.md", "/internal"} {
		missing := strings.Replace(p, "internal", "nonexistent", 1)
		for _, tool := range []string{"read", "ls", "stat", "grep"} {
			args := func(p string) map[string]any {
				if tool == "grep" {
					return map[string]any{"pattern": "a", "path": p}
				}
				return map[string]any{"path": p}
			}
			got := c.fail(tool, args(p))
			want := strings.ReplaceAll(c.fail(tool, args(missing)), "nonexistent", "internal")
			if got != want {
				t.Errorf("%s %s: %q; a missing path gets %q", tool, p, got, want)
			}
			if want := p + ": no such file or directory (ls / shows what / holds)"; got != want {
				t.Errorf("%s %s: %q, want %q", tool, p, got, want)
			}
		}
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"ls", map[string]any{"path": "/"}},
		{"glob", map[string]any{"pattern": "**"}},
		{"glob", map[string]any{"pattern": "internal/**"}},
		{"grep", map[string]any{"pattern": "rotation|oncall|signing"}},
		{"grep", map[string]any{"pattern": "rotation", "output_mode": "content", "glob": "**/*.md"}},
		{"bash", map[string]any{"command": "ls -R /; find / -name '*.md'; grep -r rotation /; cat /internal/oncall.md; cd /internal"}},
	} {
		got := c.call(call.tool, call.args).text
		for l := range strings.Lines(got) {
			l = strings.TrimSpace(l)
			if l == "internal" || l == "internal/" || strings.HasPrefix(l, "/internal/") || strings.Contains(l, "rotation") ||
				strings.Contains(l, "oncall") && !strings.Contains(l, "No such file") || strings.Contains(l, "runbooks") || strings.Contains(l, "secret") {
				t.Errorf("%s %v shows a hidden page: %q", call.tool, call.args, l)
			}
		}
	}
	if got := c.text("grep", map[string]any{"pattern": "rotation plan"}); got != "No matches found\n" {
		t.Errorf("grep for a hidden page's text: %q", got)
	}
}

// TestToolList: six tools, read-only, with the inputs the issue names.
func TestToolList(t *testing.T) {
	c := connect(t, fstest.MapFS{"a.md": {Data: []byte("a\n")}}, mcpserver.Config{})
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"bash": {"command"},
		"read": {"path", "offset", "limit", "paths"},
		"ls":   {"path"},
		"glob": {"pattern", "path"},
		"grep": {"pattern", "path", "glob", "output_mode", "case_insensitive", "fixed_strings", "perl_regexp", "context", "line_numbers", "head_limit"},
		"stat": {"path"},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Description == "" {
			t.Errorf("%s: annotations %+v, description %q", tool.Name, tool.Annotations, tool.Description)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(func(yield func(string) bool) {
			for k := range sc.Properties {
				if !yield(k) {
					return
				}
			}
		})
		if w := slices.Sorted(slices.Values(want[tool.Name])); !slices.Equal(got, w) {
			t.Errorf("%s: properties %v, want %v", tool.Name, got, w)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"bash", "glob", "grep", "ls", "read", "stat"}) {
		t.Errorf("tools %v", names)
	}
}

// TestGrepPerl: perl_regexp is grep -P, and excludes fixed_strings.
func TestGrepPerl(t *testing.T) {
	c := connect(t, fstest.MapFS{
		"a.md": {Data: []byte("version: 1.2.3\n<a href=\"/docs\">docs</a>\n")},
		"b.md": {Data: []byte("version 4\n")},
	}, mcpserver.Config{})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": `version: \d+\.\d+`, "perl_regexp": true}, "/a.md\n"},
		{map[string]any{"pattern": `(?<=href=")[^"]+`, "perl_regexp": true, "output_mode": "content"}, "/a.md:2:<a href=\"/docs\">docs</a>\n"},
		{map[string]any{"pattern": `version(?!:)`, "perl_regexp": true, "output_mode": "count"}, "/b.md:1\n"},
	}
	for _, tt := range tests {
		if got := c.text("grep", tt.args); got != tt.want {
			t.Errorf("grep %v: %q, want %q", tt.args, got, tt.want)
		}
	}
	if got := c.fail("grep", map[string]any{"pattern": "(", "perl_regexp": true}); !strings.Contains(got, "missing closing parenthesis") {
		t.Errorf("grep -P '(': %q", got)
	}
	if got := c.fail("grep", map[string]any{"pattern": "x", "perl_regexp": true, "fixed_strings": true}); !strings.Contains(got, "exclude each other") {
		t.Errorf("grep -F -P: %q", got)
	}
}
