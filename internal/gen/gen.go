// Package gen generates deterministic synthetic documentation collections,
// for benchmarks and load tests.
//
// [Pages] returns the files of a docs site: markdown-like pages in nested
// directories, with the same result for the same size and seed. [Write]
// writes them into a collection in the layout that package ingest uses,
// so that a benchmark can measure chromafs on a collection of any size
// without a docs folder on disk:
//
//	pages := gen.Pages(10_000, 1)
//	stats, err := gen.Write(ctx, collection, pages, gen.Options{})
//
// The shape of a generated site:
//
//   - Slugs such as "guides/auth/oauth-setup-17.mdx", at depths 1 to 5
//     (1 element: 5%, 2: 25%, 3: 35%, 4: 25%, 5: 10%), mostly .md and .mdx,
//     some .json, .yaml and .txt and a few extensionless files (Makefile,
//     README). A file name never equals a directory name, so no slug is
//     both a file and a directory.
//   - Content of lines shorter than 120 bytes: headings, paragraphs, lists
//     and fenced code, with a mean page size of about 4 KB (from 300 bytes
//     to 48 KB) and every page ending in a newline.
//   - [LargeSize] (8 KiB) pages whose slugs [Large] lists.
//   - Many pages directly in [WideDir], for listing benchmarks.
//   - 10% of the pages under [PrivateDir], which [Access] makes private to
//     [PrivateGroup]; every other page is public.
package gen

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

const (
	// PrivateDir is the directory that holds the private pages (10% of
	// them).
	PrivateDir = "internal"
	// PrivateGroup is the group that may see the pages under PrivateDir.
	PrivateGroup = "staff"
	// WideDir is a public directory with many pages directly in it (2% of
	// all pages), such as an API reference with one page per endpoint.
	WideDir = "reference/endpoints"
	// LargeDir holds the pages that Large lists.
	LargeDir = "reference/large"
	// LargeSize is the exact size in bytes of the pages that Large lists.
	LargeSize = 8192
)

// Access is the access rule of generated sites: pages under PrivateDir are
// private to PrivateGroup, every other page is public. It has the
// signature of memstore.LoadOptions.Access and Options.Access.
func Access(slug string) (isPublic bool, groups []string) {
	if strings.HasPrefix(slug, PrivateDir+"/") {
		return false, []string{PrivateGroup}
	}
	return true, nil
}

// NumLarge returns the number of LargeSize pages in a site of n pages:
// one per thousand pages, at least one (when n > 0).
func NumLarge(n int) int {
	return min(n, max(1, n/1000))
}

// Large returns the slugs of the LargeSize pages that Pages(n, seed)
// holds, for any seed. They are public.
func Large(n int) []string {
	out := make([]string, NumLarge(n))
	for i := range out {
		out[i] = largeSlug(i)
	}
	return out
}

func largeSlug(i int) string {
	return fmt.Sprintf("%s/page-8k-%d.md", LargeDir, i)
}

// Vocabularies. Directory names and file names are disjoint (file names
// have an extension or come from plainNames), so that no slug is both a
// file and a directory.
var (
	sections = []string{"guides", "api", "reference", "sdk", "tutorials", "concepts",
		"integrations", "deploy", "security", "changelog", "cli", "admin", "platform", "billing"}
	topics = []string{"auth", "payments", "webhooks", "users", "projects", "storage",
		"search", "events", "teams", "v1", "v2", "advanced", "networking", "observability",
		"databases", "queues"}
	subdirs = []string{"examples", "recipes", "errors", "limits", "schemas", "clients",
		"servers", "migrations", "releases", "faq", "patterns", "internals"}
	nameWords = []string{"oauth", "setup", "getting", "started", "overview", "tokens",
		"rate", "limits", "errors", "pagination", "quickstart", "migration", "config",
		"install", "keys", "scopes", "roles", "retries", "batch", "upload", "export",
		"import", "faq", "troubleshooting", "best", "practices", "example", "schema",
		"create", "list", "delete", "update", "rotate", "verify", "sessions", "logging"}
	exts       = []string{".md", ".md", ".md", ".md", ".mdx", ".mdx", ".mdx", ".json", ".yaml", ".txt"}
	plainNames = []string{"Makefile", "Dockerfile", "LICENSE", "README", "CHANGELOG"}
	privDirs   = []string{"runbooks", "oncall", "incidents", "roadmap", "infra", "security",
		"hiring", "finance"}
	// words of prose; a few are identifiers that greps look for.
	words = strings.Fields(`the a to of and in is for with on by this that you your can
		request response client server token access_token api_key refresh_token scope
		user account project team webhook event payload header body status error retry
		limit page cursor field value string integer boolean object array returns must
		should may not when if each every all new old default optional required example
		configure install deploy run call send receive create update delete list get set
		endpoint resource permission role group secret key signature timestamp version
		region cluster node database query index cache session cookie redirect callback
		timeout latency throughput batch stream upload download file path directory
		Chroma collection embedding document metadata chunk slug tree grep filesystem`)
	codeLines = []string{
		`curl -H "Authorization: Bearer $API_KEY" https://api.example.com/v1/users`,
		`client := example.NewClient(os.Getenv("API_KEY"))`,
		`resp, err := client.Users.List(ctx, &example.ListOptions{Limit: 100})`,
		`if err != nil { return fmt.Errorf("list users: %w", err) }`,
		`const token = await auth.getAccessToken({ scope: "read:users" });`,
		`response = client.post("/v1/webhooks", json={"url": url, "events": ["user.created"]})`,
		`export EXAMPLE_REGION=eu-west-1`,
		`{"id": "usr_123", "email": "ada@example.com", "role": "admin"}`,
		`for page in client.projects.list(page_size=50):`,
		`    print(page.id, page.name)`,
	}
	langs = []string{"sh", "go", "js", "python", "json", "yaml"}
)

