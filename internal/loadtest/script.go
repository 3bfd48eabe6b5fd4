package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A Call is one tool call of a script: the tool's name and its
// arguments.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
	// Line is the call's line in its script file (0 in the built-in
	// script), so that errors can name it.
	Line int `json:"-"`
}

// A Script gives each simulated session its tool calls.
type Script interface {
	// Name describes the script in reports ("built-in docs-question"
	// or the file's name).
	Name() string
	// Tools are the tools the script calls whatever the answers, which
	// a server must list (the built-in script calls search only where
	// it is listed); each with the line that names it first.
	Tools() []Call
	// Session returns the calls of session n (counted from 0) against a
	// server that lists tools: next is called with the text of the
	// previous call's answer ("" before the first) and returns false
	// when the session is done. Each session gets its own next, used
	// by one goroutine.
	Session(n int, tools []string) (next func(prev string) (Call, bool))
}

// ParseScript reads a script file: one JSON object a line,
// {"tool":"NAME","args":{...}}, where args is optional; blank lines and
// lines whose first non-blank character is # are skipped. Every session
// makes the calls in order. name names the file in errors, which give
// the line number: "calls.jsonl:3: unknown field "argz"".
func ParseScript(name string, r io.Reader) (Script, error) {
	var calls []Call
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var c Call
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (want {\"tool\":\"NAME\",\"args\":{...}} on one line)", name, line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line (want one call a line)", name, line)
		}
		if c.Tool == "" {
			return nil, fmt.Errorf("%s:%d: no \"tool\" (want {\"tool\":\"NAME\",\"args\":{...}})", name, line)
		}
		c.Line = line
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("%s: no calls (want one {\"tool\":\"NAME\",\"args\":{...}} a line)", name)
	}
	return fileScript{name: name, calls: calls}, nil
}

type fileScript struct {
	name  string
	calls []Call
}

func (s fileScript) Name() string { return s.name }

func (s fileScript) Tools() []Call {
	seen := map[string]bool{}
	var out []Call
	for _, c := range s.calls {
		if !seen[c.Tool] {
			seen[c.Tool] = true
			out = append(out, c)
		}
	}
	return out
}

func (s fileScript) Session(int, []string) func(string) (Call, bool) {
	i := 0
	return func(string) (Call, bool) {
		if i == len(s.calls) {
			return Call{}, false
		}
		i++
		return s.calls[i-1], true
	}
}

// Words are the words the built-in script asks about, one per session
// in turn.
var Words = []string{"token", "limit", "project", "key", "request", "error", "rate", "api"}

// DocsQuestion is the built-in script: a session answers a question
// about the docs as an agent does. With w the session's word (Words,
// in turn):
//
//	ls /
//	grep -i w /                       (files with matches)
//	glob **/*.md                      (only when grep found no file)
//	read FILE, 60 lines               (FILE: the first file found)
//	stat FILE
//	search "how do I use w"           (only when the server lists search)
//	bash "grep -ci w FILE | head -5"
//
// Tools are matched by name or by name and a suffix (bash_acme), as
// mcpserver's Config.NameSuffix serves them.
type DocsQuestion struct{}

// Name implements Script.
func (DocsQuestion) Name() string { return "built-in docs-question" }

// Tools implements Script: the tools every session calls.
func (DocsQuestion) Tools() []Call {
	var out []Call
	for _, t := range []string{"ls", "grep", "read", "stat", "bash"} {
		out = append(out, Call{Tool: t})
	}
	return out
}

// Session implements Script.
func (DocsQuestion) Session(n int, tools []string) func(string) (Call, bool) {
	word := Words[n%len(Words)]
	name := func(base string) string { return toolName(tools, base) }
	step := 0
	var file string
	return func(prev string) (Call, bool) {
		for {
			step++
			switch step {
			case 1:
				return Call{Tool: name("ls"), Args: map[string]any{"path": "/"}}, true
			case 2:
				return Call{Tool: name("grep"), Args: map[string]any{"pattern": word, "path": "/", "case_insensitive": true, "head_limit": 20}}, true
			case 3:
				if file = firstPath(prev); file != "" {
					continue
				}
				return Call{Tool: name("glob"), Args: map[string]any{"pattern": "**/*.md", "path": "/"}}, true
			case 4:
				if file == "" {
					file = firstPath(prev)
				}
				if file == "" {
					return Call{}, false // nothing to read: the docs are empty
				}
				return Call{Tool: name("read"), Args: map[string]any{"path": file, "limit": 60}}, true
			case 5:
				return Call{Tool: name("stat"), Args: map[string]any{"path": file}}, true
			case 6:
				if s := name("search"); s != "" && hasTool(tools, s) {
					return Call{Tool: s, Args: map[string]any{"query": "how do I use " + word}}, true
				}
				continue
			case 7:
				return Call{Tool: name("bash"), Args: map[string]any{"command": "grep -ci " + word + " " + shellQuote(file) + " | head -5"}}, true
			default:
				return Call{}, false
			}
		}
	}
}

// toolName is the name under which tools list base: base itself, or
// base_SUFFIX; base when none is listed.
func toolName(tools []string, base string) string {
	for _, t := range tools {
		if t == base {
			return t
		}
	}
	for _, t := range tools {
		if strings.HasPrefix(t, base+"_") {
			return t
		}
	}
	return base
}

func hasTool(tools []string, name string) bool {
	for _, t := range tools {
		if t == name {
			return true
		}
	}
	return false
}

// firstPath is the first line of a tool's answer that is an absolute
// path.
func firstPath(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "/") {
			return line
		}
	}
	return ""
}

// shellQuote quotes s for the bash tool.
func shellQuote(s string) string {
	var b bytes.Buffer
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", `'\''`))
	b.WriteByte('\'')
	return b.String()
}
