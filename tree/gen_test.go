package tree

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// GenEntries returns n realistic, valid entries, the same for the same n
// and seed: pages in nested directories (depth 1 to 5) such as
// "guides/auth/oauth-setup.mdx", 10% of them private with one or two
// groups, with size, hash, modTime, contentType and chunks set.
func GenEntries(n int, seed uint64) []Entry {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	sections := []string{"guides", "api", "reference", "sdk", "tutorials", "concepts",
		"integrations", "deploy", "security", "changelog", "cli", "admin"}
	topics := []string{"auth", "billing", "webhooks", "users", "projects", "storage",
		"search", "events", "teams", "v1", "v2", "advanced"}
	words := []string{"oauth", "setup", "getting", "started", "overview", "tokens",
		"rate", "limits", "errors", "pagination", "quickstart", "migration", "config",
		"install", "keys", "scopes", "roles", "retries", "batch", "upload", "export",
		"import", "faq", "troubleshooting", "best", "practices", "example", "schema"}
	exts := []string{".mdx", ".mdx", ".mdx", ".md", ".md", ".json", ".yaml", ".txt"}
	plain := []string{"Makefile", "Dockerfile", "LICENSE", "README"}
	groups := []string{"admin", "billing", "enterprise", "beta", "internal", "support"}
	types := map[string]string{".mdx": "text/markdown", ".md": "text/markdown",
		".json": "application/json", ".yaml": "application/yaml", ".txt": "text/plain", "": "text/plain"}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

	seen := make(map[string]bool, n)
	entries := make([]Entry, 0, n)
	var b strings.Builder
	for len(entries) < n {
		b.Reset()
		depth := 1 + r.IntN(5) // elements in the slug
		for d := 0; d < depth-1; d++ {
			switch d {
			case 0:
				b.WriteString(sections[r.IntN(len(sections))])
			case 1:
				b.WriteString(topics[r.IntN(len(topics))])
			default:
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString("s")
			}
			b.WriteByte('/')
		}
		ext := ""
		if r.IntN(50) == 0 {
			b.WriteString(plain[r.IntN(len(plain))])
		} else {
			for w := 0; w < 1+r.IntN(3); w++ {
				if w > 0 {
					b.WriteByte('-')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			ext = exts[r.IntN(len(exts))]
			b.WriteString(ext)
		}
		slug := b.String()
		if seen[slug] {
			// Make it unique the way real docs do: a numbered page.
			slug = strings.TrimSuffix(slug, ext) + fmt.Sprintf("-%d", len(entries)) + ext
			if seen[slug] {
				continue
			}
		}
		seen[slug] = true

		e := Entry{Slug: slug, IsPublic: true, HasIsPublic: true}
		if r.IntN(10) == 0 {
			e.IsPublic = false
			e.Groups = []string{groups[r.IntN(len(groups))]}
			if r.IntN(3) == 0 {
				e.Groups = append(e.Groups, groups[r.IntN(len(groups))])
			}
		}
		e.Size = 200 + r.Int64N(40000)
		e.Chunks = int(e.Size/1500) + 1
		e.ModTime = time.Unix(base+r.Int64N(3*365*86400), 0).UTC()
		e.Hash = fmt.Sprintf("sha256:%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
		e.ContentType = types[ext]
		entries = append(entries, e)
	}
	return entries
}
