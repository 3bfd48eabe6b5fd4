package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// Rules decide the access (isPublic and groups) of each page. See the
// package documentation, section "Access rules", for the format. The
// zero value makes every page public. Rules are immutable once parsed
// and safe for concurrent use.
type Rules struct {
	rules         []rule
	defaultPublic bool
	hasDefault    bool
	// path is the absolute path of the file the rules came from, if any.
	path string
}

type rule struct {
	line    int
	pattern string
	public  bool
	groups  []string
}

// ParseRules reads access rules from r. An error names the first bad line
// by number and says what is wrong with it.
func ParseRules(r io.Reader) (*Rules, error) {
	return parseRules(r, "line ")
}

// LoadRules reads access rules from the file at path. An error names the
// file and line. The rules remember the file, so that [RunDir] does not
// ingest it when it lies inside the docs folder.
func LoadRules(path string) (*Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("access rules: %w", err)
	}
	defer f.Close()
	rules, err := parseRules(f, path+":")
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		rules.path = abs
	}
	return rules, nil
}

// parseRules parses rules; where prefixes line numbers in errors.
func parseRules(r io.Reader, where string) (*Rules, error) {
	rs := &Rules{defaultPublic: true}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := rs.parseLine(n, sc.Text()); err != nil {
			return nil, fmt.Errorf("%s%d: %w", where, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s%d: %w", where, n+1, err)
	}
	return rs, nil
}

func (rs *Rules) parseLine(n int, line string) error {
	fields := strings.Fields(line)
	for i, f := range fields {
		if strings.HasPrefix(f, "#") { // a comment runs to the end of the line
			fields = fields[:i]
			break
		}
	}
	if len(fields) == 0 {
		return nil
	}
	for _, r := range line {
		if r == unicode.ReplacementChar || (unicode.IsControl(r) && r != '\t') {
			return fmt.Errorf("invalid character %q", r)
		}
	}
	if fields[0] == "default" {
		if len(fields) != 2 || (fields[1] != "public" && fields[1] != "private") {
			return errors.New(`want "default public" or "default private"`)
		}
		if rs.hasDefault {
			return errors.New("second default line")
		}
		rs.hasDefault, rs.defaultPublic = true, fields[1] == "public"
		return nil
	}

	ru := rule{line: n, pattern: fields[0]}
	switch {
	case strings.HasPrefix(ru.pattern, "/"):
		return fmt.Errorf("pattern %q: must be relative to the docs folder (no leading /)", ru.pattern)
	case ru.pattern == "." || strings.HasPrefix(ru.pattern, "./"):
		return fmt.Errorf("pattern %q: must not start with ./", ru.pattern)
	case !doublestar.ValidatePattern(ru.pattern):
		return fmt.Errorf("pattern %q: bad glob syntax", ru.pattern)
	}
	var sawPublic, sawPrivate, sawGroups bool
	for _, f := range fields[1:] {
		switch {
		case f == "public" || f == "private":
			if sawPublic || sawPrivate {
				return errors.New("more than one of public and private")
			}
			sawPublic, sawPrivate = f == "public", f == "private"
			ru.public = sawPublic
		case strings.HasPrefix(f, "groups="):
			if sawGroups {
				return errors.New("second groups= list")
			}
			sawGroups = true
			for g := range strings.SplitSeq(strings.TrimPrefix(f, "groups="), ",") {
				if g == "" {
					return fmt.Errorf("%q: empty group name", f)
				}
				if !slices.Contains(ru.groups, g) {
					ru.groups = append(ru.groups, g)
				}
			}
		default:
			return fmt.Errorf("unknown word %q (want public, private or groups=a,b)", f)
		}
	}
	if !sawPublic && !sawPrivate && !sawGroups {
		return fmt.Errorf("pattern %q needs public, private or groups=a,b", ru.pattern)
	}
	rs.rules = append(rs.rules, ru)
	return nil
}

// Access returns the access of the page slug: that of the last rule whose
// pattern matches slug, or, when none does, public with no groups (private
// after a "default private" line). The groups are a fresh slice.
func (rs *Rules) Access(slug string) (isPublic bool, groups []string) {
	if rs == nil {
		return true, nil
	}
	for i := len(rs.rules) - 1; i >= 0; i-- {
		ru := rs.rules[i]
		if ok, _ := doublestar.Match(ru.pattern, slug); ok {
			return ru.public, slices.Clone(ru.groups)
		}
	}
	if rs.hasDefault {
		return rs.defaultPublic, nil
	}
	return true, nil
}

// Len returns the number of rules, default line excluded.
func (rs *Rules) Len() int {
	if rs == nil {
		return 0
	}
	return len(rs.rules)
}
