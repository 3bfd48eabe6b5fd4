package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/mcpserver"
	"github.com/chromafs/chromafs/search"
)

// unknownSizes is a filesystem whose files' sizes are not known without
// a read (fscap.StatNoReadFS), as chromafs.FS's pages may be.
type unknownSizes struct{ fstest.MapFS }

func (u unknownSizes) StatNoRead(name string) (fs.FileInfo, bool, error) {
	fi, err := fs.Stat(u.MapFS, name)
	if err != nil || fi.IsDir() {
		return fi, err == nil, err
	}
	return fi, false, nil
}

// failSearcher fails every search, as a searcher whose store is down.
type failSearcher struct{}

func (failSearcher) Search(context.Context, fs.FS, string, search.Options) ([]search.Hit, error) {
	return nil, errors.New("store unreachable")
}

// TestNameSuffixInAnswers: with Config.NameSuffix, every answer and error
// of a tool that names a tool (the hints of a missing path, a directory
// read as a file, a cut listing, a size not recorded, a long line, the
// files a read leaves out, grep's diagnostics, a failed search) names it
// as served, and only a tool that is served; a command of the bash tool
// ("ls / in bash_zz") is the shell's, not a tool. The answer is otherwise
// the one the same server gives without a suffix.
func TestNameSuffixInAnswers(t *testing.T) {
	const suffix = "zz"
	files := fstest.MapFS{
		"docs/a.md":    {Data: []byte("alpha\n")},
		"docs/long.md": {Data: []byte("x\n" + strings.Repeat("é", 2500) + "\n")},
	}
	for i := range 300 {
		files[fmt.Sprintf("many/f%03d.md", i)] = &fstest.MapFile{Data: []byte(strings.Repeat("line\n", 40))}
	}
	all := []string{"bash", "read", "ls", "glob", "grep", "stat", "search"}
	var manyPaths []map[string]any
	for i := range 20 {
		manyPaths = append(manyPaths, map[string]any{"path": fmt.Sprintf("/many/f%03d.md", i)})
	}
	tests := []struct {
		name  string
		tools []string
		fsys  fs.FS
		tool  string
		args  map[string]any
		names string // the tool the answer must name ("" for none)
	}{
		{"read a missing file", all, files, "read", map[string]any{"path": "/docs/nope.md"}, "ls"},
		{"read a directory", all, files, "read", map[string]any{"path": "/docs"}, "ls"},
		{"ls a missing directory", all, files, "ls", map[string]any{"path": "/nope/deeper"}, "ls"},
		{"stat a missing file", all, files, "stat", map[string]any{"path": "/docs/nope.md"}, "ls"},
		{"glob under a missing path", all, files, "glob", map[string]any{"pattern": "*.md", "path": "/nope"}, "ls"},
		{"grep a missing path", all, files, "grep", map[string]any{"pattern": "alpha", "path": "/nope"}, "ls"},
		{"grep with a path glob under a missing path", all, files, "grep", map[string]any{"pattern": "alpha", "path": "/nope", "glob": "x/*.md"}, "ls"},
		{"search under a missing path", all, files, "search", map[string]any{"query": "alpha", "path": "/nope"}, "ls"},
		{"glob in a file", all, files, "glob", map[string]any{"pattern": "*", "path": "/docs/a.md"}, "glob"},
		{"ls cut", all, files, "ls", map[string]any{"path": "/many"}, "glob"},
		{"ls of sizes not recorded", all, unknownSizes{files}, "ls", map[string]any{"path": "/docs"}, "stat"},
		{"read a long line", all, files, "read", map[string]any{"path": "/docs/long.md"}, "bash"},
		{"read of more than fits", all, files, "read", map[string]any{"paths": manyPaths}, "read"},
		{"grep with a bad pattern", all, files, "grep", map[string]any{"pattern": "a(", "path": "/docs"}, "grep"},
		{"search fails", all, files, "search", map[string]any{"query": "alpha"}, "grep"},
		{"missing file, ls only in bash", []string{"read", "bash"}, files, "read", map[string]any{"path": "/docs/nope.md"}, "bash"},
		{"missing file, glob lists", []string{"read", "glob"}, files, "read", map[string]any{"path": "/docs/nope.md"}, "glob"},
		{"directory, glob lists", []string{"read", "glob"}, files, "read", map[string]any{"path": "/docs"}, "glob"},
		{"search fails, grep in bash", []string{"search", "bash"}, files, "search", map[string]any{"query": "alpha"}, "bash"},
		{"missing file, nothing lists", []string{"read", "stat"}, files, "read", map[string]any{"path": "/docs/nope.md"}, ""},
		{"long line, no bash", []string{"read"}, files, "read", map[string]any{"path": "/docs/long.md"}, ""},
		{"search fails, no grep", []string{"search"}, files, "search", map[string]any{"query": "alpha"}, ""},
	}
	bases := strings.Join(mcpserver.ToolNames(), "|")
	// Any tool name, suffixed or not, as a word.
	named := regexp.MustCompile(`\b(` + bases + `)(_` + suffix + `)?\b`)
	// A command line of the bash tool: its ls and grep are the shell's.
	inBash := regexp.MustCompile(`\b(ls|grep -r)\b[^;()]*? in bash_` + suffix + `\b`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := func(suffix string) (string, bool) {
				cfg := mcpserver.Config{Tools: tt.tools, NameSuffix: suffix, MaxOutput: 4000, Search: failSearcher{}}
				name := tt.tool
				if suffix != "" {
					name += "_" + suffix
				}
				r := connect(t, tt.fsys, cfg).call(name, tt.args)
				return r.text, r.isError
			}
			plain, plainErr := answer("")
			got, isErr := answer(suffix)
			if isErr != plainErr {
				t.Fatalf("error %v with the suffix, %v without", isErr, plainErr)
			}
			if strings.Contains(tt.name, "fails") && !isErr {
				t.Fatalf("%q, want an error", got)
			}
			served := map[string]bool{}
			for _, base := range tt.tools {
				served[base+"_"+suffix] = true
			}
			var names []string
			for _, m := range named.FindAllStringSubmatch(got, -1) {
				if m[2] != "" && m[1] != tt.tool {
					names = append(names, m[0])
				}
				if m[2] != "" && !served[m[0]] {
					t.Errorf("%.300q names %s, which is not served", got, m[0])
				}
			}
			for _, m := range named.FindAllStringSubmatch(inBash.ReplaceAllString(got, ""), -1) {
				if m[2] == "" {
					t.Errorf("%.300q names %s without its suffix", got, m[0])
				}
			}
			if tt.names == "" && len(names) > 0 {
				t.Errorf("%.300q names %q; no other tool that would help is served", got, names)
			}
			if tt.names != "" && !strings.Contains(got, tt.names+"_"+suffix) {
				t.Errorf("%.300q does not name %s_%s", got, tt.names, suffix)
			}
			// Only the names differ from the answer without a suffix.
			if back := regexp.MustCompile(`\b(`+bases+`)_`+suffix+`\b`).ReplaceAllString(got, "$1"); back != plain {
				t.Errorf("with the suffix, names put back:\n%.400q\nwithout:\n%.400q", back, plain)
			}
		})
	}
}
