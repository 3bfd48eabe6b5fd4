package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chromafs/chromafs/internal/loadtest"
)

// defaultLoadDuration is loadtest's run when neither --duration nor
// --count is given.
const defaultLoadDuration = 10 * time.Second

// loadtestCommand is `chromafs loadtest`: package loadtest against MCP
// endpoints.
func loadtestCommand() *cobra.Command {
	var (
		cfg                   loadtest.Config
		scriptPath, tokenPath string
		httpURLs              []string
		asJSON                bool
	)
	c := &cobra.Command{
		Use:   "loadtest [flags] URL... | --http URL",
		Short: "Load an MCP endpoint (or a fleet) with simulated agent sessions and report rates, latencies and errors",
		Long: `loadtest runs --sessions concurrent simulated agent sessions against the MCP
endpoints given as operands (http://HOST:PORT/mcp, as chromafs serve --mcp
serves them), as pgbench does for PostgreSQL. Each session initializes, lists
the tools and runs a script of tool calls, then closes; sessions go to the
URLs in turn (a fleet without a load balancer gets an even share each).
A URL that refuses a connection (its process is down) leaves the turn, as
behind a load balancer: its sessions run on the other URLs and are not
counted as failures (per URL: refused), and it is tried again after half a
second, then at doubling intervals up to 10 s. Only the requests in flight on
a process that dies fail.
The run lasts --duration (sessions running then finish) or --count sessions.

The built-in script asks the docs a question as an agent does: ls /, grep -i
of a word (a different word each session), read of a file it found, stat of
it, search when the server has that tool, and a bash grep -c. --script FILE
gives the calls instead, one JSON object a line, made in order by every
session ('#' lines and blank lines are skipped):

  {"tool":"ls","args":{"path":"/"}}
  {"tool":"grep","args":{"pattern":"token","path":"/guides"}}
  {"tool":"read","args":{"path":"/index.md","limit":40}}

--http URL (repeatable) adds a chromafs serve --http server (its root, e.g.
http://127.0.0.1:8080/), taking its turn with the MCP URLs: its sessions GET
the root's listing, go down a directory at a time until one lists files,
and GET a file whole and its first KiB (reported as GET dir, GET file, GET
range).

--tokens FILE holds bearer tokens, one a line, one per simulated user:
session n sends token n (in turn) as Authorization: Bearer. Without it the
sessions are anonymous.

Before the run, loadtest connects to each URL once and stops with status 2
when that cannot work: nothing listening, 401 (with the WWW-Authenticate
challenge it got), 404, or a script tool the server does not list. A 429 or
503 there is not fatal: the run counts them.

It prints sessions/s (sessions completed), calls/s (tool calls made),
latency percentiles (p50, p90, p99, max in milliseconds) for sessions,
initialize, tools/list and each tool, and errors by kind: http_429,
http_503, http_4xx, http_5xx, timeout (--timeout passed), tool_error (an
answer with isError), rpc_error (a JSON-RPC error answer) and transport,
with the first message of each. --json prints the same as one JSON object:
urls, script, concurrency, elapsed_seconds, interrupted, sessions and calls
({started, ok, failed}), sessions_per_second, calls_per_second,
session_latency, initialize, list_tools (each {count, p50_ms, p90_ms,
p99_ms, max_ms, mean_ms}), tools ({NAME: {calls, latency}}), errors ({KIND:
count}), error_examples ({KIND: message}), http_urls and per_url ([{url,
sessions, calls, refused}]).

Each of the --sessions workers starts its next session as soon as one ends,
failed or not (a closed loop: no pause for Retry-After), so an overloaded
server sees the same concurrency. Every request (connecting, each call,
closing) is bounded by --timeout.
Latencies are kept in HDR histograms: memory does not grow with the run.
Interrupting (Ctrl-C) ends the run early and prints what it measured.
Exit status: 0 when nothing failed, 1 when some session or call failed, 2
on a usage error or when the check before the run fails.

Examples:
  chromafs loadtest -c 16 --duration 30s http://127.0.0.1:8080/mcp
  chromafs loadtest -c 64 --count 1000 --tokens users.tokens --json \
      http://10.0.0.1:8080/mcp http://10.0.0.2:8080/mcp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(httpURLs) == 0 {
				return usageErrorf("missing operand (an MCP URL, e.g. http://127.0.0.1:8082/mcp, or --http URL)")
			}
			cfg.URLs, cfg.HTTPURLs = args, httpURLs
			if cfg.Concurrency < 1 {
				return usageErrorf("--sessions must be at least 1, not %d", cfg.Concurrency)
			}
			if cfg.Count < 0 || cfg.Duration < 0 {
				return usageErrorf("--count and --duration cannot be negative")
			}
			if cfg.Timeout <= 0 {
				return usageErrorf("--timeout must be positive, not %v", cfg.Timeout)
			}
			if cfg.Count == 0 && cfg.Duration == 0 {
				cfg.Duration = defaultLoadDuration
			}
			stderr := cmd.ErrOrStderr()
			if scriptPath != "" {
				f, err := os.Open(scriptPath)
				if err != nil {
					fmt.Fprintf(stderr, "chromafs loadtest: --script: %v\n", err)
					return exitError{2}
				}
				cfg.Script, err = loadtest.ParseScript(filepath.Base(scriptPath), f)
				f.Close()
				if err != nil {
					fmt.Fprintf(stderr, "chromafs loadtest: --script: %v\n", err)
					return exitError{2}
				}
			}
			if tokenPath != "" {
				tokens, err := readTokens(tokenPath)
				if err != nil {
					fmt.Fprintf(stderr, "chromafs loadtest: --tokens: %v\n", err)
					return exitError{2}
				}
				cfg.Tokens = tokens
			}
			cfg.Version = shortVersion()
			ctx := cmd.Context()
			if err := loadtest.Check(ctx, cfg); err != nil {
				fmt.Fprintf(stderr, "chromafs loadtest: %v\n", err)
				return exitError{2}
			}
			sum, err := loadtest.Run(ctx, cfg)
			if err != nil {
				fmt.Fprintf(stderr, "chromafs loadtest: %v\n", err)
				return exitError{2}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				err = enc.Encode(sum)
			} else {
				err = sum.WriteText(out)
			}
			if err != nil {
				return err
			}
			if sum.Sessions.Failed > 0 || sum.Calls.Failed > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f := c.Flags()
	f.IntVarP(&cfg.Concurrency, "sessions", "c", 4, "sessions running at once (concurrency)")
	f.DurationVar(&cfg.Duration, "duration", 0, "start sessions for this long (default 10s when --count is not given)")
	f.IntVar(&cfg.Count, "count", 0, "run this many sessions in all, then stop")
	f.StringVar(&scriptPath, "script", "", "tool calls of each session in `FILE`, one JSON object a line (default: the built-in docs-question script)")
	f.StringVar(&tokenPath, "tokens", "", "bearer tokens in `FILE`, one a line, one per simulated user")
	f.StringArrayVar(&httpURLs, "http", nil, "also load the chromafs serve --http server at `URL` (its root; repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.DurationVar(&cfg.Timeout, "timeout", loadtest.DefaultTimeout, "deadline of each request (connecting, each call, closing)")
	f.BoolVar(&cfg.IgnoreRetryAfter, "ignore-retry-after", false, "start the next session at once after a 429 or 503 (by default a session waits as Retry-After asks, at most 1m)")
	return c
}

// readTokens reads a file of bearer tokens, one a line; blank lines and
// '#' lines are skipped.
func readTokens(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tokens []string
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		t = strings.TrimPrefix(t, "Bearer ")
		if strings.ContainsAny(t, " \t") {
			return nil, fmt.Errorf("%s:%d: a token holds white space (want one token a line)", path, line)
		}
		tokens = append(tokens, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: no token (want one token a line)", path)
	}
	return tokens, nil
}
