package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sampleRules = `# comment; blank lines ignored; the LAST matching rule wins

**                  public
internal/**         private groups=staff,admins
billing/*.md        groups=finance          # groups without "public" = private
billing/rates.md    public groups=finance
	drafts/**	private   # tabs work too
`

func TestRulesAccess(t *testing.T) {
	tests := []struct {
		name       string
		rules      string
		slug       string
		wantPublic bool
		wantGroups []string
	}{
		{"catch-all", sampleRules, "index.md", true, nil},
		{"nested catch-all", sampleRules, "a/b/c.md", true, nil},
		{"private with groups", sampleRules, "internal/x/y.md", false, []string{"staff", "admins"}},
		{"groups alone is private", sampleRules, "billing/plans.md", false, []string{"finance"}},
		{"star stays in one directory", sampleRules, "billing/old/plans.md", true, nil},
		{"last match wins", sampleRules, "billing/rates.md", true, []string{"finance"}},
		{"private without groups", sampleRules, "drafts/x.md", false, nil},
		{"unmatched is public", "internal/** private\n", "guide.md", true, nil},
		{"default private", "default private\ndocs/** public\n", "secret.md", false, nil},
		{"default private, matched", "default private\ndocs/** public\n", "docs/a.md", true, nil},
		{"default public", "default public\n", "x", true, nil},
		{"default position irrelevant", "docs/** public\ndefault private\n", "x", false, nil},
		{"duplicate groups once", "** groups=a,b,a\n", "x", false, []string{"a", "b"}},
		{"hash inside a word", "a#b public\n** private\na#b public\n", "a#b", true, nil},
		{"escaped comment char", "[#]x private\n", "#x", false, nil},
		{"brace alternatives", "{a,b}/** private\n", "b/c", false, nil},
		{"empty rules", "", "x", true, nil},
		{"only comments", "# nothing\n\n   # more\n", "x", true, nil},
		{"crlf lines", "** private\r\nx public\r\n", "x", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseRules(strings.NewReader(tt.rules))
			if err != nil {
				t.Fatal(err)
			}
			public, groups := rs.Access(tt.slug)
			if public != tt.wantPublic || !slices.Equal(groups, tt.wantGroups) {
				t.Fatalf("Access(%q) = %v %q, want %v %q", tt.slug, public, groups, tt.wantPublic, tt.wantGroups)
			}
		})
	}
}

func TestRulesNilAndZero(t *testing.T) {
	var nilRules *Rules
	if public, groups := nilRules.Access("x"); !public || groups != nil {
		t.Fatalf("nil rules: %v %v", public, groups)
	}
	if public, groups := (&Rules{}).Access("x"); !public || groups != nil {
		t.Fatalf("zero rules: %v %v", public, groups)
	}
	if nilRules.Len() != 0 {
		t.Fatal("nil rules have a length")
	}
}

func TestRulesAccessReturnsCopy(t *testing.T) {
	rs, err := ParseRules(strings.NewReader("** groups=a\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, g := rs.Access("x")
	g[0] = "changed"
	if _, g := rs.Access("x"); g[0] != "a" {
		t.Fatal("Access shares its groups slice")
	}
}

func TestParseRulesErrors(t *testing.T) {
	tests := []struct {
		name  string
		rules string
		want  string // substring of the error
	}{
		{"unknown word", "# ok\n** publc\n", `line 2: unknown word "publc"`},
		{"pattern alone", "\n\ndocs/**\n", "line 3: pattern \"docs/**\" needs public, private or groups=a,b"},
		{"public and private", "** public private\n", "line 1: more than one of public and private"},
		{"public twice", "** public public\n", "line 1: more than one of public and private"},
		{"two groups lists", "** groups=a groups=b\n", "line 1: second groups= list"},
		{"empty groups", "** groups=\n", `line 1: "groups=": empty group name`},
		{"empty group name", "** groups=a,,b\n", `line 1: "groups=a,,b": empty group name`},
		{"absolute pattern", "/docs/** public\n", `line 1: pattern "/docs/**": must be relative`},
		{"dot slash pattern", "./docs/** public\n", "line 1: pattern \"./docs/**\": must not start with ./"},
		{"bad glob", "docs/[a public\n", `line 1: pattern "docs/[a": bad glob syntax`},
		{"bad default", "default maybe\n", `line 1: want "default public" or "default private"`},
		{"default with extra", "default private groups=a\n", `line 1: want "default public" or "default private"`},
		{"second default", "default private\ndefault public\n", "line 2: second default line"},
		{"control character", "** public\x00\n", `line 1: invalid character '\x00'`},
		{"invalid utf-8", "\xff public\n", `line 1: invalid character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRules(strings.NewReader(tt.rules))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "access")
	if err := os.WriteFile(good, []byte(sampleRules), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := LoadRules(good)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Len() != 5 {
		t.Fatalf("Len = %d, want 5", rs.Len())
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("** public\nx nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRules(bad); err == nil || !strings.Contains(err.Error(), bad+`:2: unknown word "nope"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := LoadRules(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err = %v", err)
	}
}
