package mcpserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/gnu"
)

// toolNames are the tools New can serve, in the order of the package
// documentation.
var toolNames = []string{"bash", "read", "ls", "glob", "grep", "stat", "search"}

// MaxNameSuffix is the length of the longest Config.NameSuffix: with it
// the longest tool name ("search_" and the suffix) stays within the 64
// characters that model APIs allow a tool's name.
const MaxNameSuffix = 32

// ToolNames returns the names of the tools New can serve (bash, read, ls,
// glob, grep, stat and search), the names Config.Tools chooses from.
func ToolNames() []string { return slices.Clone(toolNames) }

// Validate reports whether cfg's Tools and NameSuffix are valid: every
// name in Tools one of ToolNames (search only with Search set), and
// NameSuffix empty or 1 to MaxNameSuffix characters of a-z, 0-9, "_" and
// "-" that start with a letter or a digit. New panics on a Config that
// Validate rejects, so a caller with a configuration from a file calls it
// first. It checks nothing else: FS may still be nil.
func (cfg Config) Validate() error {
	for _, name := range cfg.Tools {
		if !slices.Contains(toolNames, name) {
			return fmt.Errorf("tools: unknown tool %q: the tools are %s", name, strings.Join(toolNames, ", "))
		}
		if name == "search" && cfg.Search == nil {
			return errors.New("tools: search needs a searcher (Config.Search), and this server has none")
		}
	}
	if !validSuffix(cfg.NameSuffix) {
		return fmt.Errorf("name suffix %q: want at most %d characters of a-z, 0-9, _ and -, starting with a letter or a digit", cfg.NameSuffix, MaxNameSuffix)
	}
	return nil
}

