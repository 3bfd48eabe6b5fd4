package mcpserver

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs/gnu"
)

// addTools adds the six tools to srv, and search when Config.Search is
// set.
func (s *server) addTools(srv *mcp.Server) {
	cut := cutNote(s.cfg.MaxOutput)
	mcp.AddTool(srv, tool("bash", "Run a command line", bashDescription()+cut("narrow the command (head, grep -m, a more specific path)")), s.bash)
	addTextTool(srv, tool("read", "Read a file", readDescription), s.read)
	addTextTool(srv, tool("ls", "List a directory", lsDescription), s.ls)
	addTextTool(srv, tool("glob", "Find files by name", globDescription), s.glob)
	grep := tool("grep", "Search file contents", grepDescription+cut("narrow the path, the glob or the pattern, or use head_limit"))
	grep.InputSchema = grepSchema()
	mcp.AddTool(srv, grep, s.grep)
	mcp.AddTool(srv, tool("stat", "Describe a file or directory", statDescription), s.stat)
	if s.cfg.Search != nil {
		addTextTool(srv, tool("search", "Search by meaning", searchDescription+cut("ask for fewer results (k) or a narrower path")), s.search)
	}
}

// tool is a read-only, idempotent tool of a closed world.
func tool(name, title, description string) *mcp.Tool {
	no := false
	return &mcp.Tool{
		Name:        name,
		Title:       title,
		Description: description,
		Annotations: &mcp.ToolAnnotations{
			Title:           title,
			ReadOnlyHint:    true,
			IdempotentHint:  true,
			DestructiveHint: &no,
			OpenWorldHint:   &no,
		},
	}
}

// cutNote returns the sentence of a description that says where answers
// are cut (none when they are not), with the tool's hint.
func cutNote(maxOutput int) func(hint string) string {
	return func(hint string) string {
		if maxOutput < 0 {
			return ""
		}
		return " Output beyond " + thousands(maxOutput) + " characters is cut and ends with a note: " + hint + "."
	}
}

// paths is the text every description shares about paths.
const paths = `Paths are absolute from "/", the root of the documentation; a relative path resolves against the working directory (initially "/"; bash's cd changes it).`

func bashDescription() string {
	names := gnu.Names()
	return `Run a bash command line over the documentation, read-only and in a sealed sandbox: pipelines, && || ;, quoting, globs, variables, $(...), for/while/if/case, cd and pwd. The working directory persists between calls of this session. ` + paths + `

Commands: ` + strings.Join(names, ", ") + `, xargs, bash -c and sh -c (a command line run in the same sandbox, as in find -exec sh -c '...' {} + or xargs sh -c), and bash's builtins (echo, printf, test, [, cd, pwd, read, ...), each with GNU's or bash's flags, output and exit status; find -exec, -execdir and -ok run any of them. grep -r and rg search the whole tree fast. Writes fail as on a read-only filesystem ("Read-only file system", status 1); there are no other programs, no network and no host files.

Returns standard output and standard error as they were written, then "[exit status N]" when N is not 0.`
}

const readDescription = `Read a file of the documentation. Lines are numbered as cat -n numbers them: the line number right-aligned in 6 columns, a tab, the line. ` + paths + `

Returns up to 2,000 lines from line 1 by default. For a long file, offset is the first line to return (1-based) and limit the number of lines; when lines remain, the answer ends with "(lines A-B of N; use offset=B+1 to continue)". Lines longer than 2,000 characters are cut with a marker. To find which lines matter first, use grep with output_mode=content.`

const lsDescription = `List a directory of the documentation: one entry a line, in name order; directories end with "/", files show their size in bytes. path defaults to the working directory; a file's path lists that file. ` + paths + ` For a whole subtree use glob with "**" or bash with find or tree.`

const globDescription = `Find files and directories whose path matches a glob pattern, relative to path (default: the working directory): * and ? match within one path component, ** matches any number of directories ("**/*.md", "guides/**/auth*"), {a,b} is either, [abc] one of. A pattern starting with "/" is matched from the root. Returns absolute paths in sorted order, one a line; directories end with "/". ` + paths

const grepDescription = `Search the contents of files with GNU grep's semantics (grep -r). pattern is an extended regular expression as in grep -E (| alternatives, ( ) groups, + ? {n,m}, [[:alpha:]], \b \w \s \< \>; no \d: use [0-9]), a Perl-compatible one with perl_regexp (grep -P: \d, (?<=...) (?=...) (?!...), \K, *?), or a literal string with fixed_strings. path is a file or a directory searched recursively (default: the working directory). ` + paths + `

glob limits the files searched: without "/" it matches file names at any depth ("*.md"), with "/" paths relative to path ("guides/**/*.mdx").

output_mode: files_with_matches (default) lists the files that match; content prints matching lines as path:line:text (line_numbers, default true, adds the line number; context adds that many lines before and after each match, as path-line-text, groups separated by --); count prints path:count for each file that matches. case_insensitive is grep -i. head_limit keeps the first N lines of the answer.`

const statDescription = `Describe a file or directory: its type, size in bytes, modification time, and the content type and content hash when the documentation records them; for a directory, its number of entries. ` + paths

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
