package loadtest

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseScript: a script file's calls in order with their lines;
// each bad line is named by its number.
func TestParseScript(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Call
		err      string
	}{
		{name: "calls, comments and blank lines",
			in: "# a question\n{\"tool\":\"ls\",\"args\":{\"path\":\"/\"}}\n\n  {\"tool\":\"read\",\"args\":{\"path\":\"/a.md\",\"limit\":3}}\n{\"tool\":\"bash\"}\n",
			want: []Call{
				{Tool: "ls", Args: map[string]any{"path": "/"}, Line: 2},
				{Tool: "read", Args: map[string]any{"path": "/a.md", "limit": "3"}, Line: 4},
				{Tool: "bash", Line: 5},
			}},
		{name: "not JSON", in: "{\"tool\":\"ls\"}\n\n{tool: ls}\n", err: "s.jsonl:3: invalid character"},
		{name: "unknown field", in: "{\"tool\":\"ls\",\"argz\":{}}\n", err: `s.jsonl:1: json: unknown field "argz"`},
		{name: "no tool", in: "# x\n{\"args\":{\"path\":\"/\"}}\n", err: `s.jsonl:2: no "tool"`},
		{name: "two values", in: "{\"tool\":\"ls\"} {\"tool\":\"ls\"}\n", err: "s.jsonl:1: more than one JSON value"},
		{name: "args not an object", in: "{\"tool\":\"ls\",\"args\":[1]}\n", err: "s.jsonl:1: json: cannot unmarshal array"},
		{name: "empty", in: "# nothing\n\n", err: "s.jsonl: no calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScript("s.jsonl", strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []Call
			next := s.Session(0, nil)
			for c, ok := next(""); ok; c, ok = next("answer") {
				// json.Number prints as its digits
				for k, v := range c.Args {
					if n, ok := v.(interface{ String() string }); ok {
						c.Args[k] = n.String()
					}
				}
				got = append(got, c)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("calls\n%#v\nwant\n%#v", got, tt.want)
			}
			if tools := s.Tools(); len(tools) != len(tt.want) || tools[0].Line != tt.want[0].Line {
				t.Errorf("Tools() = %v", tools)
			}
		})
	}
}

// TestDocsQuestion: the built-in script's calls depend on the answers
// (the file that grep found, glob when it found none) and on the tools
// listed (search only when listed, suffixed names).
func TestDocsQuestion(t *testing.T) {
	all := []string{"bash", "glob", "grep", "ls", "read", "search", "stat"}
	suffixed := []string{"bash_acme", "glob_acme", "grep_acme", "ls_acme", "read_acme", "stat_acme"}
	type step struct{ answer, tool, arg string }
	tests := []struct {
		name  string
		n     int
		tools []string
		steps []step // the answer given to the call before, and the call expected
	}{
		{name: "grep finds a file", n: 0, tools: all, steps: []step{
			{"", "ls", "/"},
			{"/guides/\nindex.md\n", "grep", "token"},
			{"/guides/a b.md\n/index.md\n", "read", "/guides/a b.md"},
			{"     1\tx\n", "stat", "/guides/a b.md"},
			{"/guides/a b.md: file", "search", "how do I use token"},
			{"ranked", "bash", `grep -ci token '/guides/a b.md' | head -5`},
		}},
		{name: "grep finds nothing, no search, suffixed names", n: 1, tools: suffixed, steps: []step{
			{"", "ls_acme", "/"},
			{"a\n", "grep_acme", "limit"},
			{"", "glob_acme", "**/*.md"},
			{"/x.md\n", "read_acme", "/x.md"},
			{"1\n", "stat_acme", "/x.md"},
			{"x", "bash_acme", "grep -ci limit '/x.md' | head -5"},
		}},
		{name: "empty docs", n: 2, tools: all, steps: []step{
			{"", "ls", "/"},
			{"", "grep", "project"},
			{"", "glob", "**/*.md"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := DocsQuestion{}.Session(tt.n, tt.tools)
			for i, s := range tt.steps {
				c, ok := next(s.answer)
				if !ok {
					t.Fatalf("step %d: done, want %s", i, s.tool)
				}
				var arg string
				for _, k := range []string{"pattern", "query", "command", "path"} {
					if v, ok := c.Args[k].(string); ok {
						arg = v
						break
					}
				}
				if c.Tool != s.tool || arg != s.arg {
					t.Errorf("step %d: %s %q, want %s %q", i, c.Tool, arg, s.tool, s.arg)
				}
			}
			if c, ok := next("last"); ok {
				t.Errorf("after the last step: %v", c)
			}
		})
	}
}

// TestHistogram: percentiles within the histogram's precision, values
// out of range clamped, and the same memory for 1 value or a million.
func TestHistogram(t *testing.T) {
	h := newHistogram()
	if l := h.latency(); l != (Latency{}) {
		t.Errorf("empty: %+v", l)
	}
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Millisecond)
	}
	h.record(0)
	l := h.latency()
	near := func(got, want float64) bool { return got >= want*0.999 && got <= want*1.001 }
	if l.Count != 1001 || !near(l.P50, 500) || !near(l.P90, 900) || !near(l.P99, 990) || !near(l.Max, 1000) {
		t.Errorf("latency %+v", l)
	}
	h.record(2 * time.Hour)
	if l := h.latency(); !near(l.Max, float64(time.Hour/time.Millisecond)) {
		t.Errorf("2 h recorded as %v ms", l.Max)
	}
}

// TestLinks: the entries of a serve --http listing, directories apart,
// without the parent and without links that leave the listing; resolved
// against the listing's URL.
func TestLinks(t *testing.T) {
	body := []byte("<pre>\n<a href=\"../\">../</a>\n<a href=\"guides/\">guides/</a>\n<a href=\"a%20b.md\">a b.md</a>\n" +
		"<a href=\"x&amp;y.md\">x&amp;y.md</a>\n<a href=\"http://evil/\">e</a>\n<a href=\"/abs\">a</a>\n</pre>\n")
	dirs, files := links(body)
	if !reflect.DeepEqual(dirs, []string{"guides/"}) || !reflect.DeepEqual(files, []string{"a%20b.md", "x&y.md"}) {
		t.Errorf("dirs %q, files %q", dirs, files)
	}
	for _, tt := range []struct{ base, ref, want string }{
		{"http://h:1/", "guides/", "http://h:1/guides/"},
		{"http://h:1/docs/guides/", "a%20b.md", "http://h:1/docs/guides/a%20b.md"},
		{"http://h:1/g/", "x&y.md", "http://h:1/g/x&y.md"},
	} {
		if got := resolve(tt.base, tt.ref); got != tt.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tt.base, tt.ref, got, tt.want)
		}
	}
}
