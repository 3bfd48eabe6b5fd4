package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/cachepkg"
	"github.com/chromafs/chromafs/internal/gen"
	"github.com/chromafs/chromafs/internal/testenv"
	"github.com/chromafs/chromafs/mcpserver"
)

// soakAccess gives the soak's site four teams besides gen.Access's staff:
// of the other pages, 60% are public and the rest belong to one team each.
func soakAccess(slug string) (bool, []string) {
	if pub, groups := gen.Access(slug); !pub {
		return pub, groups
	}
	h := fnv.New32a()
	h.Write([]byte(slug))
	if k := h.Sum32() % 10; k >= 6 {
		return false, []string{"team-" + strconv.Itoa(int(k-6))}
	}
	return true, nil
}

// soakGroups are the soak's ten group sets.
var soakGroups = [][]string{
	nil, {gen.PrivateGroup}, {"team-0"}, {"team-1"}, {"team-2"}, {"team-3"},
	{"team-0", "team-1"}, {gen.PrivateGroup, "team-2"}, {"team-3", gen.PrivateGroup, "team-0"}, {"nobody"},
}

// soakView is what one group set may see, and the answers to expect.
type soakView struct {
	groups []string
	files  map[string]string   // visible pages
	hidden []string            // pages of the site it may not see
	dirs   map[string][]string // its directories' entries (dirs)
	slugs  []string            // visible pages, sorted
}

func newSoakView(pages map[string]string, groups []string) *soakView {
	v := &soakView{groups: groups, files: map[string]string{}}
	for slug, content := range pages {
		pub, gs := soakAccess(slug)
		if pub || slices.ContainsFunc(gs, func(g string) bool { return slices.Contains(groups, g) }) {
			v.files[slug] = content
			v.slugs = append(v.slugs, slug)
		} else {
			v.hidden = append(v.hidden, slug)
		}
	}
	slices.Sort(v.slugs)
	slices.Sort(v.hidden)
	v.dirs = dirs(v.files)
	return v
}

// soakLiterals are searched for by the soak's greps.
var soakLiterals = []string{"webhook signature", "cluster status", "access_token timeout", "deploy boolean", "zzz-none"}

// op is one tool call of the soak and a check of its answer against the
// source: it returns a description of what was wrong, or "".
func (v *soakView) op(ctx context.Context, cs *mcp.ClientSession, r *rand.Rand) (string, string) {
	call := func(name string, args map[string]any) (string, bool, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", false, err
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError, nil
	}
	expect := func(what, got string, isErr bool, err error, want string) string {
		switch {
		case err != nil:
			return fmt.Sprintf("%s: %v", what, err)
		case isErr:
			return fmt.Sprintf("%s: tool error %q", what, got)
		case got != want:
			return fmt.Sprintf("%s: got %.200q, want %.200q", what, got, want)
		}
		return ""
	}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	switch k := r.IntN(10); {
	case k < 3 && len(v.slugs) > 0: // read a visible page
		slug := pick(v.slugs)
		got, isErr, err := call("read", map[string]any{"path": "/" + slug})
		return "read", expect("read /"+slug, got, isErr, err, catN(v.files[slug]))
	case k < 4 && len(v.hidden) > 0: // read a page of another group
		slug := pick(v.hidden)
		got, isErr, err := call("read", map[string]any{"path": "/" + slug})
		if err != nil || !isErr || !strings.Contains(got, "/"+slug+": no such file or directory") {
			return "hidden", fmt.Sprintf("read hidden /%s: %q, %v, error %v", slug, got, err, isErr)
		}
		return "hidden", ""
	case k < 6: // ls a directory
		dirNames := make([]string, 0, len(v.dirs))
		for d := range v.dirs {
			dirNames = append(dirNames, d)
		}
		slices.Sort(dirNames)
		dir := pick(dirNames)
		var want strings.Builder
		for _, e := range v.dirs[dir] {
			if strings.HasSuffix(e, "/") {
				fmt.Fprintln(&want, e)
				continue
			}
			fmt.Fprintf(&want, "%s  %d bytes\n", e, len(v.files[path.Join(dir, e)]))
		}
		got, isErr, err := call("ls", map[string]any{"path": abs(dir)})
		return "ls", expect("ls "+abs(dir), got, isErr, err, want.String())
	case k < 8: // grep -rl through bash
		lit := pick(soakLiterals)
		var want strings.Builder
		for _, slug := range v.slugs {
			if strings.Contains(v.files[slug], lit) {
				fmt.Fprintf(&want, "/%s\n", slug)
			}
		}
		if want.Len() == 0 {
			want.WriteString("(no output)")
		}
		got, isErr, err := call("bash", map[string]any{"command": "grep -rl '" + lit + "' / | sort"})
		return "bash grep", expect("bash grep -rl "+lit, got, isErr, err, want.String())
	default: // the grep tool, count mode
		lit := pick(soakLiterals)
		want := map[string]int{}
		for _, slug := range v.slugs {
			for l := range strings.Lines(v.files[slug]) {
				if strings.Contains(l, lit) {
					want["/"+slug]++
				}
			}
		}
		got, isErr, err := call("grep", map[string]any{"pattern": lit, "path": "/", "fixed_strings": true, "output_mode": "count"})
		if err != nil || isErr {
			return "grep", fmt.Sprintf("grep %s: %q, %v", lit, got, err)
		}
		counts := map[string]int{}
		sc := bufio.NewScanner(strings.NewReader(got))
		for sc.Scan() {
			name, n, ok := strings.Cut(sc.Text(), ":")
			c, err := strconv.Atoi(n)
			if !ok || err != nil {
				if len(want) == 0 && !strings.HasPrefix(sc.Text(), "/") {
					continue // a note that nothing matched
				}
				return "grep", fmt.Sprintf("grep %s: line %q", lit, sc.Text())
			}
			if c > 0 {
				counts[name] = c
			}
		}
		if fmt.Sprint(counts) != fmt.Sprint(want) {
			return "grep", fmt.Sprintf("grep -c %s: got %v, want %v", lit, counts, want)
		}
		return "grep", ""
	}
}

