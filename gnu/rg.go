package gnu

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"unicode"

	"github.com/chromafs/chromafs/grepx"
	"github.com/chromafs/chromafs/internal/getopt"
	"github.com/chromafs/chromafs/regex"
	"github.com/gobwas/glob"
)

const (
	keyRgHidden = 'R'<<8 + iota
	keyRgNoHidden
	keyRgFiles
	keyRgIglob
	keyRgSort
	keyRgNoop
	keyRgNoopArg
	keyRgTypeList
)

var rgSpec = getopt.Spec{
	Short: "nNiSslcFwxve:g:t:T:m:A:B:C:oquHIj:V",
	Long: []getopt.Long{
		{Name: "line-number", Key: 'n'},
		{Name: "no-line-number", Key: 'N'},
		{Name: "ignore-case", Key: 'i'},
		{Name: "smart-case", Key: 'S'},
		{Name: "case-sensitive", Key: 's'},
		{Name: "files-with-matches", Key: 'l'},
		{Name: "count", Key: 'c'},
		{Name: "fixed-strings", Key: 'F'},
		{Name: "word-regexp", Key: 'w'},
		{Name: "line-regexp", Key: 'x'},
		{Name: "invert-match", Key: 'v'},
		{Name: "regexp", HasArg: getopt.RequiredArgument, Key: 'e'},
		{Name: "glob", HasArg: getopt.RequiredArgument, Key: 'g'},
		{Name: "iglob", HasArg: getopt.RequiredArgument, Key: keyRgIglob},
		{Name: "type", HasArg: getopt.RequiredArgument, Key: 't'},
		{Name: "type-not", HasArg: getopt.RequiredArgument, Key: 'T'},
		{Name: "type-list", Key: keyRgTypeList},
		{Name: "max-count", HasArg: getopt.RequiredArgument, Key: 'm'},
		{Name: "after-context", HasArg: getopt.RequiredArgument, Key: 'A'},
		{Name: "before-context", HasArg: getopt.RequiredArgument, Key: 'B'},
		{Name: "context", HasArg: getopt.RequiredArgument, Key: 'C'},
		{Name: "only-matching", Key: 'o'},
		{Name: "quiet", Key: 'q'},
		{Name: "unrestricted", Key: 'u'},
		{Name: "with-filename", Key: 'H'},
		{Name: "no-filename", Key: 'I'},
		{Name: "hidden", Key: keyRgHidden},
		{Name: "no-hidden", Key: keyRgNoHidden},
		{Name: "files", Key: keyRgFiles},
		{Name: "sort", HasArg: getopt.RequiredArgument, Key: keyRgSort},
		{Name: "sort-files", Key: keyRgNoop},
		{Name: "no-heading", Key: keyRgNoop},
		{Name: "no-ignore", Key: keyRgNoop},
		{Name: "no-messages", Key: keyRgNoop},
		{Name: "color", HasArg: getopt.RequiredArgument, Key: keyRgNoopArg},
		{Name: "threads", HasArg: getopt.RequiredArgument, Key: 'j'},
		{Name: "help", Key: keyHelp},
		{Name: "version", Key: 'V'},
	},
}

const rgHelp = `Usage: %s [OPTIONS] PATTERN [PATH ...]
       %[1]s [OPTIONS] -e PATTERN ... [PATH ...]
       %[1]s [OPTIONS] --files [PATH ...]
       %[1]s --type-list

ripgrep's output when it writes to a pipe, over the filesystem.

  -e, --regexp PATTERN        a pattern (Go RE2 syntax, close to Rust's); several allowed
  -F, --fixed-strings         patterns are literal strings
  -i, --ignore-case           case-insensitive search
  -S, --smart-case            case-insensitive unless a pattern has an uppercase letter
  -s, --case-sensitive        case-sensitive search (the default)
  -w, --word-regexp           match whole words
  -x, --line-regexp           match whole lines
  -v, --invert-match          select non-matching lines
  -n, --line-number           show line numbers
  -N, --no-line-number        do not show line numbers (the default)
  -H, --with-filename         show file names
  -I, --no-filename           do not show file names
  -o, --only-matching         print only the matched parts
  -c, --count                 print the number of matching lines per file
  -l, --files-with-matches    print only the names of files with a match
  -q, --quiet                 print nothing; exit 0 on the first match
  -m, --max-count NUM         stop a file after NUM matching lines
  -A, -B, -C NUM              lines of context after, before, around matches
  -g, --glob GLOB             include (or with !, exclude) files and directories
      --iglob GLOB            --glob, case-insensitive
  -t, --type TYPE             search only files of TYPE (see --type-list)
  -T, --type-not TYPE         do not search files of TYPE
      --hidden                search hidden files and directories
  -u, --unrestricted          -uu searches hidden files too
      --files                 print the files that would be searched
      --sort path             accepted: output is always sorted by path
`

