package mcpserver_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/mcpserver"
)

// window is what read answers for lines offset..offset+limit-1 of
// content (offset from 1), with its footer when lines remain.
func window(content string, offset, limit int) string {
	lines := strings.SplitAfter(catN(content), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last "\n"
	last := min(offset-1+limit, len(lines))
	out := strings.Join(lines[offset-1:last], "")
	if last < len(lines) {
		out += fmt.Sprintf("(lines %d-%d of %d; use offset=%d to continue)\n", offset, last, len(lines), last+1)
	}
	return out
}

// checkReadPaths: read with paths answers each file under its header, in
// the order asked, each with its own window, with an error line for a
// file that is missing, a directory or hidden (the same line a missing
// file gets), and no error for the call.
func checkReadPaths(t *testing.T, c *client, v view) {
	var multi []string // visible files of three lines or more
	for _, name := range slices.Sorted(maps.Keys(v.files)) {
		if strings.Count(v.files[name], "\n") >= 3 {
			multi = append(multi, name)
		}
	}
	if len(multi) < 2 {
		t.Fatalf("the corpus has %d visible files of three lines or more; want 2", len(multi))
	}
	a, b := multi[0], multi[1]
	parts := []map[string]any{
		{"path": "/" + a},
		{"path": "/" + b, "offset": 2, "limit": 1},
		{"path": "/nonexistent/x.md"},
		{"path": "/internal/oncall.md"},
		{"path": "/" + a, "limit": 2},
	}
	var want strings.Builder
	fmt.Fprintf(&want, "==> /%s <==\n%s", a, window(v.files[a], 1, 1<<30))
	fmt.Fprintf(&want, "\n==> /%s <==\n%s", b, window(v.files[b], 2, 1))
	want.WriteString("\n==> /nonexistent/x.md <==\nerror: /nonexistent/x.md: no such file or directory (ls / shows what / holds)\n")
	if content, ok := v.files["internal/oncall.md"]; ok {
		fmt.Fprintf(&want, "\n==> /internal/oncall.md <==\n%s", catN(content))
	} else {
		want.WriteString("\n==> /internal/oncall.md <==\nerror: /internal/oncall.md: no such file or directory (ls / shows what / holds)\n")
	}
	fmt.Fprintf(&want, "\n==> /%s <==\n%s", a, window(v.files[a], 1, 2))
	if got := c.text("read", map[string]any{"paths": parts}); got != want.String() {
		t.Errorf("read paths:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestReadPathsArguments: the arguments of a read of several files that
// fail the call, with what to do instead.
func TestReadPathsArguments(t *testing.T) {
	v := views(t)[0]
	c := connect(t, v.fsys, mcpserver.Config{})
	some := slices.Sorted(maps.Keys(v.files))[0]
	many := make([]map[string]any, mcpserver.MaxReadPaths+1)
	for i := range many {
		many[i] = map[string]any{"path": "/" + some}
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"neither", map[string]any{}, "path is empty: give the file to read (e.g. /index.md), or paths for several"},
		{"both", map[string]any{"path": "/" + some, "paths": []map[string]any{{"path": "/" + some}}}, "give path or paths, not both"},
		{"too many", map[string]any{"paths": many}, "paths names 21 files; at most 20 in one call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.fail("read", tt.args); got != tt.want {
				t.Errorf("read %v: %q, want %q", tt.args, got, tt.want)
			}
		})
	}
	// Errors of one file are that file's: a negative window, a directory.
	got := c.text("read", map[string]any{"paths": []map[string]any{{"path": "/" + some, "offset": -1}, {"path": "/"}, {"path": ""}}})
	want := "==> /" + some + " <==\nerror: offset and limit must be positive (offset is the first line, from 1)\n" +
		"\n==> / <==\nerror: / is a directory, not a file: ls / lists it\n" +
		"\n==> / <==\nerror: path is empty: give the file to read (e.g. /index.md)\n"
	if got != want {
		t.Errorf("read paths with bad parts:\n%s\nwant:\n%s", got, want)
	}
}

// TestReadPathsBound: the files of one read share one output bound; those
// past it are named at the end, not cut silently, and the answer stays
// within the bound.
func TestReadPathsBound(t *testing.T) {
	v := views(t)[0]
	names := slices.Sorted(maps.Keys(v.files))
	var parts []map[string]any
	total := 0
	for _, n := range names {
		parts = append(parts, map[string]any{"path": "/" + n})
		total += len(catN(v.files[n]))
		if len(parts) == mcpserver.MaxReadPaths {
			break
		}
	}
	const max = 1500
	if total < 2*max {
		t.Fatalf("the first %d files hold %d characters numbered; want over %d for this test", len(parts), total, 2*max)
	}
	c := connect(t, v.fsys, mcpserver.Config{MaxOutput: max})
	got := c.text("read", map[string]any{"paths": parts})
	if n := len([]rune(got)); n > max {
		t.Errorf("read of %d files: %d characters, over the bound of %d:\n%s", len(parts), n, max, got)
	}
	i := strings.LastIndex(got, "(output limit reached; not shown: ")
	if i < 0 {
		t.Fatalf("read of %d files past the bound: no note of the files not shown:\n%s", len(parts), got)
	}
	// Every file is either shown under its header or counted in the note
	// (named, or among the "and N more").
	note := strings.TrimSuffix(strings.TrimPrefix(got[i:], "(output limit reached; not shown: "), "; read them in another call)\n")
	more := 0
	if j := strings.LastIndex(note, " and "); j >= 0 {
		if _, err := fmt.Sscanf(note[j:], " and %d more", &more); err != nil {
			t.Fatalf("note %q: %v", note, err)
		}
		note = note[:j]
	}
	named := strings.Split(note, ", ")
	shown := strings.Count(got[:i], "==> ")
	if shown == 0 || shown+len(named)+more != len(parts) {
		t.Errorf("read of %d files: %d shown, %d named and %d more not shown:\n%s", len(parts), shown, len(named), more, got)
	}
	for _, n := range named {
		if strings.Contains(got[:i], "==> "+n+" <==\n") {
			t.Errorf("%s is shown and named as not shown", n)
		}
	}
}