// TestSoak runs concurrent MCP sessions (100 with CHROMAFS_SOAK set, and
// for 5 s under CI=true, as the issue asks; 25 in the brief local run; see
// testenv.CISoak) of 10 group sets
// (ten servers, one per group set, every session of them over its own
// chromafs.FS of one Shared and one page cache, as a server makes them)
// over 300 generated pages in a real Chroma, for CHROMAFS_SOAK
// (testenv.DefaultSoak by default):
// reads of visible and hidden pages, ls, grep through bash and the grep
// tool, each answer checked against the source. It requires zero errors
// and reports the calls made and the process's RSS.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test skipped with -short")
	}
	sessions, d := testenv.CISoak(t, 100, 5*time.Second)
	store, pages := genSite(t, 300, soakAccess)
	ctx := context.Background()
	sh := chromafs.NewShared(0)
	cache := cachepkg.NewMemory(0)
	servers := make([]*mcp.Server, len(soakGroups))
	views := make([]*soakView, len(soakGroups))
	for i, groups := range soakGroups {
		views[i] = newSoakView(pages, groups)
		servers[i] = mcpserver.New(mcpserver.Config{
			MaxOutput: -1,
			FS: func(ctx context.Context) (fs.FS, error) {
				return chromafs.New(ctx, store, chromafs.WithGroups(groups...), chromafs.WithShared(sh),
					chromafs.WithCache(cache), chromafs.WithTreeMaxAge(time.Second))
			},
		})
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1"}, nil)
	// Each session makes soakMinCalls calls however short the soak: with
	// the brief default, 100 sessions cost 500 calls of which the
	// duration adds few; 25 still run every group set at once.
	var (
		mu       sync.Mutex
		calls    = map[string]int{}
		failures []string
		wg       sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	for i := range sessions {
		g := i % len(soakGroups)
		ct, st := mcp.NewInMemoryTransports()
		ss, err := servers[g].Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer ss.Wait()
			defer cs.Close()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			// Every session makes soakMinCalls checked calls however late it
			// starts (connecting 100 sessions takes a while on a loaded
			// machine), then goes on until the deadline.
			for n := 0; n < soakMinCalls || time.Now().Before(deadline); n++ {
				kind, bad := views[g].op(ctx, cs, r)
				mu.Lock()
				calls[kind]++
				if bad != "" {
					failures = append(failures, fmt.Sprintf("session %d (groups %v): %s", i, soakGroups[g], bad))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for _, n := range calls {
		total += n
	}
	t.Logf("%d sessions of %d group sets, %v: %d tool calls %v, %d errors; RSS %s", sessions, len(soakGroups), d, total, calls, len(failures), rss())
	for i, f := range failures {
		if i == 10 {
			t.Errorf("... and %d more", len(failures)-10)
			break
		}
		t.Error(f)
	}
	for _, kind := range []string{"read", "hidden", "ls", "bash grep", "grep"} {
		if calls[kind] == 0 {
			t.Errorf("no %q call in %d calls: the mixed workload did not run", kind, total)
		}
	}
}

// soakMinCalls is the number of calls each session of TestSoak makes
// however short CHROMAFS_SOAK is.
const soakMinCalls = 5

// rss returns the process's resident set size (VmRSS of /proc/self/status),
// or "unknown".
func rss() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for l := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
