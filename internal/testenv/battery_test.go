package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// raceGuards are the tests that keep under -race what the batteries
// left: they must exist and must not be batteries.
var raceGuards = []testFunc{{dir: "regex", name: "TestMatchersConcurrent"}}

// testFunc is a top-level test, example or fuzz function of the package
// in dir (relative to the module root, "." for the root).
type testFunc struct {
	dir, name string
}

func (f testFunc) String() string { return f.dir + " " + f.name }

// TestBattery checks that Battery skips a test under -race, unless
// CHROMAFS_RACE_BATTERIES is 1, and lets it run without -race.
func TestBattery(t *testing.T) {
	// Called through a variable: this test is not a battery, and
	// TestBatteriesInMakefile reads a direct call as one.
	battery := Battery
	ran := false
	t.Run("battery", func(t *testing.T) {
		battery(t)
		ran = true
	})
	if want := !Race || os.Getenv(RaceBatteries) == "1"; ran != want {
		t.Errorf("with Race %v and %s=%q, a battery ran: %v, want %v", Race, RaceBatteries, os.Getenv(RaceBatteries), ran, want)
	}
}

// TestBatteriesInMakefile keeps the Makefile's second `go test` pass in
// step with the tests that call [Battery]: each of them must be in a
// package of BATTERY_PKGS and be selected by BATTERY_RUN (else -race
// skips it and the second pass does not run it), no other test of those
// packages may be selected by BATTERY_RUN (it would run twice, once
// without -race), every package of BATTERY_PKGS must hold a battery, and
// the test and test-batteries targets must run that pass without -race.
// The test functions are found by parsing every _test.go file of the
// module; a call to Battery must be the first statement of a Test
// function, where this test can see it.
func TestBatteriesInMakefile(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	runPat := makeVar(t, mk, "BATTERY_RUN")
	pkgs := strings.Fields(makeVar(t, mk, "BATTERY_PKGS"))
	if strings.Contains(runPat, "/") {
		t.Fatalf("BATTERY_RUN %q has a '/': go test would read it as a pattern for subtests, which this test does not check", runPat)
	}
	run, err := regexp.Compile(runPat)
	if err != nil {
		t.Fatalf("BATTERY_RUN %q: %v", runPat, err)
	}
	for _, target := range []string{"test", "test-batteries"} {
		checkBatteryPass(t, mk, target)
	}

	batteries, tests := scanTests(t, root)
	if len(batteries) == 0 {
		t.Fatal("no test calls testenv.Battery: the scan found nothing, or the batteries are gone (then remove the Makefile's second pass)")
	}
	listed := map[string]bool{}
	for _, p := range pkgs {
		d := filepath.ToSlash(filepath.Clean(p))
		if !strings.HasPrefix(p, "./") || strings.Contains(p, "...") {
			t.Errorf("BATTERY_PKGS: %q is not a package path of the form ./dir", p)
		}
		listed[d] = true
	}
	isBattery := map[testFunc]bool{}
	has := map[string]bool{}
	for _, b := range batteries {
		isBattery[b] = true
		has[b.dir] = true
		if !listed[b.dir] {
			t.Errorf("%v calls testenv.Battery, but BATTERY_PKGS in the Makefile (%q) does not list ./%s: no pass runs it", b, pkgs, b.dir)
		}
		if !run.MatchString(b.name) {
			t.Errorf("%v calls testenv.Battery, but BATTERY_RUN in the Makefile (%q) does not select it: no pass runs it", b, runPat)
		}
	}
	for _, f := range tests {
		if listed[f.dir] && run.MatchString(f.name) && !isBattery[f] {
			t.Errorf("%v is selected by BATTERY_RUN (%q) but does not call testenv.Battery: it would run in both passes, once without -race", f, runPat)
		}
	}
	for d := range listed {
		if !has[d] {
			t.Errorf("BATTERY_PKGS lists ./%s, which has no test calling testenv.Battery", d)
		}
	}
	for _, g := range raceGuards {
		if isBattery[g] {
			t.Errorf("%v is the -race guard of what the batteries leave to -race; it must not call testenv.Battery", g)
		}
		if !slices.Contains(tests, g) {
			t.Errorf("%v, the -race guard of what the batteries leave to -race, is gone; update raceGuards and Battery's doc", g)
		}
	}
	t.Logf("%d batteries in %d packages; BATTERY_RUN %q over %q", len(batteries), len(has), runPat, pkgs)
}

