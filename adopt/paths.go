package adopt

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Slugs makes a page path (a slug) of every page key, as writers record
// them (a loader's file path, a URL, a document id):
//
//   - a URL (scheme://host/path) keeps its path, without scheme, host,
//     query or fragment; a path that is empty or ends in "/" gets
//     "index" (https://docs.example.com/guides/ is guides/index);
//   - a Windows path has its drive letter ("C:") removed and its
//     backslashes made slashes;
//   - with strip set, keys that start with it (after the steps above)
//     lose it; without it, absolute paths lose their longest common
//     directory (/home/ci/docs/a.md and /home/ci/docs/b/c.md are a.md
//     and b/c.md);
//   - "./" and repeated slashes go; a path that still leaves its root
//     ("..") or is not valid UTF-8, or holds a control character, a
//     backslash or an empty element, is no slug.
//
// slugs maps each key to its slug; bad lists, for each key that has
// none, why, as does a slug that two keys would share (neither gets it).
func Slugs(keys []string, strip string) (slugs map[string]string, bad map[string]string) {
	slugs = map[string]string{}
	bad = map[string]string{}
	norm := map[string]string{}
	var abs []string
	for _, k := range keys {
		if _, done := norm[k]; done {
			continue
		}
		n, why := normalise(k)
		if why == "" && strings.HasPrefix(path.Clean(strings.TrimLeft(n, "/")), "..") {
			why = "path leaves the root"
		}
		if why != "" {
			bad[k] = why
			continue
		}
		norm[k] = n
		if strings.HasPrefix(n, "/") {
			abs = append(abs, n)
		}
	}
	common := ""
	if strip == "" && len(abs) > 0 {
		common = commonDir(abs)
	} else if strip != "" {
		s, _ := normalise(strip)
		common = strings.TrimSuffix(s, "/") + "/"
	}
	owner := map[string]string{}
	for _, k := range keys {
		n, ok := norm[k]
		if !ok || slugs[k] != "" {
			continue
		}
		if common != "" && strings.HasPrefix(n, common) {
			n = n[len(common):]
		}
		s := path.Clean(strings.TrimLeft(n, "/"))
		if why := badSlug(s); why != "" {
			bad[k] = fmt.Sprintf("%s (from %q)", why, s)
			continue
		}
		if other, taken := owner[s]; taken {
			bad[k] = fmt.Sprintf("pages %q and %q would both be %s", other, k, s)
			if _, was := slugs[other]; was {
				delete(slugs, other)
				bad[other] = bad[k]
			}
			continue
		}
		owner[s] = k
		slugs[k] = s
	}
	return slugs, bad
}

// normalise turns a key into a slash-separated path: a URL's path, a
// Windows path's.
func normalise(k string) (string, string) {
	if !utf8.ValidString(k) {
		return "", "not valid UTF-8"
	}
	if i := strings.Index(k, "://"); i > 0 && !strings.ContainsAny(k[:i], `/\`) {
		u, err := url.Parse(k)
		if err != nil {
			return "", fmt.Sprintf("not a URL: %v", err)
		}
		p := u.Path
		if p == "" || strings.HasSuffix(p, "/") {
			p += "index"
		}
		return "/" + strings.TrimLeft(p, "/"), ""
	}
	if len(k) >= 2 && k[1] == ':' && unicode.IsLetter(rune(k[0])) {
		k = k[2:]
	}
	if strings.Contains(k, `\`) && !strings.Contains(k, "/") || strings.HasPrefix(k, `\`) {
		k = strings.ReplaceAll(k, `\`, "/")
	}
	return k, ""
}

// commonDir returns the longest directory, ending in "/", that every
// path is below.
func commonDir(paths []string) string {
	p := slices.Min(paths)
	q := slices.Max(paths)
	n := 0
	for n < len(p) && n < len(q) && p[n] == q[n] {
		n++
	}
	return p[:strings.LastIndex(p[:n], "/")+1]
}

// badSlug says why s cannot be a page's path, or returns "".
func badSlug(s string) string {
	switch {
	case s == "." || s == "":
		return "empty path"
	case s == ".." || strings.HasPrefix(s, "../"):
		return "path leaves the root"
	case !fs.ValidPath(s):
		return "not a valid path"
	case strings.Contains(s, `\`):
		return "path holds a backslash"
	case strings.ContainsFunc(s, unicode.IsControl):
		return "path holds a control character"
	}
	return ""
}

func sortStrings(s []string) { slices.Sort(s) }
