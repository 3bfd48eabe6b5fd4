package chromafs_test

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Heavy modules that must stay out of the packages that do not use them:
// a program that imports the filesystem or an adapter must not link a
// Redis client, a Chroma client, afero or x/net's WebDAV server, and
// chroma-go (its embedding functions) stays in package chromaembed.
const (
	modRedis  = "github.com/redis/go-redis"
	modChroma = "github.com/amikos-tech/chroma-go"
	modAfero  = "github.com/spf13/afero"
	modXNet   = "golang.org/x/net"
	modOtter  = "github.com/maypok86/otter"
	modJose   = "github.com/go-jose/go-jose"
	modHdr    = "github.com/HdrHistogram/hdrhistogram-go"
)

// allowedXNet is the one x/net package that package pointer, and so the
// root package, may use: pointer/policy.go maps international host names
// to ASCII with idna.Lookup, as net/http does when it dials (the standard
// library's copy of it is not importable). It is a small package over
// x/text.
const allowedXNet = "golang.org/x/net/idna"

// TestDependencies runs `go list -deps` (the go command on PATH) on the
// module's packages and checks that each depends on none of the modules
// it must not link; cachepkg/rediscache must depend on go-redis, which
// proves that the check sees dependencies at all.
func TestDependencies(t *testing.T) {
	list := goList(t)
	adapters := list(t, "./adapters/...")
	if len(adapters) < 3 {
		t.Fatalf("go list ./adapters/... = %v; want the adapters", adapters)
	}
	type rule struct {
		pkg    string
		forbid []string // module paths
		allow  []string // packages under a forbidden module that are allowed
		need   string   // a module the package must depend on
	}
	all := []string{modRedis, modChroma, modAfero, modXNet}
	rules := []rule{
		{pkg: ".", forbid: all, allow: []string{allowedXNet}},
		{pkg: "./collection", forbid: all},
		{pkg: "./pointer", forbid: all, allow: []string{allowedXNet}},
		{pkg: "./memstore", forbid: all, allow: []string{allowedXNet}},
		// The engines behind the root package: pageload reads lazy
		// pointers (package pointer, hence idna).
		{pkg: "./internal/pageload", forbid: all, allow: []string{allowedXNet}},
		{pkg: "./internal/treeload", forbid: all},
		{pkg: "./internal/coarse", forbid: all},
		{pkg: "./grepx/...", forbid: all},
		{pkg: "./regex", forbid: all},
		{pkg: "./sed", forbid: all},
		{pkg: "./gnu", forbid: all},
		{pkg: "./shell", forbid: all},
		// search takes its embedding function as an interface; embedfn
		// links chroma-go's providers.
		{pkg: "./search", forbid: all, allow: []string{allowedXNet}},
		{pkg: "./cachepkg", forbid: all},
		// Token verification (the sign-in of `serve --sites`) links
		// go-jose and the standard library only.
		{pkg: "./internal/identity", forbid: append(slices.Clone(all), modOtter), need: modJose},
		// The load generator is a client of the MCP SDK: none of the
		// server's storage, and a histogram of its own.
		{pkg: "./internal/loadtest", forbid: append(slices.Clone(all), modOtter, modJose), need: modHdr},
		{pkg: "./cachepkg/rediscache", forbid: []string{modChroma, modAfero}, need: modRedis},
		// chroma-go's embedding stack (ONNX and tokenizer bindings,
		// purego, a struct validator, MIME sniffing) costs every process
		// that links it milliseconds of package initialisation: only
		// chromaembed, imported by the programs that embed with it, may.
		{pkg: "./chromastore", forbid: []string{modChroma, modRedis, modAfero}},
		{pkg: "./ingest", forbid: []string{modChroma, modRedis, modAfero}},
		{pkg: "./chromastore/chromaembed", forbid: []string{modRedis, modAfero}, need: modChroma},
		{pkg: "./embedfn", forbid: []string{modRedis, modAfero}, need: modChroma},
		// The chromafs command runs chroma-go's functions in a
		// chromafs-embed process (ingest --embedding default,
		// search's query embedding).
		{pkg: "./cmd/chromafs", forbid: []string{modChroma}},
		{pkg: "./cmd/chromafs-embed", forbid: []string{modRedis, modAfero, modXNet}, need: modChroma},
	}
	for _, a := range adapters {
		// aferofs is an afero.Fs and webdavfs a WebDAV server (x/net).
		rules = append(rules, rule{pkg: a, forbid: []string{modRedis, modChroma}})
	}
	in := func(p, mod string) bool { return p == mod || strings.HasPrefix(p, mod+"/") }
	for _, r := range rules {
		t.Run(strings.TrimPrefix(r.pkg, "github.com/chromafs/chromafs/"), func(t *testing.T) {
			deps := list(t, "-deps", "-f", "{{.ImportPath}}", r.pkg)
			found := false
			for _, d := range deps {
				found = found || (r.need != "" && in(d, r.need))
				if slices.Contains(r.allow, d) {
					continue
				}
				for _, m := range r.forbid {
					if in(d, m) {
						t.Errorf("%s depends on %s (module %s); run `go list -deps %s` and `go mod why -m %s` to see through which import", r.pkg, d, m, r.pkg, m)
					}
				}
			}
			if r.need != "" && !found {
				t.Errorf("%s does not depend on %s; go list -deps returned %d packages", r.pkg, r.need, len(deps))
			}
		})
	}
}

