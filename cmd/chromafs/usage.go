package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliUsageError is a mistake on the command line. It prints as GNU tools
// print theirs, naming the command, with a pointer to its help, and the
// status is 2:
//
//	chromafs ingest: unrecognized option '--bogus'
//	Try 'chromafs ingest --help' for more information.
type cliUsageError struct{ msg string }

func (e *cliUsageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &cliUsageError{msg: fmt.Sprintf(format, a...)}
}

// print writes the error for cmd, the command that was running, and
// returns the exit status.
func (e *cliUsageError) print(cmd *cobra.Command, stderr io.Writer) int {
	path := "chromafs"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", path, e.msg, path)
	return 2
}

// flagError turns pflag's errors into glibc getopt's words.
func flagError(_ *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		required *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		// pflag's answer to -h when no flag has that shorthand: only
		// --help asks for help.
		return usageErrorf("invalid option -- 'h'")
	case errors.As(err, &notExist):
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return usageErrorf("invalid option -- '%s'", notExist.GetSpecifiedName())
		}
		return usageErrorf("unrecognized option '--%s'", notExist.GetSpecifiedName())
	case errors.As(err, &required):
		if required.GetSpecifiedShortnames() != "" {
			return usageErrorf("option requires an argument -- '%s'", required.GetSpecifiedName())
		}
		return usageErrorf("option '--%s' requires an argument", required.GetSpecifiedName())
	case errors.As(err, &invalid):
		return usageErrorf("invalid argument '%s' for '--%s': %v", invalid.GetValue(), invalid.GetFlag().Name, invalidCause(invalid))
	case errors.As(err, &syntax):
		return usageErrorf("invalid option '%s'", syntax.GetSpecifiedFlag())
	}
	return &cliUsageError{msg: err.Error()}
}

// invalidCause is what the flag's value parser said, under pflag's
// wrapping.
func invalidCause(err error) error {
	for {
		var iv *pflag.InvalidValueError
		if !errors.As(err, &iv) || iv.Unwrap() == nil {
			return err
		}
		err = iv.Unwrap()
	}
}

// gnuArgs wraps the operand check of every command below root so that
// too few or too many operands print as GNU tools print them: "missing
// operand" or "extra operand 'x'" (the first one too many).
func gnuArgs(root *cobra.Command) {
	for _, c := range root.Commands() {
		gnuArgs(c)
		check := c.Args
		if check == nil {
			continue
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if check(cmd, args) == nil {
				return nil
			}
			if check(cmd, append(args[:len(args):len(args)], "x")) == nil {
				return usageErrorf("missing operand")
			}
			for k := range args {
				if check(cmd, args[:k]) == nil && check(cmd, args[:k+1]) != nil {
					return usageErrorf("extra operand '%s'", args[k])
				}
			}
			if len(args) == 0 {
				return usageErrorf("missing operand")
			}
			return usageErrorf("extra operand '%s'", args[0])
		}
	}
}

// buildInfo reads the module version and VCS stamp that the go command
// records in the binary.
func buildInfo() (version, revision, when string, modified bool) {
	bi, _ := debug.ReadBuildInfo()
	return stamp(bi)
}

// stamp returns the module version and VCS stamp of bi (nil: none).
func stamp(bi *debug.BuildInfo) (version, revision, when string, modified bool) {
	version = "(devel)"
	if bi == nil {
		return version, "", "", false
	}
	if bi.Main.Version != "" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return version, revision, when, modified
}

// longVersion is what --version and the version command print: the
// module version, the VCS revision with its time and whether the tree
// had uncommitted changes, and the Go version.
func longVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(bi)
}

// noStamp explains a build without a VCS stamp. The build info cannot
// tell why: go build records neither -buildvcs=false nor the absence of
// a checkout, and finds none in a git worktree (whose .git is a file).
const noStamp = `revision unknown: no VCS stamp in the build; go build leaves it out with
-buildvcs=false (on its command line or in GOFLAGS) and outside a git
checkout (a git worktree counts as outside)
`

// formatVersion is longVersion for the build info bi (nil: none).
func formatVersion(bi *debug.BuildInfo) string {
	version, revision, when, modified := stamp(bi)
	var b strings.Builder
	fmt.Fprintf(&b, "chromafs %s\n", version)
	switch {
	case revision == "" && version != "(devel)":
		// go install MODULE@VERSION builds from the module cache: the
		// version names the source.
		fmt.Fprintf(&b, "revision unknown: built from module version %s, not from a checkout\n", version)
	case revision == "":
		b.WriteString(noStamp)
	default:
		fmt.Fprintf(&b, "revision %s", revision)
		var notes []string
		if when != "" {
			notes = append(notes, when)
		}
		if modified {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteString("\n")
	}
	if bi != nil && bi.GoVersion != "" {
		fmt.Fprintf(&b, "built with %s\n", bi.GoVersion)
	}
	return b.String()
}

// shortVersion is the version the file commands' --version prints: the
// module version and the first 12 digits of the revision.
func shortVersion() string {
	version, revision, _, modified := buildInfo()
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if revision == "" || strings.Contains(version, revision) {
		// A pseudo-version (v0.0.0-20261124022516-cb247ce15132+dirty)
		// names the revision already.
		return version
	}
	if modified {
		revision += "+modified"
	}
	return version + " (" + revision + ")"
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and its VCS revision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), longVersion())
			return nil
		},
	}
}

// helpWidth is the width the help's flag tables wrap at.
const helpWidth = 80

// usage prints c's usage as cobra's default usage function does (this
// program's commands have no aliases, examples or groups), but with the
// flag tables wrapped at helpWidth columns. Cobra wraps them only through
// a usage template, and text/template's method calls by name would keep
// every method of the binary linked (TestMethodsPruned).
func usage(c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		fmt.Fprintf(&b, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n  %s [command]\n\nAvailable Commands:", c.CommandPath())
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\n\nFlags:\n%s", strings.TrimRight(c.LocalFlags().FlagUsagesWrapped(helpWidth), " \t\n"))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\n\nGlobal Flags:\n%s", strings.TrimRight(c.InheritedFlags().FlagUsagesWrapped(helpWidth), " \t\n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}
