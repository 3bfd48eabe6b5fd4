package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/chromafs/chromafs/mcpserver"
)

// bigFS holds a file of 5,000 numbered lines, a file with one line of
// 5,000 characters, an empty file and a directory of 3,000 files.
func bigFS() fstest.MapFS {
	var lines strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&lines, "%d\n", i)
	}
	m := fstest.MapFS{
		"lines.txt": {Data: []byte(lines.String())},
		"long.txt":  {Data: []byte("short\n" + strings.Repeat("é", 5000) + "\nafter")},
		"empty.md":  {Data: nil},
	}
	for i := range 3000 {
		m[fmt.Sprintf("many/f%04d.md", i)] = &fstest.MapFile{Data: []byte("hit\n")}
	}
	return m
}

// TestRead: offsets, limits, the footer, the long-line marker, the empty
// file, and the errors read gives.
func TestRead(t *testing.T) {
	c := connect(t, bigFS(), mcpserver.Config{})
	got := c.text("read", map[string]any{"path": "/lines.txt"})
	if !strings.HasPrefix(got, "     1\t1\n     2\t2\n") || !strings.HasSuffix(got, "  2000\t2000\n(lines 1-2000 of 5000; use offset=2001 to continue)\n") {
		t.Errorf("read: %s…%s", got[:40], got[len(got)-80:])
	}
	got = c.text("read", map[string]any{"path": "lines.txt", "offset": 4999, "limit": 10})
	if got != "  4999\t4999\n  5000\t5000\n" {
		t.Errorf("read the last lines: %q", got)
	}
	got = c.text("read", map[string]any{"path": "/lines.txt", "offset": 10, "limit": 2})
	if got != "    10\t10\n    11\t11\n(lines 10-11 of 5000; use offset=12 to continue)\n" {
		t.Errorf("read offset 10 limit 2: %q", got)
	}
	got = c.text("read", map[string]any{"path": "/long.txt"})
	want := "     1\tshort\n     2\t" + strings.Repeat("é", 2000) + " [… line cut: 3,000 more characters; bash: sed -n 2p /long.txt | cut -c2001- shows them]\n     3\tafter\n"
	if got != want {
		t.Errorf("read a long line: %q", got)
	}
	if got := c.text("read", map[string]any{"path": "/empty.md"}); got != "(/empty.md is an empty file)" {
		t.Errorf("read an empty file: %q", got)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "/lines.txt", "offset": 5001}, "offset 5001 is past the end of /lines.txt, which has 5000 lines"},
		{map[string]any{"path": "/many"}, "/many is a directory, not a file: ls /many lists it"},
		{map[string]any{"path": "/many/nope/x.md"}, "/many/nope/x.md: no such file or directory (ls /many shows what /many holds)"},
		{map[string]any{"path": "/lines.txt/x"}, "/lines.txt/x: no such file or directory (ls / shows what / holds)"},
		{map[string]any{"path": "/lines.txt", "offset": -1}, "offset and limit must be positive (offset is the first line, from 1)"},
	} {
		if got := c.fail("read", tc.args); got != tc.want {
			t.Errorf("read %v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestBounds: every tool's answer stays within MaxOutput characters and
// ends with a note on how to get the rest.
func TestBounds(t *testing.T) {
	const limit = 2000
	c := connect(t, bigFS(), mcpserver.Config{MaxOutput: limit})
	for _, tc := range []struct {
		tool string
		args map[string]any
		note string
	}{
		{"read", map[string]any{"path": "/lines.txt"}, "use offset=1"},
		{"ls", map[string]any{"path": "/many"}, "more entries not shown; ls a subdirectory, or glob with a narrower pattern]\n"},
		{"glob", map[string]any{"pattern": "**/*.md"}, "more paths not shown; narrow the pattern or the path]\n"},
		{"grep", map[string]any{"pattern": "hit"}, "more files not shown; narrow the path or glob, or use a more specific pattern]\n"},
		{"grep", map[string]any{"pattern": "hit", "output_mode": "content"}, "more lines not shown; narrow the path or glob, or use a more specific pattern, or output_mode=files_with_matches first]\n"},
		{"grep", map[string]any{"pattern": "hit", "output_mode": "count"}, "more counts not shown;"},
		{"bash", map[string]any{"command": "cat /lines.txt"}, "[output truncated: "},
	} {
		got := c.text(tc.tool, tc.args)
		if n := utf8.RuneCountInString(got); n > limit+200 || n < limit/2 || !strings.Contains(got, tc.note) {
			t.Errorf("%s %v: %d characters, ending %q; want at most %d, with %q", tc.tool, tc.args, n, got[max(0, len(got)-200):], limit, tc.note)
		}
	}
	// head_limit keeps the first lines, and says how many more there were.
	got := c.text("grep", map[string]any{"pattern": "hit", "path": "/many", "head_limit": 2})
	if got != "/many/f0000.md\n/many/f0001.md\n[2,998 more files not shown; narrow the path or glob, or use a more specific pattern]\n" {
		t.Errorf("grep head_limit 2: %q", got)
	}
	// The read footer continues where the cut answer stopped.
	got = c.text("read", map[string]any{"path": "/lines.txt"})
	last := strings.Count(got, "\n") - 1
	if want := fmt.Sprintf("(lines 1-%d of 5000; use offset=%d to continue)\n", last, last+1); !strings.HasSuffix(got, want) {
		t.Errorf("read cut by MaxOutput: ends %q, want %q", got[len(got)-60:], want)
	}
}

// TestErrors: the errors of the tools other than read.
func TestErrors(t *testing.T) {
	c := connect(t, bigFS(), mcpserver.Config{})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"ls", map[string]any{"path": "/nope"}, "/nope: no such file or directory (ls / shows what / holds)"},
		{"glob", map[string]any{"pattern": "*", "path": "/many/x"}, "/many/x: no such file or directory (ls /many shows what /many holds)"},
		{"glob", map[string]any{"pattern": "*", "path": "/lines.txt"}, "/lines.txt is a file, not a directory: glob needs a directory as path"},
		{"glob", map[string]any{"pattern": "[a"}, `invalid glob pattern "[a"`},
		{"grep", map[string]any{"pattern": "x", "output_mode": "lines"}, `validating "arguments": `},
		{"grep", map[string]any{"pattern": "x", "path": "/nope/y"}, "/nope/y: no such file or directory (ls / shows what / holds)"},
		{"grep", map[string]any{"pattern": "x", "context": -1}, `validating "arguments": `},
		{"stat", map[string]any{"path": "/many/f9999.md"}, "/many/f9999.md: no such file or directory (ls /many shows what /many holds)"},
		{"read", map[string]any{}, "path is empty: give the file to read (e.g. /index.md), or paths for several"},
	} {
		if got := c.fail(tc.tool, tc.args); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if got := c.text("ls", map[string]any{"path": "/empty.md"}); got != "/empty.md  0 bytes\n" {
		t.Errorf("ls of a file: %q", got)
	}
	if got := c.text("glob", map[string]any{"pattern": "*.go"}); got != "No paths under / match *.go" {
		t.Errorf("glob without matches: %q", got)
	}
}

// TestBashInProcess: what the bash tool's description promises of bash
// -c, sh -c and find -exec runs in the session's sandbox.
func TestBashInProcess(t *testing.T) {
	c := connect(t, bigFS(), mcpserver.Config{})
	for _, tc := range []struct{ command, want string }{
		{`find /many -name 'f000[0-2].md' -exec sh -c 'echo "$# files"' _ {} +`, "3 files\n"},
		{`echo /lines.txt | xargs sh -c 'head -2 "$0"'`, "1\n2\n"},
		{`cd /many && bash -c 'pwd; ls | wc -l'`, "/many\n3000\n"},
	} {
		if got := c.text("bash", map[string]any{"command": tc.command}); got != tc.want {
			t.Errorf("bash %s: %q, want %q", tc.command, got, tc.want)
		}
	}
}
