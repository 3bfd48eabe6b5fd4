package shell_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/shell"
)

// TestChroma runs command lines over a collection in a real Chroma and
// over the same files in memory: the answers are the same, and a private
// page is invisible to a public session.
func TestChroma(t *testing.T) {
	ctx := context.Background()
	store := testbackend.Chroma(t)
	files := docs()
	files["private/secret.md"] = files["README.md"]
	rules, err := ingest.ParseRules(strings.NewReader("** public\nprivate/** private groups=staff\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, store, files, ingest.Options{Rules: rules, MaxChunk: 64}); err != nil {
		t.Fatal(err)
	}
	public, err := chromafs.New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	staff, err := chromafs.New(ctx, store, chromafs.WithGroups("staff"))
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"ls -R /",
		"cd guides && cat *.md | cat -n && pwd",
		"find / -name '*.md' | sort 2>/dev/null || find / -name '*.md'",
		"for f in /guides/*; do echo \"== $f\"; cat \"$f\"; done",
		"ls private; cat private/secret.md; cd private",
		"echo x > README.md; cat /odd/a..b.md",
		"ls guides | xargs -I{} cat guides/{}",
		"[ -f README.md ] && [ -d /odd ] && echo yes",
	}
	mem := docs()
	for _, line := range lines {
		want := run(t, shell.New(mem), line)
		got := run(t, shell.New(public), line)
		if got != want {
			t.Errorf("%s\nchroma: %+v\nmemory: %+v", line, got, want)
		}
	}
	check(t, shell.New(staff), "cat /private/secret.md", result{"# Docs\nwelcome\n", "", 0})
	check(t, shell.New(public), "ls /private; cd /private", result{"", "ls: cannot access '/private': No such file or directory\nbash: cd: /private: No such file or directory\n", 1})
}
