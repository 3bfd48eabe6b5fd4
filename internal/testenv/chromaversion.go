package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// EnvChromaVersion names the environment variable that selects the
// Chroma server testenv starts: "1.0" (or unset) for the pinned default,
// "1.3" for the newest server on npm. Any other value fails every test
// that asks for Chroma.
const EnvChromaVersion = "CHROMAFS_CHROMA_VERSION"

// The Chroma servers testenv can start, by [EnvChromaVersion].
const (
	// Chroma10 is chromadb 3.0.14 with the Rust bindings 1.0.5, in
	// internal/testenv/chroma: the default.
	Chroma10 = "1.0"
	// Chroma13 is chromadb 3.5.0 with the bindings 1.3.4, in
	// internal/testenv/chroma13. Its bindings need glibc 2.38: node runs
	// under the dynamic loader of Debian 13's libc6, extracted into
	// internal/testenv/chroma13/glibc by scripts/trixie-libc.sh.
	Chroma13 = "1.3"
)

// chromaVersions are the accepted values of [EnvChromaVersion].
var chromaVersions = []string{Chroma10, Chroma13}

// ChromaVersion returns the Chroma server version that [Chroma] and
// [NewChroma] start: [Chroma10] or [Chroma13], from [EnvChromaVersion].
// It returns an error for any other value. With CHROMA_URL or CHROMA_BIN
// set, the server is whatever they name and the version only labels it.
func ChromaVersion() (string, error) {
	v := os.Getenv(EnvChromaVersion)
	if v == "" {
		return Chroma10, nil
	}
	if !slices.Contains(chromaVersions, v) {
		return "", fmt.Errorf("testenv: %s=%q: want one of %q (unset means %s)", EnvChromaVersion, v, chromaVersions, Chroma10)
	}
	return v, nil
}

// chromaCommand returns how to run the selected Chroma server: the kind
// (whose args may gain a prefix) and the executable.
//
// CHROMA_BIN, when set, is run as it is, whatever the version. Otherwise
// Chroma 1.0 runs internal/testenv/chroma/node_modules/.bin/chroma, and
// Chroma 1.3 runs
//
//	GLIBC/ld-linux-x86-64.so.2 --library-path GLIBC NODE CLI run ...
//
// with GLIBC internal/testenv/chroma13/glibc/usr/lib/x86_64-linux-gnu,
// NODE the node executable from PATH (symbolic links resolved: the loader
// needs the ELF file itself) and CLI chromadb's dist/cli.mjs in
// internal/testenv/chroma13/node_modules.
func chromaCommand(k kind) (kind, string, error) {
	v, err := ChromaVersion()
	if err != nil {
		return k, "", err
	}
	if os.Getenv(k.envBin) != "" || v == Chroma10 {
		bin, err := findBin(k)
		return k, bin, err
	}
	root, err := RepoRoot()
	if err != nil {
		return k, "", err
	}
	const install = "run `make deps-chroma13` (npm ci --ignore-scripts in internal/testenv/chroma13, and scripts/trixie-libc.sh internal/testenv/chroma13/glibc)"
	dir := filepath.Join(root, "internal", "testenv", "chroma13")
	libdir := filepath.Join(dir, "glibc", "usr", "lib", "x86_64-linux-gnu")
	loader := filepath.Join(libdir, "ld-linux-x86-64.so.2")
	cli := filepath.Join(dir, "node_modules", "chromadb", "dist", "cli.mjs")
	if !isExecutable(loader) {
		return k, "", &missingError{fmt.Sprintf("testenv: %s=%s needs Debian 13's dynamic loader (no %s): %s (or set CHROMA_URL to use a running server)", EnvChromaVersion, v, loader, install)}
	}
	if _, err := os.Stat(cli); err != nil {
		return k, "", &missingError{fmt.Sprintf("testenv: Chroma %s is not installed (no %s): %s (or set CHROMA_URL to use a running server)", v, cli, install)}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return k, "", &missingError{"testenv: Chroma needs node in PATH (Node.js 20 or later)"}
	}
	if node, err = filepath.EvalSymlinks(node); err != nil {
		return k, "", fmt.Errorf("testenv: node: %w", err)
	}
	args := k.args
	k.args = func(dir string, port int) []string {
		return append([]string{"--library-path", libdir, node, cli}, args(dir, port)...)
	}
	k.install = install
	return k, loader, nil
}

// serverCommand returns the kind and executable of the server testenv
// starts for k.
func serverCommand(k kind) (kind, string, error) {
	if k.name == chromaKind.name {
		return chromaCommand(k)
	}
	bin, err := findBin(k)
	return k, bin, err
}