// rgTypes are ripgrep 13's globs for the file types Rg knows (rg
// --type-list).
// (A map built on first use: every chromafs command links gnu.)
var rgTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"asciidoc": {"*.adoc", "*.asc", "*.asciidoc"},
		"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
		"config":   {"*.cfg", "*.conf", "*.config", "*.ini"},
		"cpp":      {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
		"csharp":   {"*.cs"},
		"css":      {"*.css", "*.scss"},
		"csv":      {"*.csv"},
		"diff":     {"*.diff", "*.patch"},
		"docker":   {"*Dockerfile*"},
		"go":       {"*.go"},
		"html":     {"*.ejs", "*.htm", "*.html"},
		"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":       {"*.js", "*.jsx", "*.vue"},
		"json":     {"*.json", "composer.lock"},
		"jsonl":    {"*.jsonl"},
		"kotlin":   {"*.kt", "*.kts"},
		"log":      {"*.log"},
		"lua":      {"*.lua"},
		"make":     {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
		"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"md":       {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
		"perl":     {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
		"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"protobuf": {"*.proto"},
		"py":       {"*.py"},
		"readme":   {"*README", "README*"},
		"rst":      {"*.rst"},
		"ruby":     {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
		"rust":     {"*.rs"},
		"sh":       {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
		"sql":      {"*.psql", "*.sql"},
		"svg":      {"*.svg"},
		"swift":    {"*.swift"},
		"tex":      {"*.bib", "*.cls", "*.dtx", "*.ins", "*.ltx", "*.sty", "*.tex"},
		"toml":     {"*.toml", "Cargo.lock"},
		"ts":       {"*.ts", "*.tsx"},
		"txt":      {"*.txt"},
		"xml":      {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"},
		"yaml":     {"*.yaml", "*.yml"},
	}
})

// Rg is ripgrep 13's search as it behaves when its output is a pipe
// (no colour, no headings, no line numbers unless -n, "path:line"
// forms), over any fs.FS, with the flags -e -F -i -S -s -w -x -v -n -N
// -H -I -o -c -l -q -m -A -B -C -g --iglob -t -T --type-list --hidden
// -u --files and --sort path. Patterns are Go RE2 syntax (package
// regex's RE2), which is close to Rust's regex syntax; -w follows GNU
// grep's word rule. The search is grepx.Search, so a chromafs.FS keeps
// its accelerations.
//
// File selection follows ripgrep's rules without ignore files (a
// collection has none): below an operand, names starting with "." are
// skipped unless --hidden (or -uu) or a -g glob or -t type selects
// them; -g globs are gitignore-style (a glob without "/" matches a base
// name at any depth, "!" excludes, the last matching glob decides, and
// with any positive glob other files are excluded) and match paths
// relative to Env.Dir. Operands are always searched. Binary files (a NUL
// byte) found below an operand are skipped; a binary operand with a
// match prints ripgrep's "binary file matches" line.
//
// Output is sorted by path (ripgrep's --sort path order): ripgrep
// without it prints files in the order its threads finish. With no path
// operand, Rg searches standard input when Env.Stdin has data and the
// working directory otherwise (ripgrep searches standard input when it
// is a pipe or a file). Exit status: 0 if a line was selected, 1 if
// not, 2 on any error (even with matches, as ripgrep). Usage errors are
// reported in ripgrep's words where known, and other errors say what
// failed.
func Rg(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "rg")
	opts, operands, err := rgSpec.Parse(args)
	if err != nil {
		r.out.Flush()
		fmt.Fprintf(env.Stderr, "error: %s\n\nFor more information try --help\n", err)
		return 2
	}
	g := &rgRun{run: r}
	var pats []string
	havePat := false
	fold, smart := false, false
	unrestricted := 0
	for _, o := range opts {
		switch o.Key {
		case keyHelp:
			r.help(rgHelp)
			return 0
		case 'V':
			r.version()
			return 0
		case keyRgTypeList:
			names := make([]string, 0, len(rgTypes()))
			for n := range rgTypes() {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(r.out, "%s: %s\n", n, strings.Join(rgTypes()[n], ", "))
			}
			return r.finish(0)
		case 'n':
			g.numbers = true
		case 'N':
			g.numbers = false
		case 'i':
			fold, smart = true, false
		case 'S':
			smart, fold = true, false
		case 's':
			fold, smart = false, false
		case 'l':
			g.mode = grepx.FilesWithMatches
		case 'c':
			g.mode = grepx.Count
		case 'F':
			g.q.Syntax = regex.Fixed
		case 'w':
			g.q.Word = true
		case 'x':
			g.q.Line = true
		case 'v':
			g.q.Invert = true
		case 'e':
			pats = append(pats, o.Arg)
			havePat = true
		case 'g', keyRgIglob:
			g.addGlob(o.Arg, o.Key == keyRgIglob)
		case 't', 'T':
			globs, ok := rgTypes()[o.Arg]
			if !ok {
				r.out.Flush()
				fmt.Fprintf(env.Stderr, "unrecognized file type: %s\n", o.Arg)
				return 2
			}
			for _, gl := range globs {
				m := glob.MustCompile(gl)
				if o.Key == 't' {
					g.types = append(g.types, m)
				} else {
					g.notTypes = append(g.notTypes, m)
				}
			}
		case 'm', 'A', 'B', 'C':
			n, err := strconv.Atoi(o.Arg)
			if err != nil || n < 0 {
				r.out.Flush()
				fmt.Fprintf(env.Stderr, "error: Invalid value for '%s <NUM>': invalid digit found in string\n", o.Name)
				return 2
			}
			switch o.Key {
			case 'm':
				g.q.MaxCount = n
				if n == 0 {
					g.q.MaxCount = -1
				}
			case 'A':
				g.q.After = n
			case 'B':
				g.q.Before = n
			case 'C':
				g.q.After, g.q.Before = n, n
			}
		case 'o':
			g.q.OnlyMatching = true
		case 'q':
			g.quiet = true
		case 'u':
			unrestricted++
			if unrestricted >= 2 {
				g.hidden = true
			}
		case 'H':
			g.names = 1
		case 'I':
			g.names = -1
		case keyRgHidden:
			g.hidden = true
		case keyRgNoHidden:
			g.hidden = false
		case keyRgFiles:
			g.files = true
		case keyRgSort:
			if o.Arg != "path" && o.Arg != "none" {
				r.out.Flush()
				fmt.Fprintf(env.Stderr, "rg: --sort %s is not supported: output is always sorted by path\n", o.Arg)
				return 2
			}
		}
	}
	if !havePat && !g.files {
		if len(operands) == 0 {
			r.out.Flush()
			fmt.Fprintf(env.Stderr, "error: The following required arguments were not provided:\n    <PATTERN>\n\nUSAGE:\n    \n    rg [OPTIONS] PATTERN [PATH ...]\n    rg [OPTIONS] -e PATTERN ... [PATH ...]\n    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]\n    rg [OPTIONS] --files [PATH ...]\n    rg [OPTIONS] --type-list\n    command | rg [OPTIONS] PATTERN\n    rg [OPTIONS] --help\n    rg [OPTIONS] --version\n\nFor more information try --help\n")
			return 2
		}
		pats, operands = []string{operands[0]}, operands[1:]
	}
	if smart {
		fold = !strings.ContainsFunc(strings.Join(pats, ""), unicode.IsUpper)
	}
	if g.q.Syntax != regex.Fixed {
		g.q.Syntax = regex.RE2
	}
	// A pattern may hold several lines: each is a pattern.
	for _, p := range pats {
		g.q.Patterns = append(g.q.Patterns, strings.Split(p, "\n")...)
	}
	g.q.IgnoreCase = fold
	if _, err := regex.Compile(regex.Options{Patterns: g.q.Patterns, Syntax: g.q.Syntax, IgnoreCase: fold}); err != nil {
		var pe *regex.Error
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Msg
		}
		r.out.Flush()
		fmt.Fprintf(env.Stderr, "regex parse error:\n    %s\nerror: %s\n", strings.Join(g.q.Patterns, "|"), msg)
		return 2
	}
	if !r.open() {
		return r.finish(2)
	}
	if len(operands) == 0 && !g.files && env.Stdin != nil {
		br := bufio.NewReader(env.Stdin)
		if _, err := br.Peek(1); err == nil {
			return g.stdin(br)
		}
	}
	g.operands = operands
	if len(operands) == 0 {
		g.implicit = true
		g.operands = []string{"."}
	}
	for _, a := range g.operands {
		name, ok := r.resolve(a)
		if !ok {
			name = "\x00"
		}
		g.q.Paths = append(g.q.Paths, name)
	}
	if g.files {
		return g.listFiles()
	}
	return g.search()
}

type rgGlob struct {
	g        glob.Glob
	negate   bool
	dirOnly  bool
	anchored bool
	fold     bool
}

type rgRun struct {
	*run
	q                     grepx.Query
	mode                  grepx.Mode
	numbers, quiet, files bool
	hidden, implicit      bool
	names                 int // 1 with -H, -1 with -I
	globs                 []rgGlob
	whitelists            int
	types, notTypes       []glob.Glob
	operands              []string
	status                int
	matched               bool
	lastFile              string
	lastLine              int
	printedAny            bool
}

// addGlob compiles a -g glob with gitignore rules.
func (g *rgRun) addGlob(s string, fold bool) {
	gl := rgGlob{fold: fold}
	if strings.HasPrefix(s, "!") {
		gl.negate, s = true, s[1:]
	} else {
		g.whitelists++
	}
	if strings.HasSuffix(s, "/") && len(s) > 1 {
		gl.dirOnly, s = true, strings.TrimSuffix(s, "/")
	}
	if strings.HasPrefix(s, "**/") && !strings.Contains(s[3:], "/") {
		s = s[3:]
	}
	if strings.Contains(s, "/") {
		gl.anchored, s = true, strings.TrimPrefix(s, "/")
	}
	if fold {
		s = strings.ToLower(s)
	}
	m, err := glob.Compile(s, '/')
	if err != nil {
		m = glob.MustCompile(glob.QuoteMeta(s), '/')
	}
	gl.g = m
	g.globs = append(g.globs, gl)
}

// rel is name relative to the working directory, as ripgrep matches
// globs.
func (g *rgRun) rel(name string) string {
	dir := Resolve(g.env.Dir, ".")
	if dir == "." {
		return name
	}
	if rest, ok := strings.CutPrefix(name, dir+"/"); ok {
		return rest
	}
	return name
}

// skip applies ripgrep's selection to a name found below an operand:
// globs first, then types, then the hidden-file rule.
func (g *rgRun) skip(name string, isDir bool) bool {
	rel := g.rel(name)
	base := path.Base(name)
	for i := len(g.globs) - 1; i >= 0; i-- {
		gl := g.globs[i]
		if gl.dirOnly && !isDir {
			continue
		}
		subject := base
		if gl.anchored {
			subject = rel
		}
		if gl.fold {
			subject = strings.ToLower(subject)
		}
		if gl.g.Match(subject) {
			return gl.negate
		}
	}
	if g.whitelists > 0 && !isDir {
		return true
	}
	if !isDir {
		for _, t := range g.notTypes {
			if t.Match(base) {
				return true
			}
		}
		if len(g.types) > 0 {
			for _, t := range g.types {
				if t.Match(base) {
					return false
				}
			}
			return true
		}
	}
	return !g.hidden && strings.HasPrefix(base, ".")
}

// display is how ripgrep names a file found under operand i.
func (g *rgRun) display(i int, name string) string {
	root := g.q.Paths[i]
	if name == root {
		if g.implicit {
			return name
		}
		return g.operands[i]
	}
	rest := name
	if root != "." {
		rest = strings.TrimPrefix(name, root+"/")
	}
	if g.implicit {
		return rest
	}
	return join(g.operands[i], rest)
}

func (g *rgRun) withNames() bool {
	if g.names != 0 {
		return g.names > 0
	}
	if g.implicit || len(g.operands) > 1 {
		return true
	}
	fi, err := fs.Stat(g.fsys, g.q.Paths[0])
	return err == nil && fi.IsDir()
}

// fail reports an error about a path as ripgrep does.
func (g *rgRun) fail(disp string, err error) {
	g.out.Flush()
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(g.env.Stderr, "%s: IO error for operation on %s: No such file or directory (os error 2)\n", disp, disp)
	} else {
		fmt.Fprintf(g.env.Stderr, "%s: %s\n", disp, ErrText(err))
	}
	g.status = 2
}