// depthOf draws a slug depth (number of elements) from the distribution
// described in the package documentation.
func depthOf(r *rand.Rand) int {
	switch x := r.IntN(100); {
	case x < 5:
		return 1
	case x < 30:
		return 2
	case x < 65:
		return 3
	case x < 90:
		return 4
	default:
		return 5
	}
}

// Pages returns the n pages (slug -> content) of a synthetic docs site,
// the same for the same n and seed. See the package documentation for its
// shape.
func Pages(n int, seed uint64) map[string]string {
	if n <= 0 {
		return map[string]string{}
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	pages := make(map[string]string, n)
	var b strings.Builder

	// unique makes slug unique the way real docs do: a numbered page.
	unique := func(dir, stem, ext string) string {
		slug := path.Join(dir, stem+ext)
		if _, ok := pages[slug]; !ok {
			return slug
		}
		for k := len(pages); ; k++ {
			slug = path.Join(dir, fmt.Sprintf("%s-%d%s", stem, k, ext))
			if _, ok := pages[slug]; !ok {
				return slug
			}
		}
	}
	fileName := func() (stem, ext string) {
		if r.IntN(50) == 0 {
			return plainNames[r.IntN(len(plainNames))], ""
		}
		b.Reset()
		for w := range 1 + r.IntN(3) {
			if w > 0 {
				b.WriteByte('-')
			}
			b.WriteString(nameWords[r.IntN(len(nameWords))])
		}
		return b.String(), exts[r.IntN(len(exts))]
	}
	add := func(slug string, size int) {
		pages[slug] = content(r, slug, size)
	}

	for i := range NumLarge(n) {
		add(largeSlug(i), LargeSize)
	}
	numPrivate := n / 10
	numWide := n / 50
	for range numWide {
		if len(pages) >= n {
			break
		}
		stem := nameWords[r.IntN(len(nameWords))] + "-" + nameWords[r.IntN(len(nameWords))]
		add(unique(WideDir, stem, ".md"), pageSize(r))
	}
	for range numPrivate {
		if len(pages) >= n {
			break
		}
		dir := PrivateDir
		for range max(depthOf(r), 2) - 2 { // 2 to 5 elements in all
			dir += "/" + privDirs[r.IntN(len(privDirs))]
		}
		stem, ext := fileName()
		add(unique(dir, stem, ext), pageSize(r))
	}
	for len(pages) < n {
		depth := depthOf(r)
		var dir string
		for d := range depth - 1 {
			var elem string
			switch d {
			case 0:
				elem = sections[r.IntN(len(sections))]
			case 1:
				elem = topics[r.IntN(len(topics))]
			default:
				elem = subdirs[r.IntN(len(subdirs))]
			}
			dir = path.Join(dir, elem)
		}
		stem, ext := fileName()
		add(unique(dir, stem, ext), pageSize(r))
	}
	return pages
}

// pageSize draws a page size: 300 bytes plus an exponential part of mean
// 3800, capped at 48 KiB, for a mean of about 4 KB.
func pageSize(r *rand.Rand) int {
	return min(300+int(r.ExpFloat64()*3800), 48<<10)
}

// content returns a page of exactly size bytes (size >= 2) made of lines
// shorter than 120 bytes, ending in a newline.
func content(r *rand.Rand, slug string, size int) string {
	var b strings.Builder
	b.Grow(size + 128)
	b.WriteString("# ")
	b.WriteString(strings.TrimSuffix(path.Base(slug), path.Ext(slug)))
	b.WriteString("\n\n")
	line := make([]byte, 0, 128)
	for b.Len() < size {
		switch r.IntN(8) {
		case 0: // a section heading
			b.WriteString("## ")
			line = sentence(r, line[:0], 2+r.IntN(4))
			b.Write(line)
			b.WriteString("\n\n")
		case 1: // a list
			for range 2 + r.IntN(4) {
				b.WriteString("- ")
				line = sentence(r, line[:0], 3+r.IntN(8))
				b.Write(line)
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		case 2: // a code block
			b.WriteString("```")
			b.WriteString(langs[r.IntN(len(langs))])
			b.WriteByte('\n')
			for range 1 + r.IntN(5) {
				b.WriteString(codeLines[r.IntN(len(codeLines))])
				b.WriteByte('\n')
			}
			b.WriteString("```\n\n")
		default: // a paragraph
			for range 1 + r.IntN(6) {
				line = sentence(r, line[:0], 8+r.IntN(10))
				b.Write(line)
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
	}
	return fit(b.String(), size)
}

// sentence appends about n words, keeping the line under 100 bytes.
func sentence(r *rand.Rand, line []byte, n int) []byte {
	for i := range n {
		w := words[r.IntN(len(words))]
		if len(line)+len(w)+2 > 100 {
			break
		}
		if i > 0 {
			line = append(line, ' ')
		} else if w[0] >= 'a' && w[0] <= 'z' {
			line = append(line, w[0]-'a'+'A')
			w = w[1:]
		}
		line = append(line, w...)
	}
	return append(line, '.')
}

// fit cuts s (at least size bytes of ASCII lines) to exactly size bytes
// ending in a newline.
func fit(s string, size int) string {
	s = s[:size]
	if s[size-1] == '\n' {
		return s
	}
	return s[:size-1] + "\n"
}
