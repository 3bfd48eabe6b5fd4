package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chromafs/chromafs/search"
	"github.com/chromafs/chromafs/shell"
)

// shCommand is `chromafs sh`: package shell over the selected collection,
// for one command line (-c) or a session of them (a prompt on a terminal,
// lines from standard input otherwise).
func shCommand(g *globals) *cobra.Command {
	var command, embedding string
	var maxOutput int
	c := &cobra.Command{
		Use:   "sh [-c COMMAND]",
		Short: "Run bash command lines over the collection, read-only and in process",
		Long: `Run bash command lines over the collection, read-only and in process: ls, cat,
grep, find, ... with pipes, globs, variables, loops and cd (the collection root
is /). No host file, program or environment variable is reachable; writes fail
as on a read-only filesystem.

With -c, run COMMAND and exit with its status. Without it, read command lines
from a prompt with line editing and history when standard input is a terminal
(Ctrl-D or Ctrl-C at the prompt leaves; Ctrl-C stops a running line), or from
standard input otherwise, keeping one session (working directory, page cache);
the exit status is the last line's. Each line has the --timeout deadline.
A session loads the visible pages (up to 64 MiB) in the background as it
starts, so that its greps soon read from memory only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkEmbeddingName("--embedding", embedding); err != nil {
				return err
			}
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			interactive := !cmd.Flags().Changed("command")
			base := cmd.Context()
			if interactive {
				// The first interrupt stops the running line, not the session.
				base = context.WithoutCancel(base)
			}
			openCtx, cancel := context.WithTimeout(base, g.timeout)
			// Reads are bound to the session's context, not to openCtx,
			// which ends here.
			fsys, err := g.newFS(openCtx)
			cancel()
			if err == nil {
				fsys = fsys.WithContext(base)
			}
			if err != nil {
				fmt.Fprintf(stderr, "chromafs sh: %v\n", err)
				return exitError{2}
			}
			srch := &lazySearch{store: g.openedStore, override: embedding}
			sess := shell.New(fsys, shell.WithTimeout(g.timeout), shell.WithMaxOutput(maxOutput),
				shell.WithCommand("search", search.Command(srch)))
			if !interactive {
				status, _ := sess.Run(base, command, stdout, stderr)
				if status != 0 {
					return exitError{status}
				}
				return nil
			}
			// A session loads the collection's visible pages in the
			// background (within chromafs.WithPreload's default budget),
			// so that its greps become local; it ends with the session.
			preload, stop := context.WithCancel(base)
			defer stop()
			go fsys.Preload(preload)
			status := runSession(base, sess, cmd.InOrStdin(), stdout, stderr)
			if status != 0 {
				return exitError{status}
			}
			return nil
		},
	}
	c.Flags().StringVarP(&command, "command", "c", "", "run `COMMAND` and exit with its status")
	c.Flags().IntVar(&maxOutput, "max-output", shell.DefaultMaxOutput, "characters of output per command line before it is cut (-1: no limit)")
	c.Flags().StringVar(&embedding, "embedding", "", "embed the search command's queries with `NAME` instead of the collection's recorded function")
	return c
}

// runSession runs the command lines read from in and returns the last
// one's status.
func runSession(ctx context.Context, sess *shell.Session, in io.Reader, stdout, stderr io.Writer) int {
	// SIGINT stops the running line; SIGTERM stops it and the session.
	var mu sync.Mutex
	var stopLine context.CancelFunc
	quit := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				mu.Lock()
				if stopLine != nil {
					stopLine()
				}
				mu.Unlock()
				if s == syscall.SIGTERM {
					close(quit)
					return
				}
			}
		}
	}()
	runLine := func(line string, out, errw io.Writer) int {
		lctx, cancel := context.WithCancel(ctx)
		mu.Lock()
		stopLine = cancel
		mu.Unlock()
		status, _ := sess.Run(lctx, line, out, errw)
		mu.Lock()
		stopLine = nil
		mu.Unlock()
		cancel()
		return status
	}
	quitting := func() bool {
		select {
		case <-quit:
			return true
		default:
			return false
		}
	}

	if f, ok := in.(*os.File); ok && isTerminal(f) && isTerminal(stdout) {
		return terminalSession(f, stdout, stderr, sess, runLine, quitting)
	}
	status := 0
	r := bufio.NewReader(in)
	var pending strings.Builder
	for !quitting() {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			break
		}
		pending.WriteString(line)
		if incomplete(pending.String()) && err == nil {
			continue
		}
		status = runLine(pending.String(), stdout, stderr)
		pending.Reset()
	}
	return status
}

// terminalSession reads command lines with x/term's line editor (history
// in memory), and gives the terminal back its normal mode while a line
// runs, so that output and Ctrl-C behave as usual.
func terminalSession(f *os.File, stdout, stderr io.Writer, sess *shell.Session, runLine func(string, io.Writer, io.Writer) int, quitting func() bool) int {
	fd := int(f.Fd())
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{f, stdout}, "")
	status := 0
	var pending strings.Builder
	for !quitting() {
		prompt := "chromafs:" + sess.Dir() + "$ "
		if pending.Len() > 0 {
			prompt = "> "
		}
		t.SetPrompt(prompt)
		old, err := term.MakeRaw(fd)
		if err != nil {
			fmt.Fprintf(stderr, "chromafs sh: %v\n", err)
			return 2
		}
		line, err := t.ReadLine()
		term.Restore(fd, old)
		if err != nil {
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(stdout)
			}
			break
		}
		pending.WriteString(line + "\n")
		if incomplete(pending.String()) {
			continue
		}
		status = runLine(pending.String(), stdout, stderr)
		pending.Reset()
	}
	return status
}

// incomplete reports whether src is the start of a command line that
// continues on the next line (an open quote, if, loop or trailing |).
func incomplete(src string) bool {
	_, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	var pe syntax.ParseError
	return errors.As(err, &pe) && pe.Incomplete
}
