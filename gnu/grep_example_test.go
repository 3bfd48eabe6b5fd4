package gnu_test

import (
	"context"
	"fmt"
	"os"
	"testing/fstest"

	"github.com/chromafs/chromafs/gnu"
)

// Grep in a working directory: relative operands print as given, as GNU
// grep prints them.
func ExampleGrep() {
	fsys := fstest.MapFS{
		"guides/intro.md":   {Data: []byte("# Intro\nInstall with make.\n")},
		"guides/setup.md":   {Data: []byte("Nothing to see.\n")},
		"reference/cli.txt": {Data: []byte("install: copies the binary\n")},
	}
	env := &gnu.Env{FS: fsys, Dir: "/guides", Stdout: os.Stdout, Stderr: os.Stdout}
	status := gnu.Grep(context.Background(), env, []string{"-rni", "install", ".", "../reference"})
	fmt.Println("status", status)
	// Output:
	// ./intro.md:2:Install with make.
	// ../reference/cli.txt:1:install: copies the binary
	// status 0
}