// validSuffix reports whether s is a valid Config.NameSuffix.
func validSuffix(s string) bool {
	if len(s) > MaxNameSuffix {
		return false
	}
	for i, c := range []byte(s) {
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// enabled returns the tools that cfg serves, by name.
func enabled(cfg Config) map[string]bool {
	on := make(map[string]bool, len(toolNames))
	for _, name := range cfg.Tools {
		on[name] = true
	}
	if len(on) == 0 {
		for _, name := range toolNames {
			on[name] = name != "search" || cfg.Search != nil
		}
	}
	return on
}

// has reports whether the server serves the tool base.
func (s *server) has(base string) bool { return s.tools[base] }

// name is the name the tool base is served under: base, then "_" and
// Config.NameSuffix when there is one.
func (s *server) name(base string) string {
	if s.cfg.NameSuffix == "" {
		return base
	}
	return base + "_" + s.cfg.NameSuffix
}

// addTools adds the tools of the configuration to srv.
func (s *server) addTools(srv *mcp.Server) {
	if s.has("bash") {
		mcp.AddTool(srv, s.tool("bash"), s.bash)
	}
	if s.has("read") {
		addTextTool(srv, s.tool("read"), s.read)
	}
	if s.has("ls") {
		addTextTool(srv, s.tool("ls"), s.ls)
	}
	if s.has("glob") {
		addTextTool(srv, s.tool("glob"), s.glob)
	}
	if s.has("grep") {
		mcp.AddTool(srv, s.tool("grep"), s.grep)
	}
	if s.has("stat") {
		mcp.AddTool(srv, s.tool("stat"), s.stat)
	}
	if s.has("search") {
		addTextTool(srv, s.tool("search"), s.search)
	}
}

// titles are the tools' display names.
var titles = map[string]string{
	"bash":   "Run a command line",
	"read":   "Read a file",
	"ls":     "List a directory",
	"glob":   "Find files by name",
	"grep":   "Search file contents",
	"stat":   "Describe a file or directory",
	"search": "Search by meaning",
}

// tool is the tool base as the server serves it: its name, title and
// description, annotated read-only and idempotent in a closed world. The
// destructive hint is left out: the protocol gives it meaning only for a
// tool that is not read-only.
func (s *server) tool(base string) *mcp.Tool {
	no := false
	t := &mcp.Tool{
		Name:        s.name(base),
		Title:       titles[base],
		Description: s.description(base),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no},
	}
	if base == "grep" {
		t.InputSchema = grepSchema()
	}
	return t
}

// description is the description of the tool base. It names the other
// tools by the names they are served under, and only those served.
func (s *server) description(base string) string {
	n := s.name
	switch base {
	case "bash":
		return `Run a bash command line over the documentation, read-only and sealed: pipes, && ||, quoting, globs, variables, $(...), loops, if/case. Paths are absolute from "/" or relative to the working directory, which cd changes for later calls too.

Commands: ` + strings.Join(gnu.Names(), ", ") + s.searchCommand() + `, xargs, sh -c, bash -c and the builtins (echo, printf, test, cd, read, ...), with GNU's or bash's flags, output and exit status; find -exec runs them too. grep -r and rg are fast over the whole tree. Nothing else: no network, no writes.

Returns stdout and stderr as written, then "[exit status N]" when N is not 0.` + s.cutNote("narrow the command (head, grep -m, a narrower path)")
	case "read":
		return `Read a file (or up to 20 with paths, each with its offset and limit), lines numbered as cat -n does: limit lines (default 2,000` + s.charCap() + `) from line offset (default 1). When lines remain the answer ends with "(lines A-B of N; use offset=B+1 to continue)". Lines over 2,000 characters are cut. ` + s.paths()
	case "ls":
		return `List a directory, one entry a line in name order: directories end with "/", files show their size in bytes. ` + s.paths() + s.pick(" For a whole subtree use ", ".",
			"glob", n("glob")+` with "**"`,
			"bash", "find or tree in "+n("bash"))
	case "glob":
		return `Find the files and directories below path whose path matches a glob: * and ? within a path component, ** across directories, {a,b}, [abc]; a pattern starting with "/" is matched from the root. Returns sorted absolute paths, one a line; directories end with "/". ` + s.paths()
	case "grep":
		return `Search file contents as GNU grep -r does. pattern is an extended regular expression (grep -E; no \d: use [0-9]), a Perl one with perl_regexp (grep -P: \d, lookaround, \K, *?), or a literal string with fixed_strings. path is a file or a directory. ` + s.paths() + `

glob filters the files: without "/" it matches names at any depth ("*.md"), with "/" paths relative to path ("guides/**/*.mdx").

output_mode: files_with_matches lists the matching files; content prints path:line:text (with context N, N lines around each match, as path-line-text, groups split by --); count prints path:count for each matching file.` + s.cutNote("narrow the path, glob or pattern, or use head_limit")
	case "search":
		return `Search the docs by meaning and words, when you lack the exact ones (e.g. "how do I rotate credentials?")` + s.pick("; for exact words ", " is faster and exhaustive",
			"grep", n("grep"),
			"bash", "grep -r in "+n("bash")) + `. Returns the best pages first, one a line, "/path:START-END  SCORE  first line", its other ranges under it ("  :START-END  first line"), each with its text, indented` + s.pick("; ", "",
			"read", n("read")+" with offset=START shows them in context",
			"bash", "sed -n in "+n("bash")+" shows the lines around them") + `. Scores only rank: check by reading. Where no embedding function is usable, words alone rank and the first line says so. ` + s.paths() + s.cutNote("ask for fewer results (k) or a narrower path")
	case "stat":
		return `Describe a file or directory: type, size in bytes, modification time, a directory's entry count, and the content type, hash and reassembly the documentation records. ` + s.paths()
	}
	panic("mcpserver: no tool " + base)
}

// paths is the sentence of a description about paths: relative ones
// resolve against the working directory, which only bash's cd changes.
func (s *server) paths() string {
	if !s.has("bash") {
		return `Paths are absolute, from "/".`
	}
	return `Paths are absolute from "/" or relative to the working directory (set by ` + s.name("bash") + `'s cd).`
}

// pick is prefix, the text of the first of the alternatives (the base
// name of a tool, then a text that names it) whose tool is served, and
// suffix; "" when none is served.
func (s *server) pick(prefix, suffix string, alts ...string) string {
	for i := 0; i+1 < len(alts); i += 2 {
		if s.has(alts[i]) {
			return prefix + alts[i+1] + suffix
		}
	}
	return ""
}

// searchCommand is the entry of bash's command list for the shell's
// search command, which is there with Config.Search.
func (s *server) searchCommand() string {
	if s.cfg.Search == nil {
		return ""
	}
	return ", search (by meaning; search --help)"
}

// charCap is the clause of read's description on the character cap.
func (s *server) charCap() string {
	if s.cfg.MaxOutput < 0 {
		return ""
	}
	return ", fewer past " + thousands(s.cfg.MaxOutput) + " characters"
}

// cutNote is the sentence of a description that says where answers are
// cut (none when they are not), with the tool's hint.
func (s *server) cutNote(hint string) string {
	if s.cfg.MaxOutput < 0 {
		return ""
	}
	return " Output over " + thousands(s.cfg.MaxOutput) + " characters is cut with a note: " + hint + "."
}

// instructions are the server's instructions to the agent: what the
// documentation is and which tool to start with, by the names the tools
// are served under.
func (s *server) instructions() string {
	var steps []string
	add := func(base, what string) {
		if s.has(base) {
			steps = append(steps, s.name(base)+what)
		}
	}
	switch {
	case s.has("ls") && s.has("glob"):
		steps = append(steps, s.name("ls")+" / or "+s.name("glob")+" to see what is there")
	case s.has("ls"):
		add("ls", " / to see what is there")
	case s.has("glob"):
		add("glob", ` "**" to see what is there`)
	}
	add("grep", " to find where something is said")
	if s.has("grep") {
		add("search", " to find it by meaning")
	} else {
		add("search", " to find where something is said, by meaning")
	}
	add("read", " to view a page with line numbers")
	b := new(strings.Builder)
	b.WriteString(`The documentation is a read-only filesystem. ` + s.paths())
	if len(steps) > 0 {
		b.WriteString(" Start with " + list(steps) + ".")
	}
	if s.has("bash") {
		b.WriteString(" " + s.name("bash") + " runs ls, cat, grep, find, head, sed, wc, ... with pipes.")
	}
	if s.cfg.MaxOutput >= 0 {
		b.WriteString(" Answers stop at " + thousands(s.cfg.MaxOutput) + " characters, with a note on how to get the rest.")
	}
	b.WriteString(" Nothing can be written.")
	return b.String()
}

// list joins items as a sentence does: "a, b and c".
func list(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// grepSchema is the input schema of grep, with what the struct cannot
// say: the output modes, and the minimum of the numbers.
func grepSchema() *jsonschema.Schema {
	sc, err := jsonschema.For[grepIn](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: grep's input schema: %v", err))
	}
	sc.Properties["output_mode"].Enum = []any{modeFiles, modeContent, modeCount}
	sc.Properties["output_mode"].Default = []byte(`"` + modeFiles + `"`)
	zero := 0.0
	for _, name := range []string{"context", "head_limit"} {
		sc.Properties[name].Minimum = &zero
	}
	return sc
}
