package gnu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/chromafs/chromafs/internal/textio"
)

const jqUsage = `Usage:	%s [OPTIONS] FILTER [FILES...]

	jq is a tool for processing JSON inputs, applying the given filter to
	its JSON text inputs and producing the filter's results as JSON on
	standard output.

	Some of the options include:
	  -c               compact instead of pretty-printed output;
	  -n               use ` + "`null`" + ` as the single input value;
	  -e               set the exit status code based on the output;
	  -s               read (slurp) all inputs into an array; apply filter to it;
	  -r               output raw strings, not JSON texts;
	  -j               like -r, without a newline after each output;
	  -a               output non-ASCII characters as escapes;
	  -S               sort keys of objects on output;
	  -R               read raw strings, not JSON texts;
	  --tab            use tabs for indentation;
	  --indent n       use the given number of spaces (no more than 7) for indentation;
	  --arg a v        set variable $a to value <v>;
	  --argjson a v    set variable $a to JSON value <v>;
`

// jqOptions are the options of one jq run.
type jqOptions struct {
	raw, join, compact, nullInput, slurp, exitStatus, ascii, rawInput bool
	indent                                                            string
}

// Jq runs a jq program as jq 1.6 (Debian's) prints its results, on
// gojq's language: -r -j -c -n -s -e -S -a -R -M, --tab, --indent N,
// --arg NAME VALUE, --argjson NAME JSON and their long forms. Objects
// print with their keys sorted (always, as with -S); numbers print as
// jq 1.6 prints doubles. It is sealed: env and $ENV are Env.Environ,
// now is Env.Now, and no module can be imported. The status is jq's: 2
// for a file that cannot be read, 3 for a program that does not compile,
// 5 for a run-time error, and with -e 1 or 4 for a last output false or
// null, or none.
func Jq(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "jq")
	var (
		o        = jqOptions{indent: "  "}
		program  *string
		files    []string
		varNames []string
		varVals  []any
	)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			if a == "--" {
				for _, b := range args[i+1:] {
					if program == nil {
						program = &b
					} else {
						files = append(files, b)
					}
				}
				break
			}
			if program == nil {
				p := a
				program = &p
			} else {
				files = append(files, a)
			}
			continue
		}
		need := func(n int) bool {
			if i+n >= len(args) {
				r.warn("%s takes %s", a, map[int]string{1: "one parameter (e.g. --indent 2)", 2: "two parameters (e.g. --arg varname value)"}[n])
				return false
			}
			return true
		}
		switch a {
		case "--raw-output":
			o.raw = true
		case "--join-output":
			o.raw, o.join = true, true
		case "--compact-output":
			o.compact = true
		case "--null-input":
			o.nullInput = true
		case "--slurp":
			o.slurp = true
		case "--exit-status":
			o.exitStatus = true
		case "--sort-keys", "--monochrome-output", "--unbuffered":
		case "--ascii-output":
			o.ascii = true
		case "--raw-input":
			o.rawInput = true
		case "--tab":
			o.indent = "\t"
		case "--indent":
			if !need(1) {
				return r.finish(2)
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n < -1 {
				r.warn("Cannot indent more than 7 characters")
				return r.finish(2)
			}
			if n > 7 {
				r.warn("Cannot indent more than 7 characters")
				return r.finish(2)
			}
			o.indent = strings.Repeat(" ", max(n, 0))
			if n <= 0 {
				o.compact = true // jq prints --indent 0 compactly
			}
			i++
		case "--arg", "--argjson":
			if !need(2) {
				return r.finish(2)
			}
			var v any = args[i+2]
			if a == "--argjson" {
				dec := json.NewDecoder(strings.NewReader(args[i+2]))
				dec.UseNumber()
				var x any
				if err := dec.Decode(&x); err != nil {
					r.warn("Invalid JSON text passed to --argjson")
					r.out.Flush()
					fmt.Fprintf(r.env.Stderr, "Use %s --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n", r.prog)
					return r.finish(2)
				}
				v = jqNormalize(x)
			}
			varNames = append(varNames, "$"+args[i+1])
			varVals = append(varVals, v)
			i += 2
		case "--help":
			fmt.Fprintf(r.out, jqUsage, r.prog)
			return r.finish(0)
		case "--version":
			r.out.WriteString("jq-1.6\n")
			return r.finish(0)
		default:
			if strings.HasPrefix(a, "--") {
				r.warn("Unknown option: %s", a)
				r.out.Flush()
				fmt.Fprintf(r.env.Stderr, jqUsage, r.prog)
				return r.finish(2)
			}
			for _, c := range a[1:] {
				switch c {
				case 'r':
					o.raw = true
				case 'j':
					o.raw, o.join = true, true
				case 'c':
					o.compact = true
				case 'n':
					o.nullInput = true
				case 's':
					o.slurp = true
				case 'e':
					o.exitStatus = true
				case 'S', 'M', 'C':
				case 'a':
					o.ascii = true
				case 'R':
					o.rawInput = true
				case 'h':
					fmt.Fprintf(r.out, jqUsage, r.prog)
					return r.finish(0)
				default:
					r.warn("Unknown option: %s", a)
					r.out.Flush()
					fmt.Fprintf(r.env.Stderr, jqUsage, r.prog)
					return r.finish(2)
				}
			}
		}
	}
	if program == nil {
		// jq 1.6 runs "." when neither standard input nor output is a
		// terminal, as in a shell pipeline.
		p := "."
		program = &p
	}
	query, err := gojq.Parse(*program)
	if err != nil {
		r.warn("error: %s", err)
		r.out.Flush()
		fmt.Fprintf(r.env.Stderr, "%s: 1 compile error\n", r.prog)
		return r.finish(3)
	}
	// now is the session's clock, not the host's: a definition in the
	// program shadows the builtin.
	nowQ, err := gojq.Parse(fmt.Sprintf("def now: %s; .", strconv.FormatFloat(float64(r.now().UnixNano())/1e9, 'f', -1, 64)))
	if err == nil {
		query.FuncDefs = append(nowQ.FuncDefs, query.FuncDefs...)
	}
	if !r.open() {
		return r.finish(2)
	}
	in := &jqInputs{r: r, files: files, raw: o.rawInput}
	if len(files) == 0 {
		in.files = []string{"-"}
	}
	environ := append([]string(nil), r.env.Environ...)
	code, err := gojq.Compile(query,
		gojq.WithVariables(varNames),
		gojq.WithEnvironLoader(func() []string { return environ }),
		gojq.WithInputIter(in),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			if in.name == "" || in.name == "-" {
				return nil
			}
			return in.name
		}),
		gojq.WithFunction("debug", 0, 0, func(v any, _ []any) any {
			r.out.Flush()
			var b bytes.Buffer
			jqEncode(&b, []any{"DEBUG:", v}, jqOptions{compact: true})
			b.WriteByte('\n')
			r.env.Stderr.Write(b.Bytes())
			return v
		}),
		gojq.WithFunction("stderr", 0, 0, func(v any, _ []any) any {
			r.out.Flush()
			var b bytes.Buffer
			jqEncode(&b, v, jqOptions{compact: true})
			r.env.Stderr.Write(b.Bytes())
			return v
		}),
	)
	if err != nil {
		r.warn("error: %s", err)
		r.out.Flush()
		fmt.Fprintf(r.env.Stderr, "%s: 1 compile error\n", r.prog)
		return r.finish(3)
	}
	status := 0
	var last any
	outputs := 0
	runOne := func(v any) bool {
		iter := code.RunWithContext(r.ctx, v, varVals...)
		for {
			x, ok := iter.Next()
			if !ok {
				return true
			}
			if err, isErr := x.(error); isErr {
				var he *gojq.HaltError
				if errors.As(err, &he) {
					if hv := he.Value(); hv != nil {
						r.out.Flush()
						if s, isStr := hv.(string); isStr {
							io.WriteString(r.env.Stderr, s)
						} else {
							var b bytes.Buffer
							jqEncode(&b, hv, jqOptions{compact: true})
							b.WriteByte('\n')
							r.env.Stderr.Write(b.Bytes())
						}
					}
					status = he.ExitCode()
					return false
				}
				if r.stopped() {
					return false
				}
				r.warn("error (at %s): %s", in.position(), err)
				status = 5
				continue
			}
			outputs++
			last = x
			if s, isStr := x.(string); isStr && o.raw {
				r.out.WriteString(s)
			} else {
				jqEncode(r.out, x, o)
			}
			if !o.join {
				r.out.WriteByte('\n')
			}
			if r.stopped() {
				return false
			}
		}
	}
	switch {
	case o.nullInput:
		runOne(nil)
	case o.slurp:
		var all []any
		if o.rawInput {
			var sb strings.Builder
			for {
				s, ok := in.rawAll()
				if !ok {
					break
				}
				sb.WriteString(s)
			}
			runOne(sb.String())
		} else {
			for {
				v, ok := in.Next()
				if !ok {
					break
				}
				if _, isErr := v.(error); isErr {
					break
				}
				all = append(all, v)
			}
			if all == nil {
				all = []any{}
			}
			if in.failed == 0 {
				runOne(all)
			}
		}
	default:
		for !r.stopped() {
			v, ok := in.Next()
			if !ok {
				break
			}
			if _, isErr := v.(error); isErr {
				break
			}
			if !runOne(v) {
				break
			}
		}
	}
	if in.failed != 0 && status == 0 {
		status = in.failed
	}
	if o.exitStatus && status == 0 {
		switch {
		case outputs == 0:
			status = 4
		case last == nil || last == false:
			status = 1
		}
	}
	return r.finish(status)
}

