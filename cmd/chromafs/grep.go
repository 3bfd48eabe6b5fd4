package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/gnu"
	"github.com/chromafs/chromafs/grepx"
)

// grepProg is the program name in grep's diagnostics, where GNU grep
// says "grep".
const grepProg = "chromafs grep"

// grepCommand is `chromafs grep`: gnu.Grep over the collection, after
// taking out the global flags that come first. -f files are local files;
// standard input is not searched.
func grepCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "grep [OPTION]... PATTERNS [PATH]...",
		Short: "Search files for patterns, as GNU grep 3.8 does (try 'chromafs grep --help')",
		// grep's options are GNU's, parsed by gnu.Grep.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			rest, err := takeLeadingGlobals(cmd, args)
			if err != nil {
				return err
			}
			signalExit.Store(true)
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
			defer cancel()
			stderr := cmd.ErrOrStderr()
			env := grepEnv(cmd.OutOrStdout(), stderr)
			env.Timeout = g.timeout
			var tf *traceFS
			// The collection is opened once the arguments have parsed
			// (once: -f files and standard input are read once), so
			// that usage errors, --help and --version need no server.
			env.Open = func(ctx context.Context) (fs.FS, error) {
				trace.phase("parse arguments (cobra and grep's)")
				cfs, err := g.openFS(ctx)
				if err != nil {
					fmt.Fprintf(stderr, "chromafs: %v\n", err)
					return nil, gnu.ErrReported
				}
				if trace == nil {
					return cfs, nil
				}
				tf = &traceFS{FS: cfs, t: trace}
				return tf, nil
			}
			if trace != nil {
				env.Trace = func(phase string, stats *grepx.Stats) {
					if phase == "match" && tf != nil {
						phase = fmt.Sprintf("match (%d files in scope, %d read, the first at %.2f ms; output buffered)",
							stats.Files, tf.reads.Load(), ms(time.Duration(tf.firstRead.Load())))
					}
					trace.phase(phase)
				}
			}
			if code := gnu.Grep(ctx, env, rest); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// grepEnv is the environment of chromafs grep: its program name, -f and
// --exclude-from files read from the local filesystem, and no standard
// input to search.
func grepEnv(stdout, stderr io.Writer) *gnu.Env {
	return &gnu.Env{
		Stdout:   stdout,
		Stderr:   stderr,
		Dir:      "/",
		Prog:     grepProg,
		ReadFile: osReadFile,
	}
}

// takeLeadingGlobals applies the global flags (--name=value or --name
// value) at the start of args, where cobra leaves them for a command that
// parses its own flags, and returns the rest: grep's own arguments.
func takeLeadingGlobals(cmd *cobra.Command, args []string) ([]string, error) {
	flags := cmd.InheritedFlags()
	for i := 0; i < len(args); i++ {
		last, ok, err := takeGlobal(flags, args, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			return args[i:], nil
		}
		i = last
	}
	return nil, nil
}

// osReadFile reads a -f or --exclude-from file from the local filesystem;
// "-" is standard input.
func osReadFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}
