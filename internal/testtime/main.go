// Command testtime lists the slowest packages and tests of a
// `go test -json` run, read from standard input or from the files named as
// arguments:
//
//	go test -race -count=1 -json ./... > /tmp/tt.json
//	go run ./internal/testtime -n 20 /tmp/tt.json
//
// A package's time is the elapsed time its test binary reported (its run,
// not its build); a test's time is its own elapsed time, subtests included.
// Given two files, it compares them package by package (before, after).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// timing is the elapsed seconds per package and per package/test.
type timing struct {
	pkg   map[string]float64
	test  map[string]float64
	total float64
}

func read(r io.Reader) (timing, error) {
	t := timing{pkg: map[string]float64{}, test: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		switch {
		case e.Test == "":
			t.pkg[e.Package] = e.Elapsed
			t.total += e.Elapsed
		case !strings.Contains(e.Test, "/"):
			t.test[e.Package+" "+e.Test] = e.Elapsed
		}
	}
	return t, sc.Err()
}

func top(m map[string]float64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}

func readFile(name string) (timing, error) {
	f, err := os.Open(name)
	if err != nil {
		return timing{}, err
	}
	defer f.Close()
	return read(f)
}

func main() {
	n := flag.Int("n", 25, "how many tests to list")
	flag.Parse()
	var runs []timing
	for _, name := range flag.Args() {
		t, err := readFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtime:", err)
			os.Exit(1)
		}
		runs = append(runs, t)
	}
	if len(runs) == 0 {
		t, err := read(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtime:", err)
			os.Exit(1)
		}
		runs = append(runs, t)
	}
	if len(runs) == 2 {
		compare(runs[0], runs[1], *n)
		return
	}
	t := runs[0]
	fmt.Printf("packages (sum of test binaries' run times %.1fs):\n", t.total)
	for _, k := range top(t.pkg, len(t.pkg)) {
		if t.pkg[k] >= 1 {
			fmt.Printf("%8.1fs  %s\n", t.pkg[k], k)
		}
	}
	fmt.Printf("slowest tests:\n")
	for _, k := range top(t.test, *n) {
		fmt.Printf("%8.1fs  %s\n", t.test[k], k)
	}
}

func compare(a, b timing, n int) {
	fmt.Printf("%9s %9s  package\n", "before", "after")
	for _, k := range top(a.pkg, len(a.pkg)) {
		if a.pkg[k] >= 1 || b.pkg[k] >= 1 {
			fmt.Printf("%8.1fs %8.1fs  %s\n", a.pkg[k], b.pkg[k], k)
		}
	}
	fmt.Printf("%8.1fs %8.1fs  sum\n", a.total, b.total)
	fmt.Printf("%9s %9s  test (slowest before)\n", "before", "after")
	for _, k := range top(a.test, n) {
		fmt.Printf("%8.1fs %8.1fs  %s\n", a.test[k], b.test[k], k)
	}
}