// jqInputs reads the JSON values (or, with -R, the lines) of jq's
// files in turn; it is the iterator of input and inputs too.
type jqInputs struct {
	r      *run
	files  []string
	raw    bool
	name   string
	dec    *json.Decoder
	lines  *textio.LineReader
	closer io.Closer
	data   []byte // the current file, for the position of a parse error
	failed int    // the status a read error sets: 2
}

// open moves to the next file; false when there is none.
func (in *jqInputs) open() bool {
	for len(in.files) > 0 {
		a := in.files[0]
		in.files = in.files[1:]
		f, err := in.r.openInput(a)
		if err != nil {
			if !isReadErr(err) { // jq 1.6 says nothing of a directory
				in.r.warn("error: Could not open file %s: %s", a, errText(err))
			}
			in.failed = 2
			continue
		}
		in.name = a
		in.closer = f
		if in.raw {
			in.lines = newLineReader(f, '\n')
			return true
		}
		data, err := readHeld(f)
		if err != nil {
			in.r.warn("error: %s: %s", a, errText(err))
			in.failed = 2
			f.Close()
			in.closer = nil
			continue
		}
		in.data = data
		in.dec = json.NewDecoder(bytes.NewReader(data))
		in.dec.UseNumber()
		return true
	}
	return false
}