func (g *rgRun) listFiles() int {
	found := false
	for i, root := range g.q.Paths {
		fi, err := fs.Stat(g.fsys, root)
		if err != nil {
			g.fail(g.operands[i], err)
			continue
		}
		if !fi.IsDir() {
			fmt.Fprintln(g.out, g.display(i, root))
			found = true
			continue
		}
		err = fs.WalkDir(g.fsys, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				g.fail(g.display(i, name), err)
				return nil
			}
			if name == root {
				return nil
			}
			if g.skip(name, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				fmt.Fprintln(g.out, g.display(i, name))
				found = true
			}
			return g.ctx.Err()
		})
		if err != nil {
			g.fail(g.operands[i], err)
		}
	}
	switch {
	case g.status != 0:
		return g.finish(g.status)
	case found:
		return g.finish(0)
	}
	return g.finish(1)
}

func (g *rgRun) search() int {
	g.q.Recursive = true
	g.q.Mode = g.mode
	if g.quiet {
		g.q.Mode = grepx.FilesWithMatches
	}
	g.q.Skip = g.skip
	names := g.withNames()
	errQuiet := errors.New("quiet")
	_, err := grepx.Search(g.ctx, g.fsys, g.q, func(f *grepx.File) error {
		disp := g.display(f.Operand, f.Path)
		if f.Err != nil {
			g.fail(disp, f.Err)
			return nil
		}
		explicit := f.Path == g.q.Paths[f.Operand]
		if !explicit && (f.Binary || g.mode != grepx.Lines && g.binary(f.Path)) {
			return nil
		}
		if g.mode != grepx.Count || f.Count > 0 {
			g.matched = true
		}
		if g.quiet {
			return errQuiet
		}
		g.printFile(f, disp, names)
		return nil
	})
	if err != nil && err != errQuiet {
		g.out.Flush()
		fmt.Fprintf(g.env.Stderr, "rg: %v\n", err)
		return g.finish(2)
	}
	switch {
	case g.status != 0:
		return g.finish(g.status)
	case g.matched:
		return g.finish(0)
	}
	return g.finish(1)
}

