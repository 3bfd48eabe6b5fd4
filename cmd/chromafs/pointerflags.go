package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs/pointer"
)

// pointerFlags holds the values of --pointer-allow and --pointer-timeout
// for one command line.
type pointerFlags struct {
	allow   []string
	fromEnv bool // allow holds CHROMAFS_POINTER_ALLOW; a flag replaces it
	timeout time.Duration
}

// addPointerFlags registers --pointer-allow (env CHROMAFS_POINTER_ALLOW)
// and --pointer-timeout (env CHROMAFS_POINTER_TIMEOUT) on pf and returns
// their values, from which resolver builds the HTTPResolver of every
// filesystem the command opens (ls, cat, grep, validate --pointers,
// serve). Environment values that do not parse are reported on stderr and
// left out (the default policy is the strictest).
func addPointerFlags(pf *pflag.FlagSet, stderr io.Writer) *pointerFlags {
	p := &pointerFlags{timeout: pointer.DefaultTimeout}
	if v := os.Getenv("CHROMAFS_POINTER_ALLOW"); v != "" {
		for _, s := range splitAllow(v) {
			if _, err := pointer.NewPolicy(s); err != nil {
				fmt.Fprintf(stderr, "chromafs: CHROMAFS_POINTER_ALLOW: %v; left out\n", err)
				continue
			}
			p.allow = append(p.allow, s)
		}
		p.fromEnv = true
	}
	if v := os.Getenv("CHROMAFS_POINTER_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err != nil {
			fmt.Fprintf(stderr, "chromafs: CHROMAFS_POINTER_TIMEOUT=%q is not a duration such as 30s; using %v\n", v, p.timeout)
		} else {
			p.timeout = d
		}
	}
	pf.Var((*allowValue)(p), "pointer-allow",
		"let lazy pointers be fetched from URL (a prefix such as https://specs.example.com/api/; once one is given, only URLs under one are fetched) "+
			"or from ADDR (an IP address, address:port or CIDR prefix such as 127.0.0.1:9000 or 10.0.0.0/8). Without it, pointers are fetched "+
			"from public addresses only: never loopback, private, link-local (cloud metadata) or other internal addresses. "+
			"Repeatable or comma-separated (env CHROMAFS_POINTER_ALLOW)")
	pf.Var((*timeoutValue)(p), "pointer-timeout",
		"deadline of each lazy pointer fetch; negative for none other than --timeout (env CHROMAFS_POINTER_TIMEOUT)")
	return p
}

// splitAllow splits a comma-separated list of allow entries.
func splitAllow(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// resolver returns the HTTPResolver that the flags describe. Every entry
// was checked when it was given, so it fails only on a programming error.
func (p *pointerFlags) resolver() (*pointer.HTTPResolver, error) {
	policy, err := pointer.NewPolicy(p.allow...)
	if err != nil {
		return nil, err
	}
	return &pointer.HTTPResolver{Policy: policy, Timeout: p.timeout}, nil
}

// allowValue is --pointer-allow: each use adds entries.
type allowValue pointerFlags

func (v *allowValue) String() string { return strings.Join(v.allow, ",") }
func (v *allowValue) Type() string   { return "URL|ADDR" }

func (v *allowValue) Set(s string) error {
	entries := splitAllow(s)
	if len(entries) == 0 {
		return fmt.Errorf("empty allow entry")
	}
	p := (*pointerFlags)(v)
	if p.fromEnv {
		p.allow, p.fromEnv = nil, false
	}
	allow := append(append([]string(nil), p.allow...), entries...)
	if _, err := pointer.NewPolicy(allow...); err != nil {
		return err
	}
	p.allow = allow
	return nil
}

// timeoutValue is --pointer-timeout.
type timeoutValue pointerFlags

func (v *timeoutValue) String() string { return v.timeout.String() }
func (v *timeoutValue) Type() string   { return "duration" }

func (v *timeoutValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s", s)
	}
	(*pointerFlags)(v).timeout = d
	return nil
}