func (in *jqInputs) close() {
	if in.closer != nil {
		in.closer.Close()
	}
	in.closer, in.dec, in.lines = nil, nil, nil
}

// rawAll returns the rest of the current or next file, for -R -s.
func (in *jqInputs) rawAll() (string, bool) {
	if in.closer == nil && !in.open() {
		return "", false
	}
	var sb strings.Builder
	for {
		l, err := in.lines.Next()
		if err != nil {
			break
		}
		sb.Write(l)
	}
	in.close()
	return sb.String(), true
}

// Next returns the next input value, an error ending the inputs after
// a parse error, or false at the end.
func (in *jqInputs) Next() (any, bool) {
	for {
		if in.closer == nil && !in.open() {
			return nil, false
		}
		if in.raw {
			l, err := in.lines.Next()
			if err == nil {
				return strings.TrimSuffix(string(l), "\n"), true
			}
			if err != io.EOF {
				in.r.warn("error: %s: %s", in.name, errText(err))
				in.failed = 2
			}
			in.close()
			continue
		}
		var v any
		err := in.dec.Decode(&v)
		if err == nil {
			return jqNormalize(v), true
		}
		if err == io.EOF {
			in.close()
			continue
		}
		in.r.out.Flush()
		fmt.Fprintf(in.r.env.Stderr, "parse error: %s\n", in.parseError(err))
		in.failed = 4 // jq 1.6's status after a parse error
		in.close()
		in.files = nil
		return err, true
	}
}

// position is where jq's run-time errors say they are.
func (in *jqInputs) position() string {
	if in.name == "" || in.name == "-" {
		return "<stdin>:0"
	}
	return in.name + ":0"
}

