package shell_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromafs/chromafs/shell"
)

// agentDocs are the files of the differential test: names with spaces
// and non-ASCII letters, CRLF lines, an empty file, a file without a
// final newline, a hidden file.
func agentDocs() fstest.MapFS {
	files := map[string]string{
		"README.md":                   "# Docs\nwelcome to the docs\n",
		"empty.md":                    "",
		"notrail.md":                  "last line without newline",
		".hidden.md":                  "hidden\n",
		"guides/quickstart.md":        "# Quickstart\nCreate a webhook.\nThen test the webhook with a token.\nDone.\n",
		"guides/with space.md":        "spaced out\n",
		"guides/auth/api-keys.md":     "# API keys\nA key is a token.\n",
		"guides/auth/oauth.mdx":       "# OAuth\nExchange the code for a token.\nwebsite: example.com\n",
		"i18n/café.md":                "Straße ünïcödé\nnaïve café\n",
		"win/crlf.txt":                "line one\r\nline two\r\n",
		"reference/api/v1.md":         "GET /v1/items\nPOST /v1/items\n",
		"reference/api/v2.md":         "GET /v2/items\n",
		"reference/Makefile":          "all:\n\ttrue\n",
		"reference/api/deep/nest.txt": "deep\n",
	}
	m := fstest.MapFS{}
	for name, content := range files {
		m[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o444}
	}
	return m
}

// bashLines are agent-style command lines. They use relative paths only
// (real bash runs at the root of a directory that is not "/"), and sort
// the output of the commands whose order is the directory's for GNU (find,
// grep -r).
var bashLines = []string{
	"ls",
	"ls -a",
	"ls guides",
	"ls -1 guides/auth",
	"ls -R reference",
	"ls -d */",
	"ls nope; echo $?",
	"ls -d \"guides/with space.md\"",
	"echo *",
	"echo */*.md",
	"echo nomatch*.xyz",
	"echo guides/**/*.md",
	"cat README.md",
	"cat -n guides/quickstart.md",
	"cat notrail.md; echo",
	"cat empty.md | wc -c",
	"cat win/crlf.txt | wc -l",
	"grep two win/crlf.txt | cat -A",
	"cat \"guides/with space.md\"",
	"cat README.md nope 2>/dev/null; echo $?",
	"cat nope 2>&1 | head -1",
	"cat < README.md",
	"grep -n webhook guides/quickstart.md",
	"grep -rn webhook . | sort",
	"grep -rl token . | sort",
	"grep -c line win/crlf.txt",
	"grep -i STRASSE i18n/café.md; echo $?",
	"grep -i straße i18n/café.md",
	"grep -q nothing README.md; echo $?",
	"grep -r zzz .; echo $?",
	"egrep -n 'web(hook|site)' guides/quickstart.md guides/auth/oauth.mdx",
	"fgrep -c '.' README.md",
	"grep -c welcome <<< 'welcome here'",
	"find . -name '*.md' | sort",
	"find . -type d | sort",
	"find guides -maxdepth 1 | sort",
	"find nope; echo $?",
	"find . -name '*.txt' | sort | xargs cat",
	"find . -name '*.md' | sort | xargs wc -l",
	"head -2 guides/quickstart.md",
	"tail -1 guides/quickstart.md",
	"tail -n +2 guides/quickstart.md",
	"head -c 8 i18n/café.md; echo",
	"wc -l guides/quickstart.md README.md",
	"wc -w < README.md",
	"cat guides/*.md | wc -l",
	"ls guides | sort -r",
	"printf 'b\\na\\nb\\n' | sort | uniq -c",
	"cat README.md README.md | sort -u",
	"cut -d' ' -f1 README.md",
	"cat win/crlf.txt | cut -c1-4 | cat -A",
	"cd guides && ls && cd auth && ls",
	"cd nope; echo $?",
	"cd guides/quickstart.md",
	"cd guides; cd ..; ls",
	"for f in guides/*.md; do echo \"== $f\"; head -1 \"$f\"; done",
	"i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done",
	"if [ -f README.md ]; then echo file; fi; [ -d guides ] && echo dir",
	"test -e nope || echo missing",
	"x=$(head -1 README.md); echo \"[$x]\"",
	"echo `ls guides | wc -l`",
	"echo hi > out.txt; echo $?",
	"echo hi >> README.md",
	"echo x > nodir/x",
	"nosuchcmd --flag",
	"ls guides | xargs -n1 echo item",
	"ls reference/api | xargs -I{} echo 'v={}'",
	"echo 'single' \"double $((1+1))\"",
	"printf '%s\\n' guides/* | wc -l",
	"case README.md in *.md) echo md;; *) echo other;; esac",
	"true && false || echo fallback",
	"false; echo $?",
	"ls i18n",
	"tree guides",
	"tree -L 1 .",
	"ls .hidden.md && cat .hidden.md",
	"grep -l GET reference/api/*.md",
	"grep -h items reference/api/v1.md reference/api/v2.md | sort | uniq | wc -l",
	"grep -rn --include='*.mdx' token .",
	"ls -S reference/api/*.md",
	"rm README.md; echo $?",
	"rm -rf guides 2>&1 | sort; ls guides | wc -l",
	"mkdir newdir",
	"touch README.md new.md",
	"ls | tee list.txt | wc -l",
	"echo hi | tee /dev/null",
	"cp README.md copy.md",
	"mv notrail.md x.md",
	"sort -t/ -k2 <<< $'a/2\nb/1'",
	"printf '1\n1\n2\n' | uniq -d",
	"cut -f2 -d: reference/Makefile",
	"grep -o 'v[0-9]' reference/api/*.md | sort | uniq -c",
	"ls -R | grep -c md",
	"find . -name '*.md' -newer nope 2>&1 | head -1",
	"cat guides/auth/*.md* | grep -c token",
	"ls -r guides/auth; ls -t README.md empty.md | wc -l",
}

