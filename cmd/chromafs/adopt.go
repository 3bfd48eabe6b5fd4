package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chromafs/chromafs/adopt"
	"github.com/chromafs/chromafs/ingest"
)

// adoptShown is how many pages that are not exact adopt lists without
// --verbose.
const adoptShown = 20

func adoptCommand(g *globals) *cobra.Command {
	var (
		dryRun, verbose, plainTree bool
		layoutName, rulesPath      string
		strip                      string
		treeMax                    int
		custom                     customLayout
	)
	c := &cobra.Command{
		Use:   "adopt",
		Short: "Make a filesystem of a collection that LangChain, LlamaIndex or another tool wrote",
		Long: `adopt reads a collection that another tool chunked and embedded, and writes
beside its chunks only what chromafs needs: the path tree (access from --rules)
and its compact index, with each page's size, hash, and how to put it together
from its chunks by id. It never changes, re-embeds or deletes a chunk. Run it
again after the other tool re-ingested: it updates the pages whose chunks
changed and drops the pages whose chunks are gone.

It recognises the layout from the chunks' metadata and says which:

  langchain.js   source, locFrom/locTo (LangChain.js, @langchain/community)
  langchain      source, start_index (LangChain for Python)
  llamaindex     file_path, _node_content (LlamaIndex, Python or TypeScript)
  chroma-docs    slug, chunk_id, line_no (Chroma's docs)
  chromafs       page_slug, chunk_index (chromafs's layout, other writers)

and refuses a collection with none, or a mix (choose one with --layout). A
pipeline of your own: --path-field names the page, and --order-field,
--start-field or --line-field place a chunk in it.

Writers trim whitespace at the ends of a chunk and repeat text between chunks.
adopt puts a page together from offsets, line numbers and the repeated text,
and marks each page: exact (every byte from the chunks), edges-assumed (no
leading whitespace and one final line break assumed), or inexact (whitespace
between two chunks that no chunk holds was guessed). validate and stat report
the marks. Page paths are the writer's file paths without their common
directory (or --strip-prefix), or a URL's path.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if g.timeout > 0 && cmd.Flags().Changed("timeout") {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, g.timeout)
				defer cancel()
			}
			if g.collection == "" {
				return fmt.Errorf("no collection: set --collection or CHROMAFS_COLLECTION")
			}
			opt := adopt.Options{StripPrefix: strip, TreeID: g.treeID}
			switch {
			case custom.set(cmd) && layoutName != "":
				return usageErrorf("--layout and --path-field (or the other fields of a layout of your own) do not go together")
			case custom.set(cmd):
				l, err := custom.layout(cmd)
				if err != nil {
					return err
				}
				opt.Layout = &l
			case layoutName != "":
				l, ok := adopt.LayoutNamed(layoutName)
				if !ok {
					return usageErrorf("unknown --layout %q: want one of %s", layoutName, layoutNames())
				}
				opt.Layout = &l
			}
			wopt := adopt.WriteOptions{TreeID: g.treeID, Compressed: !plainTree, TreeMaxBytes: treeMax, DryRun: dryRun}
			if rulesPath != "" {
				rules, err := ingest.LoadRules(rulesPath)
				if err != nil {
					return err
				}
				wopt.Rules = rules
			}
			store, err := g.openStore(ctx, false)
			if err != nil {
				return err
			}
			defer store.Close()
			out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			res, err := adopt.Read(ctx, store, opt)
			if err != nil {
				return err
			}
			printAdoptResult(out, res, verbose)
			for _, p := range res.Problems {
				fmt.Fprintf(stderr, "adopt: warning: %s\n", p)
			}
			if len(res.Pages) == 0 {
				fmt.Fprintf(stderr, "adopt: no page to adopt in collection %q\n", g.collection)
				return exitError{1}
			}
			rep, err := adopt.Write(ctx, store, res, wopt)
			if err != nil {
				return err
			}
			shards := ""
			if rep.TreeShards > 0 {
				shards = fmt.Sprintf(" in %d shards", rep.TreeShards)
			}
			fmt.Fprintf(out, "tree: %d pages: %d added, %d changed, %d removed, %d unchanged; %d bytes%s\n",
				len(res.Pages), len(rep.Added), len(rep.Changed), len(rep.Removed), len(rep.Unchanged), rep.TreeBytes, shards)
			if dryRun {
				fmt.Fprintln(out, "dry run: nothing written")
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "read the collection and report what adopt would write, writing nothing")
	f.BoolVarP(&verbose, "verbose", "v", false, "list every page with its mark, not only the first pages that are not exact")
	f.StringVar(&layoutName, "layout", "", "adopt this layout ("+layoutNames()+") and leave chunks of others out")
	f.StringVar(&rulesPath, "rules", "", "access rules file (as ingest's); without it a page keeps the access the previous tree gave it, and new pages are public")
	f.StringVar(&strip, "strip-prefix", "", "remove this directory from the start of every page path (default: the common directory of absolute paths)")
	f.BoolVar(&plainTree, "plain-tree", false, "write the tree as plain JSON instead of gzip+base64")
	f.IntVar(&treeMax, "tree-max-bytes", 0, "shard tree documents larger than this many bytes (0: no limit, or 16384 with --cloud-limits)")
	custom.flags(f)
	return c
}

func layoutNames() string {
	var names []string
	for _, l := range adopt.Layouts {
		names = append(names, l.Name)
	}
	return strings.Join(names, ", ")
}

// printAdoptResult prints what adopt found: the layout, the pages by
// mark, and the pages that are not exact (all of them with verbose).
func printAdoptResult(w io.Writer, res *adopt.Result, verbose bool) {
	chunks := 0
	for _, n := range res.Counts {
		chunks += n
	}
	if res.Counts[res.Layout.Name] > 0 {
		chunks = res.Counts[res.Layout.Name]
	}
	fmt.Fprintf(w, "layout: %s (%d chunks", res.Layout.Name, chunks)
	for name, n := range res.Counts {
		if name != res.Layout.Name {
			fmt.Fprintf(w, "; %d chunks of %s left out", n, name)
		}
	}
	if res.Other > 0 {
		fmt.Fprintf(w, "; %d records of no known layout left out, with keys %s", res.Other, strings.Join(res.OtherKeys, " "))
	}
	fmt.Fprintln(w, ")")
	ex, ed, in := res.Count()
	fmt.Fprintf(w, "pages: %d: %d exact, %d edges-assumed, %d inexact\n", len(res.Pages), ex, ed, in)
	shown := 0
	for _, p := range res.Pages {
		if !verbose && (p.Exactness == adopt.Exact || p.Exactness == adopt.EdgesAssumed) {
			continue
		}
		if !verbose && shown == adoptShown {
			fmt.Fprintf(w, "  ... %d more inexact pages (--verbose lists them all)\n", in-shown)
			break
		}
		shown++
		if p.Why == "" {
			fmt.Fprintf(w, "  %s: %s\n", p.Slug, p.Exactness)
		} else {
			fmt.Fprintf(w, "  %s: %s: %s\n", p.Slug, p.Exactness, p.Why)
		}
	}
}

// customLayout holds the flags of a layout of one's own.
type customLayout struct {
	pathFields           []string
	orderField           string
	startField, endField string
	unit                 string
	lineField            string
	lineBase             int
	trimmed, overlap     bool
	sep                  string
}

func (c *customLayout) flags(f *pflag.FlagSet) {
	f.StringSliceVar(&c.pathFields, "path-field", nil, "a layout of your own: the metadata field naming a chunk's page (a file path, URL or id); several, comma-separated, are tried in order")
	f.StringVar(&c.orderField, "order-field", "", "a layout of your own: the field holding a chunk's 0-based index in its page")
	f.StringVar(&c.startField, "start-field", "", "a layout of your own: the field holding a chunk's character offset in its page")
	f.StringVar(&c.endField, "end-field", "", "a layout of your own: the field holding the offset just past a chunk's last character")
	f.StringVar(&c.unit, "offset-unit", "codepoints", "unit of --start-field and --end-field: codepoints (Python), utf16 (JavaScript) or bytes")
	f.StringVar(&c.lineField, "line-field", "", "a layout of your own: the field holding the line of a chunk's first character")
	f.IntVar(&c.lineBase, "line-base", 1, "number of the first line in --line-field (1 or 0)")
	f.BoolVar(&c.trimmed, "trimmed", false, "a layout of your own: chunks had whitespace trimmed at both ends")
	f.BoolVar(&c.overlap, "overlap", false, "a layout of your own: consecutive chunks may repeat text")
	f.StringVar(&c.sep, "chunk-separator", "", `a layout of your own: what lies between chunks that neither overlap nor were trimmed, e.g. "\n"`)
}

// set reports whether any flag of a layout of one's own was given.
func (c *customLayout) set(cmd *cobra.Command) bool {
	for _, name := range []string{"path-field", "order-field", "start-field", "end-field", "offset-unit", "line-field", "line-base", "trimmed", "overlap", "chunk-separator"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

func (c *customLayout) layout(cmd *cobra.Command) (adopt.Layout, error) {
	if len(c.pathFields) == 0 {
		return adopt.Layout{}, usageErrorf("a layout of your own needs --path-field: the metadata field that names a chunk's page")
	}
	if c.lineBase != 0 && c.lineBase != 1 {
		return adopt.Layout{}, usageErrorf("--line-base %d: want 1 or 0", c.lineBase)
	}
	l := adopt.Layout{
		Name:       "custom",
		PathFields: c.pathFields,
		OrderField: c.orderField,
		StartField: c.startField,
		EndField:   c.endField,
		LineField:  c.lineField,
		LineBase:   c.lineBase,
		Rules:      adopt.Rules{Trimmed: c.trimmed, Overlap: c.overlap, Sep: unescapeSep(c.sep)},
	}
	if c.startField != "" || c.endField != "" {
		switch c.unit {
		case "codepoints":
			l.Rules.Unit = adopt.CodePoints
		case "utf16":
			l.Rules.Unit = adopt.UTF16
		case "bytes":
			l.Rules.Unit = adopt.Bytes
		default:
			return adopt.Layout{}, usageErrorf("--offset-unit %q: want codepoints, utf16 or bytes", c.unit)
		}
	} else if cmd.Flags().Changed("offset-unit") {
		return adopt.Layout{}, usageErrorf("--offset-unit needs --start-field")
	}
	return l, nil
}

// unescapeSep reads \n, \t and \\ in a separator given on the command
// line, as --separator does.
func unescapeSep(s string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s)
}