// parseError is jq 1.6's message for a JSON text that does not parse:
// what is wrong (Go's words but for the end of input), then where.
func (in *jqInputs) parseError(err error) string {
	off := in.dec.InputOffset()
	what := err.Error()
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		what, off = "Unfinished JSON term at EOF", int64(len(in.data))
	case errors.As(err, &se):
		what, off = strings.TrimPrefix(se.Error(), "invalid character "), se.Offset
	}
	off = min(max(off, 0), int64(len(in.data)))
	line := 1 + bytes.Count(in.data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(in.data[:off], '\n')+1)
	return fmt.Sprintf("%s at line %d, column %d", what, line, col)
}

// jqNormalize turns decoded JSON into gojq's values: json.Number into
// an int or a float64.
func jqNormalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.Atoi(string(v)); err == nil {
			return i
		}
		if b, ok := new(big.Int).SetString(string(v), 10); ok {
			return b
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case []any:
		for i, x := range v {
			v[i] = jqNormalize(x)
		}
	case map[string]any:
		for k, x := range v {
			v[k] = jqNormalize(x)
		}
	}
	return v
}

// jqEncode writes v as jq 1.6 does: pretty with o.indent (compact with
// o.compact), keys sorted, numbers as jq prints doubles, strings with
// jq's escapes (non-ASCII as \uXXXX with o.ascii).
func jqEncode(w interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
}, v any, o jqOptions) {
	var enc func(v any, depth int)
	nl := func(depth int) {
		w.WriteByte('\n')
		for i := 0; i < depth; i++ {
			w.WriteString(o.indent)
		}
	}
	pretty := !o.compact
	enc = func(v any, depth int) {
		switch v := v.(type) {
		case nil:
			w.WriteString("null")
		case bool:
			if v {
				w.WriteString("true")
			} else {
				w.WriteString("false")
			}
		case int:
			w.WriteString(jqNumber(float64(v)))
		case *big.Int:
			f, _ := new(big.Float).SetInt(v).Float64()
			w.WriteString(jqNumber(f))
		case float64:
			w.WriteString(jqNumber(v))
		case string:
			jqString(w, v, o.ascii)
		case []any:
			if len(v) == 0 {
				w.WriteString("[]")
				return
			}
			w.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					w.WriteByte(',')
				}
				if pretty {
					nl(depth + 1)
				}
				enc(x, depth+1)
			}
			if pretty {
				nl(depth)
			}
			w.WriteByte(']')
		case map[string]any:
			if len(v) == 0 {
				w.WriteString("{}")
				return
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			w.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					w.WriteByte(',')
				}
				if pretty {
					nl(depth + 1)
				}
				jqString(w, k, o.ascii)
				w.WriteByte(':')
				if pretty {
					w.WriteByte(' ')
				}
				enc(v[k], depth+1)
			}
			if pretty {
				nl(depth)
			}
			w.WriteByte('}')
		default:
			b, _ := gojq.Marshal(v)
			w.Write(b)
		}
	}
	enc(v, 0)
}

// jqNumber formats a number as jq 1.6 does (its dtoa's shortest digits,
// printed plainly unless the exponent is below -4 or past 15 more than
// the digits, then as 1e+17 or 1e-05); NaN is null and the infinities
// the largest doubles.
func jqNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "null"
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1
	n := len(digits)
	switch {
	case decpt <= -4 || decpt > n+15:
		m := digits[:1]
		if n > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, x)
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= n:
		return sign + digits + strings.Repeat("0", decpt-n)
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

// jqString writes s as a JSON string with jq's escapes.
func jqString(w interface {
	io.ByteWriter
	io.StringWriter
}, s string, ascii bool) {
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				w.WriteString(`\"`)
			case '\\':
				w.WriteString(`\\`)
			case '\n':
				w.WriteString(`\n`)
			case '\t':
				w.WriteString(`\t`)
			case '\r':
				w.WriteString(`\r`)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			default:
				if c < 0x20 || c == 0x7f {
					w.WriteString(fmt.Sprintf(`\u%04x`, c))
				} else {
					w.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = utf8.RuneError
		}
		if ascii {
			if r >= 0x10000 {
				r -= 0x10000
				w.WriteString(fmt.Sprintf(`\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff)))
			} else {
				w.WriteString(fmt.Sprintf(`\u%04x`, r))
			}
		} else {
			w.WriteString(string(r))
		}
		i += n
	}
	w.WriteByte('"')
}
