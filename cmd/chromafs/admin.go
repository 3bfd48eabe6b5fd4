package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/chromafs/chromafs/chromastore"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/validate"
)

func ingestCommand(g *globals) *cobra.Command {
	var (
		rulesPath  string
		maxChunk   int
		embedding  string
		plainTree  bool
		exclude    []string
		dryRun     bool
		noProgress bool
		pointers   string
		treeMax    int
		prune      bool
		recreate   bool
	)
	c := &cobra.Command{
		Use:   "ingest DIR",
		Short: "Write a docs folder into the collection (creating it if needed)",
		Long: `ingest writes every file under DIR into the collection: chunks cut at line
ends, and the path tree record with each page's size, modification time, hash
and access rules. Re-ingesting updates changed pages and deletes removed ones.

Access rules come from --rules FILE, one rule per line, the last match wins:

  **             public
  internal/**    private groups=staff,admins

Without --rules every page is public.

--pointers FILE registers lazy file pointers, pages whose content lives at a
URL and is fetched when read. FILE is a JSON array:

  [{"slug": "specs/openapi.json", "url": "https://example.com/openapi.json",
    "size": 123456, "sha256": "<hex>", "modTime": "2024-05-01T10:00:00Z",
    "contentType": "application/json"}]

slug and url are required. Pointers get access rules like files; a pointer
left out of a later run's manifest is removed.

--tree-max-bytes N writes a path tree larger than N bytes as a manifest record
plus shard records of at most N bytes each, which readers assemble
transparently. Chroma Cloud limits documents to 16384 bytes, so use
--tree-max-bytes 16384 there (--cloud-limits sets it).

--prune also deletes records that no page of the new tree owns: chunks of
pages removed by another writer or by a failed run, and tree shards no
manifest names. It reads every record id of the collection.

--embedding NAME embeds the chunks with NAME; without it, ingest uses the
function the collection was embedded with (hash for a new collection). When
NAME is not that function, every chunk is re-embedded, unchanged pages
included, and the collection records NAME for search. A function of another
dimension cannot share a Chroma collection with the old vectors: ingest
refuses, and --recreate deletes the collection and writes it again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if g.timeout > 0 && cmd.Flags().Changed("timeout") {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, g.timeout)
				defer cancel()
			}
			dir := args[0]
			if fi, err := os.Stat(dir); err != nil {
				return fmt.Errorf("ingest: %w", err)
			} else if !fi.IsDir() {
				return fmt.Errorf("ingest: %s is not a directory", dir)
			}
			opt := ingest.Options{
				Layout:     g.layout(),
				MaxChunk:   maxChunk,
				Compressed: !plainTree,
				Exclude:    exclude,
				DryRun:     dryRun,
				Prune:      prune,
			}
			// 0: the collection's own limit (16 KiB with --cloud-limits).
			opt.TreeMaxBytes = treeMax
			if pointers != "" {
				f, err := os.Open(pointers)
				if err != nil {
					return fmt.Errorf("ingest: %w", err)
				}
				ps, err := ingest.LoadPointers(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("ingest: %s: %w", pointers, err)
				}
				opt.Pointers = ps
			}
			if rulesPath != "" {
				rules, err := ingest.LoadRules(rulesPath)
				if err != nil {
					return err
				}
				opt.Rules = rules
			}
			if g.collection == "" {
				return fmt.Errorf("no collection: set --collection or CHROMAFS_COLLECTION")
			}
			plan, err := planEmbedding(ctx, g, embedding, recreate)
			if err != nil {
				return err
			}
			defer plan.close()
			stderr := cmd.ErrOrStderr()
			cfg := g.storeConfig(true)
			cfg.Embedding = plan.ef
			desc := "ingest"
			switch {
			case plan.recreate && dryRun:
				fmt.Fprintf(stderr, "would delete collection %q and write it again with %s\n", g.collection, plan.name)
				opt.Force = true
			case plan.recreate:
				fmt.Fprintf(stderr, "deleting collection %q to write it again with %s\n", g.collection, plan.name)
				if err := chromastore.DeleteCollection(ctx, cfg); err != nil && !errors.Is(err, chromastore.ErrNoCollection) {
					return fmt.Errorf("ingest: --recreate: %w", err)
				}
			case plan.reembed:
				verb := "re-embedding"
				if dryRun {
					verb = "would re-embed"
				}
				fmt.Fprintf(stderr, "%s every chunk with %s: collection %q was embedded with %s\n", verb, plan.name, g.collection, describe(plan.was))
				opt.Force = true
				desc = "re-embed"
			}
			store, err := chromastore.Open(ctx, cfg)
			if err != nil {
				return err
			}
			defer store.Close()
			if !noProgress && isTerminal(stderr) {
				var bar *progressbar.ProgressBar
				opt.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total,
							progressbar.OptionSetWriter(stderr),
							progressbar.OptionSetDescription(desc),
							progressbar.OptionShowCount(),
							progressbar.OptionClearOnFinish(),
							progressbar.OptionThrottle(100*time.Millisecond))
					}
					_ = bar.Set(done)
				}
			}
			rep, err := ingest.RunDir(ctx, store, dir, opt)
			if err != nil {
				return err
			}
			if !dryRun && store.WrittenWith() != plan.ef.Name() {
				// A re-embedded collection, or one whose function was not
				// recorded: record the function its chunks have now.
				if err := store.RecordEmbedding(ctx, plan.ef); err != nil {
					return fmt.Errorf("ingest: every chunk is embedded with %s, but recording it failed (run ingest again to record it): %w", plan.name, err)
				}
			}
			out := cmd.OutOrStdout()
			verb := "ingested"
			if dryRun {
				verb = "would ingest"
			}
			fmt.Fprintf(out, "%s %s into %s: %d added, %d updated, %d unchanged, %d removed pages; %d chunks written, %d records deleted\n",
				verb, dir, g.collection, rep.Added, rep.Updated, rep.Unchanged, rep.Removed, rep.Chunks, rep.Deleted)
			if rep.Pointers > 0 {
				fmt.Fprintf(out, "%d lazy pointers among the pages\n", rep.Pointers)
			}
			if rep.TreeShards > 0 {
				fmt.Fprintf(out, "path tree of %d bytes written in %d shards\n", rep.TreeBytes, rep.TreeShards)
			}
			if rep.Orphans > 0 {
				fmt.Fprintf(out, "%d orphan records pruned\n", rep.Orphans)
			}
			for _, s := range rep.Skipped {
				fmt.Fprintf(stderr, "skipped %s\n", s)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&rulesPath, "rules", "", "access rules file (globs to public/private and groups)")
	f.IntVar(&maxChunk, "max-chunk", 1024, "maximum chunk size in bytes (chunks are cut at line ends)")
	f.StringVar(&embedding, "embedding", "", fmt.Sprintf("embedding function, one of %v (default: the one the collection was embedded with, or hash, which needs no download, for a new one)", embeddingNames()))
	f.BoolVar(&recreate, "recreate", false, "delete the collection and write it again (to switch to an embedding function of another dimension)")
	f.BoolVar(&plainTree, "plain-tree", false, "write the path tree as plain JSON instead of gzip+base64")
	f.StringArrayVar(&exclude, "exclude", nil, "skip files matching this glob (repeatable; .git is always skipped)")
	f.BoolVar(&dryRun, "dry-run", false, "report what would change without writing")
	f.BoolVar(&noProgress, "no-progress", false, "do not show a progress bar")
	f.StringVar(&pointers, "pointers", "", "JSON manifest of lazy file pointers (slug, url, size, sha256, modTime, contentType)")
	f.IntVar(&treeMax, "tree-max-bytes", 0, "shard a path tree larger than this many bytes (0: never; 16384 for Chroma Cloud)")
	f.BoolVar(&prune, "prune", false, "also delete records no page owns (orphan chunks, stray tree shards)")
	return c
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func validateCommand(g *globals) *cobra.Command {
	var quiet, pointers bool
	c := &cobra.Command{
		Use:   "validate",
		Short: "Check a collection: tree vs chunks, gaps, duplicates, orphans, bad slugs",
		Long: `validate reads the whole collection and reports every problem: unsafe or
clashing slugs, pages with missing, duplicate or unindexed chunks, sizes and
hashes that disagree with the tree, orphan chunks, and entries without
isPublic. With --pointers it also fetches every lazy pointer and reports those
that are unreachable, answer other than 2xx, or whose size or sha256 differs
from the tree's (a pointer without a declared size is a warning). It exits 1
when it finds an error, 0 otherwise (warnings included). With -q it prints
only the errors, without warnings or the summary line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
			defer cancel()
			store, err := g.openStore(ctx, false)
			if err != nil {
				return err
			}
			defer store.Close()
			res, err := g.pointers.resolver()
			if err != nil {
				return err
			}
			rep, err := validate.Run(ctx, store, validate.Options{Layout: g.layout(), Separator: g.separatorValue(), CheckPointers: pointers, Resolver: res})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, f := range rep.Findings {
				if quiet && f.Severity == validate.Warning {
					continue
				}
				fmt.Fprintln(out, f)
			}
			if !quiet {
				fmt.Fprintf(out, "%s: %d pages, %d chunks, %d errors, %d warnings\n",
					g.collection, rep.Pages, rep.Chunks, rep.Count(validate.Error), rep.Count(validate.Warning))
			}
			if !rep.OK() {
				return exitError{1}
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "print errors only: no warnings, no summary (the exit status is the same)")
	c.Flags().BoolVar(&pointers, "pointers", false, "fetch every lazy pointer and check it is reachable and as declared")
	return c
}
