package main

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs/gnu"
)

// exitError carries a process exit status. Its message, if any, has
// already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// gnuCommands are the file commands of package gnu that the CLI wires,
// with their synopsis and summary.
var gnuCommands = []struct{ name, use, short string }{
	{"ls", "ls [OPTION]... [PATH]...", "List directory contents, as GNU ls does (try 'chromafs ls --help')"},
	{"cat", "cat [OPTION]... PATH...", "Print files, as GNU cat does (try 'chromafs cat --help')"},
	{"stat", "stat [OPTION]... PATH...", "Show what the tree records of files and directories (try 'chromafs stat --help')"},
	{"tree", "tree [-adfhirsU] [-L level] [--si] [--noreport] [PATH]...", "Print directory trees, as tree 2.1 does (try 'chromafs tree --help')"},
	{"find", "find [PATH...] [EXPRESSION]", "Find files and directories, as GNU find does (try 'chromafs find --help')"},
}

// gnuCommand wires the gnu command name: its arguments reach it
// untouched (it parses them GNU-style), except the global flags, which
// are taken out wherever they are before "--"; the collection is opened
// only once the arguments have parsed, so --help and usage errors need
// no server.
func gnuCommand(g *globals, name, use, short string) *cobra.Command {
	run, ok := gnu.Lookup(name)
	if !ok {
		panic("gnuCommand: gnu has no command " + name)
	}
	return &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			rest, err := takeGlobals(cmd, args)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
			defer cancel()
			env := &gnu.Env{
				Stdout:  cmd.OutOrStdout(),
				Stderr:  cmd.ErrOrStderr(),
				Dir:     "/",
				Prog:    "chromafs " + name,
				Version: shortVersion(),
				HelpFooter: "\nThe global flags (--chroma-url, --collection, --groups, ...) may come anywhere\n" +
					"before a \"--\"; 'chromafs help " + name + "' lists them.\n",
				Open: func(ctx context.Context) (fs.FS, error) {
					trace.phase("parse arguments")
					return g.openFS(ctx)
				},
			}
			if code := run(ctx, env, rest); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// takeGlobals moves the global flags out of the arguments of a command
// that parses its own, up to a "--", and applies them.
func takeGlobals(cmd *cobra.Command, args []string) (rest []string, err error) {
	flags := cmd.InheritedFlags()
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			return append(rest, args[i:]...), nil
		}
		next, ok, err := takeGlobal(flags, args, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			rest = append(rest, args[i])
			continue
		}
		i = next
	}
	return rest, nil
}

// takeGlobal applies args[i] if it is a global flag ("--name=value",
// "--name value", or "--name" alone for a boolean) and returns the index
// of the last argument it took; ok is false when args[i] is not a global
// flag. Its errors are usage errors.
func takeGlobal(flags *pflag.FlagSet, args []string, i int) (last int, ok bool, err error) {
	a := args[i]
	if !strings.HasPrefix(a, "--") || a == "--" {
		return i, false, nil
	}
	name, value, hasValue := strings.Cut(a[2:], "=")
	f := flags.Lookup(name)
	if f == nil || name == "help" {
		return i, false, nil
	}
	if !hasValue && f.NoOptDefVal != "" {
		// A boolean flag (--cloud-limits) takes no argument.
		value, hasValue = f.NoOptDefVal, true
	}
	if !hasValue {
		if i+1 >= len(args) {
			return i, false, usageErrorf("option '--%s' requires an argument", name)
		}
		i++
		value = args[i]
	}
	if err := flags.Set(name, value); err != nil {
		return i, false, usageErrorf("invalid argument '%s' for '--%s': %v", value, name, invalidCause(err))
	}
	return i, true, nil
}
