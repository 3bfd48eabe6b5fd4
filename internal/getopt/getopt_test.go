package getopt

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var spec = Spec{
	Short: "alw:T::1",
	Long: []Long{
		{Name: "all", Key: 'a'},
		{Name: "almost-all", Key: 'A'},
		{Name: "author", Key: 'u'},
		{Name: "width", HasArg: RequiredArgument, Key: 'w'},
		{Name: "tabsize", HasArg: OptionalArgument, Key: 'T'},
		{Name: "human-readable", Key: 'h'},
		{Name: "human", Key: 'h'}, // a synonym: --hum is not ambiguous
	},
}

// render prints a parse the way util-linux getopt(1) does: options with
// their values quoted, then "--" and the operands.
func render(opts []Option, operands []string) string {
	var b strings.Builder
	for _, o := range opts {
		b.WriteString(" " + o.Name)
		switch {
		case o.HasValue:
			b.WriteString(" '" + o.Arg + "'")
		case strings.HasPrefix(o.Name, "-") && (o.Key == 'T'):
			b.WriteString(" ''")
		}
	}
	b.WriteString(" --")
	for _, a := range operands {
		b.WriteString(" '" + a + "'")
	}
	return b.String()
}

var cases = []struct {
	args []string
	want string // render of the parse, or the error
}{
	{[]string{"-la", "x"}, " -l -a -- 'x'"},
	{[]string{"x", "-l", "y", "--", "-a"}, " -l -- 'x' 'y' '-a'"},
	{[]string{"-w80", "-w", "9", "--width=3", "--width", "4", "--wid=5"}, " -w '80' -w '9' --width '3' --width '4' --width '5' --"},
	{[]string{"-lw", "7"}, " -l -w '7' --"},
	{[]string{"-", "-a"}, " -a -- '-'"},
	{[]string{"-T", "x", "-T3", "--tabsize", "--tabsize=4"}, " -T '' -T '3' --tabsize '' --tabsize '4' -- 'x'"},
	{[]string{"--hum"}, " --human-readable --"},
	{[]string{"--almost", "--auth"}, " --almost-all --author --"},
	{[]string{"--al"}, "option '--al' is ambiguous; possibilities: '--all' '--almost-all'"},
	{[]string{"--a"}, "option '--a' is ambiguous; possibilities: '--all' '--almost-all' '--author'"},
	{[]string{"--bogus"}, "unrecognized option '--bogus'"},
	{[]string{"--bogus=1"}, "unrecognized option '--bogus=1'"},
	{[]string{"-z"}, "invalid option -- 'z'"},
	{[]string{"-l:"}, "invalid option -- ':'"},
	{[]string{"-w"}, "option requires an argument -- 'w'"},
	{[]string{"--width"}, "option '--width' requires an argument"},
	{[]string{"--all=1"}, "option '--all' doesn't allow an argument"},
	{[]string{"--al=1"}, "option '--al=1' is ambiguous; possibilities: '--all' '--almost-all'"},
}

func TestParse(t *testing.T) {
	for _, tc := range cases {
		opts, operands, err := spec.Parse(tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = render(opts, operands)
		}
		// render prints an optional option without value with ''; the
		// parse itself must report no value.
		for _, o := range opts {
			if o.Key == 'T' && !o.HasValue && o.Arg != "" {
				t.Errorf("%q: -T without value has Arg %q", tc.args, o.Arg)
			}
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

// TestAgainstUtilLinux compares each case with util-linux getopt(1), which
// is glibc's getopt_long: the same parse, or the same first error.
func TestAgainstUtilLinux(t *testing.T) {
	bin, err := exec.LookPath("getopt")
	if err != nil {
		t.Skip("util-linux getopt not installed")
	}
	var longs []string
	for _, l := range spec.Long {
		longs = append(longs, l.Name+[]string{"", ":", "::"}[l.HasArg])
	}
	for _, tc := range cases {
		if tc.args[0] == "--hum" {
			// util-linux gives every long option its own value, so it
			// has no synonyms: glibc's rule cannot be seen through it.
			continue
		}
		cmd := exec.Command(bin, append([]string{"-o", spec.Short, "-l", strings.Join(longs, ","), "--"}, tc.args...)...)
		cmd.Args[0] = "getopt"
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		want := strings.TrimSuffix(string(out), "\n")
		if e := stderr.String(); e != "" {
			want = strings.TrimPrefix(strings.SplitN(e, "\n", 2)[0], "getopt: ")
		}
		_, _, perr := spec.Parse(tc.args)
		if want != tc.want {
			t.Errorf("getopt(1) %q: %s\nthe table says %s (parse error %v)", tc.args, want, tc.want, perr)
		}
	}
}

func TestNoArgs(t *testing.T) {
	opts, operands, err := spec.Parse(nil)
	if err != nil || len(opts) != 0 || len(operands) != 0 {
		t.Fatalf("Parse(nil) = %v, %v, %v", opts, operands, err)
	}
	_, operands, _ = spec.Parse([]string{"a", "--", "--", "b"})
	if !slices.Equal(operands, []string{"a", "--", "b"}) {
		t.Fatalf("operands after -- = %q", operands)
	}
}

// TestWalk: Walk hands out options in order with the index of their
// argument, stops at fn's error before looking further, and reports a
// usage error only after the options before it were seen.
func TestWalk(t *testing.T) {
	var seen []string
	operands, err := spec.Walk([]string{"x", "-lw", "7", "--all", "y", "-a", "-z"}, func(o Option) error {
		seen = append(seen, fmt.Sprintf("%s@%d", o.Name, o.Index))
		return nil
	})
	want := []string{"-l@1", "-w@1", "--all@3", "-a@5"}
	if !slices.Equal(seen, want) || err == nil || err.Error() != "invalid option -- 'z'" || operands != nil {
		t.Errorf("Walk: saw %q, operands %q, err %v; want %q and invalid option -- 'z'", seen, operands, err, want)
	}
	stop := errors.New("stop")
	seen = nil
	_, err = spec.Walk([]string{"-la", "-z"}, func(o Option) error {
		seen = append(seen, o.Name)
		if o.Key == 'a' {
			return stop
		}
		return nil
	})
	if err != stop || !slices.Equal(seen, []string{"-l", "-a"}) {
		t.Errorf("Walk stopped by fn: saw %q, err %v", seen, err)
	}
}

// TestExact: an Exact option matches its full name only, and takes no
// part in the ambiguity of a prefix.
func TestExact(t *testing.T) {
	s := Spec{Long: []Long{
		{Name: "max-count", HasArg: RequiredArgument, Key: 'm'},
		{Name: "max-total", HasArg: RequiredArgument, Key: 1, Exact: true},
	}}
	for _, tc := range []struct {
		arg, want string
	}{
		{"--max=1", "--max-count"},
		{"--max-t=1", "unrecognized option '--max-t=1'"},
		{"--max-total=1", "--max-total"},
	} {
		opts, _, err := s.Parse([]string{tc.arg})
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = opts[0].Name
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %s; want %s", tc.arg, got, tc.want)
		}
	}
}
