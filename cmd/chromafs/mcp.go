package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/mcpserver"
)

// mcpCommand is `chromafs mcp`: package mcpserver over standard input and
// output, for one user (the global --groups).
func mcpCommand(g *globals) *cobra.Command {
	var maxOutput int
	var embedding string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the collection to an AI agent over MCP on standard input and output",
		Long: `Serve the collection to an AI agent (Claude Code, Claude Desktop, Cursor, any
MCP client) over the Model Context Protocol on standard input and output, as
the user of --groups. The tools are bash, read, ls, glob, grep, stat and
search (by meaning with the collection's embedding function, by words where
it has none), all read-only; paths are absolute from the collection root,
and relative ones resolve against the session's working directory (bash's
cd changes it).

Standard output carries the protocol only; warnings go to standard error.
--timeout bounds each tool call and opening the collection; --max-output the
characters of each answer. When Chroma cannot be reached at start, the server
starts anyway and each tool call tries again; other errors (no collection, no
tree record) end the command with status 2. It exits 0 when the client closes
standard input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEmbeddingName("--embedding", embedding); err != nil {
				return err
			}
			return runMCP(cmd.Context(), g, maxOutput, embedding, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().IntVar(&maxOutput, "max-output", mcpserver.DefaultMaxOutput, "characters of each tool's answer before it is cut (-1: no limit)")
	c.Flags().StringVar(&embedding, "embedding", "", "embed the search tool's queries with `NAME` instead of the collection's recorded function: "+strings.Join(searchEmbeddings, ", "))
	return c
}

func runMCP(ctx context.Context, g *globals, maxOutput int, embedding string, stdin io.Reader, stdout, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	view := &lazyFS{open: func(ctx context.Context) (fs.FS, error) {
		ctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		return g.newFS(ctx)
	}}
	if _, err := view.get(ctx); err != nil {
		if !fscap.IsUnavailable(err) {
			fmt.Fprintf(stderr, "chromafs mcp: %v\n", err)
			return exitError{2}
		}
		log.Warn("chromafs mcp: the collection cannot be opened yet; each tool call tries again", "err", err)
	}
	srv := mcpserver.New(mcpserver.Config{
		FS:        view.get,
		MaxOutput: maxOutput,
		Timeout:   g.timeout,
		Version:   shortVersion(),
		Logger:    log,
		Search: &lazySearch{store: g.openedStore, override: embedding, report: func(reason error) {
			log.Warn("chromafs mcp: the search tool ranks pages by the query's words, as no embedding function is usable (--embedding NAME names the collection's)", "err", reason)
		}},
	})
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	err := srv.Run(ctx, t)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "chromafs mcp: %v\n", err)
		return exitError{2}
	}
	return nil
}

// lazyFS opens the filesystem at the first call that succeeds and keeps
// it.
type lazyFS struct {
	open func(ctx context.Context) (fs.FS, error)

	mu   sync.Mutex
	fsys fs.FS
}

func (l *lazyFS) get(ctx context.Context) (fs.FS, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fsys != nil {
		return l.fsys, nil
	}
	fsys, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	l.fsys = fsys
	return fsys, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