// makeVar returns the value of the Makefile variable name, assigned once
// on a line of its own with := or =, with $$ read as $. Any other make
// syntax in it (references, continuation lines) fails the test, which
// reads the value as literal text.
func makeVar(t *testing.T, mk []byte, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + `[ \t]*:?=[ \t]*(.*)$`)
	m := re.FindAllSubmatch(mk, -1)
	if len(m) != 1 {
		t.Fatalf("the Makefile assigns %s %d times; want once, on a line of its own", name, len(m))
	}
	v := strings.TrimSpace(string(m[0][1]))
	if strings.HasSuffix(v, `\`) || strings.Contains(strings.ReplaceAll(v, "$$", ""), "$") || strings.Contains(v, "#") {
		t.Fatalf("the Makefile's %s = %q: write it as literal text on one line ($$ for $, no references or comments), which this test reads", name, v)
	}
	if v == "" {
		t.Fatalf("the Makefile's %s is empty", name)
	}
	return strings.ReplaceAll(v, "$$", "$")
}

// checkBatteryPass checks that the recipe of target in mk has a `go test`
// command, without -race, over $(BATTERY_PKGS) with -run '$(BATTERY_RUN)'.
func checkBatteryPass(t *testing.T, mk []byte, target string) {
	t.Helper()
	lines := strings.Split(string(mk), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, target+":") })
	if start < 0 {
		t.Errorf("the Makefile has no %s target", target)
		return
	}
	for _, l := range lines[start+1:] {
		if !strings.HasPrefix(l, "\t") {
			break
		}
		if strings.Contains(l, "$(BATTERY_PKGS)") && strings.Contains(l, "-run '$(BATTERY_RUN)'") && strings.Contains(l, "$(GO) test") {
			if strings.Contains(l, "-race") {
				t.Errorf("make %s runs the batteries with -race, which skips every one of them:\n%s", target, l)
			}
			return
		}
	}
	t.Errorf("make %s has no command `$(GO) test ... -run '$(BATTERY_RUN)' $(BATTERY_PKGS)`: the batteries, which skip under -race, would not run", target)
}

// scanTests parses every _test.go file under root and returns the test
// functions that call Battery, and every top-level Test, Example and
// Fuzz function (the names go test -run selects from). A call to Battery
// anywhere but as the first statement of a Test function fails the test.
func scanTests(t *testing.T, root string) (batteries, tests []testFunc) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		isCall := batteryCall(t, fset, f, dir)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			top := ok && fn.Recv == nil && isTestName(fn.Name.Name)
			if top {
				tests = append(tests, testFunc{dir, fn.Name.Name})
			}
			if isCall == nil {
				continue
			}
			var first ast.Stmt
			if top && strings.HasPrefix(fn.Name.Name, "Test") && fn.Body != nil && len(fn.Body.List) > 0 {
				first = fn.Body.List[0]
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isCall(call) {
					return true
				}
				if es, ok := first.(*ast.ExprStmt); ok && es.X == call {
					batteries = append(batteries, testFunc{dir, fn.Name.Name})
				} else {
					t.Errorf("%s: testenv.Battery must be the first statement of a Test function (TestBatteriesInMakefile looks for it there)", fset.Position(call.Pos()))
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return batteries, tests
}

// batteryCall returns a function that reports whether a call is a call to
// Battery in f, or nil when f cannot call it: f neither imports this
// package nor is in it.
func batteryCall(t *testing.T, fset *token.FileSet, f *ast.File, dir string) func(*ast.CallExpr) bool {
	if dir == "internal/testenv" && f.Name.Name == "testenv" {
		return func(c *ast.CallExpr) bool {
			id, ok := c.Fun.(*ast.Ident)
			return ok && id.Name == "Battery"
		}
	}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || path != ModulePath+"/internal/testenv" {
			continue
		}
		name := "testenv"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			t.Errorf("%s: a dot import of testenv hides its Battery calls from TestBatteriesInMakefile; import it by name", fset.Position(imp.Pos()))
		}
		return func(c *ast.CallExpr) bool {
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Battery" {
				return false
			}
			id, ok := sel.X.(*ast.Ident)
			return ok && id.Name == name
		}
	}
	return nil
}

// isTestName reports whether go test treats a function of this name in a
// _test.go file as a test, example or fuzz target.
func isTestName(name string) bool {
	for _, p := range []string{"Test", "Example", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || !isLower(rest[0])) {
			return name != "TestMain"
		}
	}
	return false
}

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