// goList returns a function that runs `go list` (the go command on PATH)
// with the given arguments and returns the fields of its output, failing
// the test that calls it when go list fails.
func goList(t *testing.T) func(t *testing.T, args ...string) []string {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go command on PATH: %v", err)
		}
		t.Skipf("no go command on PATH: %v", err)
	}
	return func(t *testing.T, args ...string) []string {
		t.Helper()
		cmd := exec.Command(goCmd, append([]string{"list"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return strings.Fields(string(out))
	}
}

// TestPackageDependencies checks which packages of this module link
// which: package fscap links the standard library only, so that any
// filesystem and any front end can use it; the front ends, which work over
// any fs.FS and find what chromafs offers through fscap's capabilities,
// link neither the root package nor tree.
func TestPackageDependencies(t *testing.T) {
	list := goList(t)
	// Packages outside the standard library that fscap depends on: only
	// itself.
	const module = "github.com/chromafs/chromafs"
	const fscap = module + "/fscap"
	deps := list(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./fscap")
	if !slices.Equal(deps, []string{fscap}) {
		t.Errorf("fscap depends on packages outside the standard library: %v; it must import the standard library only", slices.DeleteFunc(deps, func(d string) bool { return d == fscap }))
	}

	frontEnds := list(t, "./grepx", "./gnu", "./shell", "./search", "./mcpserver", "./adapters/...")
	if len(frontEnds) < 11 {
		t.Fatalf("go list found the front ends %v; want grepx, gnu, shell, search, mcpserver and the adapters", frontEnds)
	}
	for _, pkg := range frontEnds {
		t.Run(strings.TrimPrefix(pkg, module+"/"), func(t *testing.T) {
			// Each field: a package, then the packages it imports.
			for _, line := range list(t, "-deps", "-f", "{{.ImportPath}}{{range .Imports}},{{.}}{{end}}", pkg) {
				f := strings.Split(line, ",")
				for _, imp := range f[1:] {
					if imp == module || imp == module+"/tree" {
						t.Errorf("%s links %s: %s imports it; use package fscap's capabilities and Attributes instead", pkg, imp, f[0])
					}
				}
			}
		})
	}
}

// TestEngineDependencies: the engines that the root package delegates to
// (internal/pageload, internal/treeload, internal/coarse) link neither the root, which
// wraps them, nor any front end (adapters, gnu, shell, mcpserver, grepx,
// search): they are parts of the filesystem, below everything that uses
// it. The root must import each of them, which proves that the check sees
// the module's packages.
func TestEngineDependencies(t *testing.T) {
	list := goList(t)
	const module = "github.com/chromafs/chromafs"
	engines := []string{module + "/internal/pageload", module + "/internal/treeload", module + "/internal/coarse"}
	rootImports := list(t, "-f", "{{range .Imports}}{{.}} {{end}}", ".")
	frontEnds := []string{"adapters", "gnu", "shell", "mcpserver", "grepx", "search"}
	for _, pkg := range engines {
		t.Run(strings.TrimPrefix(pkg, module+"/"), func(t *testing.T) {
			if !slices.Contains(rootImports, pkg) {
				t.Fatalf("the root package does not import %s; its imports: %v", pkg, rootImports)
			}
			// Each field: a package, then the packages it imports.
			for _, line := range list(t, "-deps", "-f", "{{.ImportPath}}{{range .Imports}},{{.}}{{end}}", pkg) {
				f := strings.Split(line, ",")
				for _, imp := range f[1:] {
					bad := imp == module
					for _, fe := range frontEnds {
						bad = bad || imp == module+"/"+fe || strings.HasPrefix(imp, module+"/"+fe+"/")
					}
					if bad {
						t.Errorf("%s links %s: %s imports it; an engine must not depend on the root package or a front end", pkg, imp, f[0])
					}
				}
			}
		})
	}
}

// TestAferofsDependencies: the afero adapter, which works over any fs.FS,
// links no cache (otter), no Redis client and no HTTP stack of its own.
// afero itself links net/http (its HttpFs), so the check is that net/http
// is reached only through afero's packages.
func TestAferofsDependencies(t *testing.T) {
	list := goList(t)
	const pkg = "github.com/chromafs/chromafs/adapters/aferofs"
	imports := map[string][]string{}
	for _, line := range list(t, "-deps", "-f", "{{.ImportPath}}{{range .Imports}},{{.}}{{end}}", "./adapters/aferofs") {
		f := strings.Split(line, ",")
		imports[f[0]] = f[1:]
	}
	if _, ok := imports[pkg]; !ok {
		t.Fatalf("go list -deps ./adapters/aferofs did not list %s; it listed %d packages", pkg, len(imports))
	}
	for _, m := range []string{modOtter, modRedis} {
		for p := range imports {
			if p == m || strings.HasPrefix(p, m+"/") {
				t.Errorf("aferofs links %s (module %s); run `go mod why -m %s` to see through which import", p, m, m)
				break
			}
		}
	}
	// Walk the imports from aferofs without entering afero's packages.
	via := map[string]string{pkg: ""} // package → a package that imports it
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range imports[p] {
			if _, seen := via[imp]; seen || imp == modAfero || strings.HasPrefix(imp, modAfero+"/") {
				continue
			}
			via[imp] = p
			queue = append(queue, imp)
		}
	}
	if _, ok := imports["net/http"]; !ok {
		t.Errorf("aferofs does not link net/http even through afero; this test's premise (afero's HttpFs) no longer holds: forbid net/http outright")
	}
	if by, ok := via["net/http"]; ok {
		t.Errorf("aferofs links net/http other than through afero: %s imports it", by)
	}
}