// TestBashDifferential runs each line in real bash 5.2 with GNU tools, at
// the root of a read-only bind mount of a copy of the files, and in the
// shell over the same files: stdout, stderr and the exit status are the
// same, except that bash -c's diagnostics say "bash: line 1: " where the
// shell says "bash: ".
func TestBashDifferential(t *testing.T) {
	if len(bashLines) < 40 {
		t.Fatalf("only %d lines", len(bashLines))
	}
	ci := os.Getenv("CI") == "true"
	bash := "/bin/bash"
	ver, err := exec.Command(bash, "-c", "echo $BASH_VERSION").Output()
	if err != nil || !strings.HasPrefix(string(ver), "5.2") {
		if ci {
			t.Fatalf("bash 5.2 is needed: %q, %v", ver, err)
		}
		t.Skipf("bash 5.2 is needed: %q, %v", ver, err)
	}
	fsys := agentDocs()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for name, f := range fsys {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := readOnlyMount(t, src, filepath.Join(dir, "ro"), ci)

	lineN := regexp.MustCompile(`(?m)^bash: line \d+: `)
	sess := shell.New(fsys)
	for _, line := range bashLines {
		cmd := exec.Command(bash, "-c", line)
		cmd.Args[0] = "bash"
		cmd.Dir = root
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/nonexistent", "TZ=UTC"}
		var bout, berr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &bout, &berr
		bstatus := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("%s: %v", line, err)
			}
			bstatus = ee.ExitCode()
		}
		want := result{bout.String(), lineN.ReplaceAllString(berr.String(), "bash: "), bstatus}

		if err := sess.Chdir("/"); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		st, err := sess.Run(context.Background(), line, &out, &errb)
		if err != nil {
			t.Errorf("%s: %v", line, err)
		}
		got := result{out.String(), errb.String(), st}
		if got != want {
			t.Errorf("%s\n shell: out %q err %q status %d\n  bash: out %q err %q status %d", line, got.out, got.err, got.status, want.out, want.err, want.status)
		}
	}
}

// readOnlyMount bind-mounts src read-only at dst and returns dst; without
// the privilege to mount (and not under CI), it returns src itself.
func readOnlyMount(t *testing.T, src, dst string, ci bool) string {
	t.Helper()
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "--bind", src, dst).CombinedOutput()
	if err == nil {
		t.Cleanup(func() {
			if out, err := exec.Command("umount", dst).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v %s", dst, err, out)
			}
		})
		out, err = exec.Command("mount", "-o", "remount,bind,ro", dst).CombinedOutput()
	}
	if err != nil {
		if ci {
			t.Fatalf("read-only bind mount: %v %s", err, out)
		}
		t.Logf("no read-only bind mount (%v %s); comparing on a plain directory", err, bytes.TrimSpace(out))
		return src
	}
	return dst
}