func (g *rgRun) printFile(f *grepx.File, disp string, names bool) {
	prefix := ""
	if names {
		prefix = disp
	}
	switch g.mode {
	case grepx.FilesWithMatches:
		fmt.Fprintln(g.out, disp)
		return
	case grepx.Count:
		if f.Count == 0 {
			return
		}
		if names {
			fmt.Fprintf(g.out, "%s:%d\n", disp, f.Count)
		} else {
			fmt.Fprintf(g.out, "%d\n", f.Count)
		}
		return
	}
	ctx := g.q.Before > 0 || g.q.After > 0
	for _, l := range f.Lines {
		if ctx && g.printedAny && (g.lastFile != f.Path || l.Number != g.lastLine+1) {
			g.out.WriteString("--\n")
		}
		g.lastFile, g.lastLine, g.printedAny = f.Path, l.Number, true
		sep := ":"
		if l.Context {
			sep = "-"
		}
		head := ""
		if prefix != "" {
			head = prefix + sep
		}
		if g.numbers {
			head += strconv.Itoa(l.Number) + sep
		}
		if g.q.OnlyMatching && !l.Context {
			for _, m := range l.Matches {
				g.out.WriteString(head)
				g.out.Write(l.Text[m[0]:m[1]])
				g.out.WriteByte('\n')
			}
			continue
		}
		if g.q.OnlyMatching {
			continue
		}
		g.out.WriteString(head)
		g.out.Write(l.Text)
		g.out.WriteByte('\n')
	}
	if f.Binary {
		off := 0
		if data, err := fs.ReadFile(g.fsys, f.Path); err == nil {
			off = strings.IndexByte(string(data), 0)
		}
		if prefix != "" {
			g.out.WriteString(prefix + ": ")
		}
		fmt.Fprintf(g.out, "binary file matches (found \"\\0\" byte around offset %d)\n", off)
	}
}

// binary reports whether a file holds a NUL byte: ripgrep skips such
// files below an operand. (In Lines mode grepx says so itself.)
func (g *rgRun) binary(name string) bool {
	data, err := fs.ReadFile(g.fsys, name)
	return err == nil && bytes.IndexByte(data, 0) >= 0
}

// stdin searches standard input, as "rg PATTERN" in a pipe.
func (g *rgRun) stdin(rd io.Reader) int {
	data, err := readHeld(rd)
	if err != nil {
		g.fail("<stdin>", err)
		return g.finish(2)
	}
	g.q.Paths = []string{"stdin"}
	g.operands = []string{"<stdin>"}
	g.fsys = fstest.MapFS{"stdin": {Data: data}}
	return g.search()
}
