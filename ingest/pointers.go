package ingest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/chromafs/chromafs/pointer"
	"github.com/chromafs/chromafs/tree"
)

// Pointer is a lazy file pointer that Run writes into the tree: a page
// whose content lives at URL, outside the collection, and is fetched by
// chromafs's resolver when read. It has no chunks.
type Pointer struct {
	// Slug is the page's path, checked like the path of a file.
	Slug string
	// URL is where the content lives: an absolute URL with a scheme
	// (http and https are fetched by the zero pointer.HTTPResolver; other
	// schemes need a pointer.Resolver).
	URL string
	// Size is the content's length in bytes, or -1 when unknown.
	Size int64
	// Hash is "sha256:<64 lowercase hex digits>", or "".
	Hash string
	// ModTime is the content's modification time, or the zero Time.
	ModTime time.Time
	// ContentType is the content's MIME type, or "".
	ContentType string
}

// manifestEntry is one element of a pointer manifest.
type manifestEntry struct {
	Slug        string    `json:"slug"`
	URL         string    `json:"url"`
	Size        *int64    `json:"size"`
	SHA256      string    `json:"sha256"`
	ModTime     time.Time `json:"modTime"`
	ContentType string    `json:"contentType"`
}

// LoadPointers reads a pointer manifest: a JSON array of objects, one per
// pointer, for example
//
//	[
//	  {"slug": "specs/openapi.json", "url": "https://example.com/openapi.json",
//	   "size": 123456, "sha256": "<64 hex digits>",
//	   "modTime": "2024-05-01T10:00:00Z", "contentType": "application/json"}
//	]
//
// slug and url are required; size (bytes), sha256 (hex), modTime (RFC
// 3339) and contentType are optional. Unknown fields, unsafe or duplicate
// slugs, URLs without a scheme, negative sizes and malformed hashes are
// errors naming the entry (counted from 1).
func LoadPointers(r io.Reader) ([]Pointer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("pointer manifest: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("pointer manifest: empty (want a JSON array, [] for no pointers)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var raw []manifestEntry
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("pointer manifest: not a JSON array of pointers: %w", err)
	}
	if dec.More() {
		return nil, errors.New("pointer manifest: data after the JSON array")
	}
	ps := make([]Pointer, len(raw))
	for i, m := range raw {
		p := Pointer{Slug: m.Slug, URL: m.URL, Size: -1, ModTime: m.ModTime, ContentType: m.ContentType}
		if m.Size != nil {
			p.Size = *m.Size
			if p.Size < 0 {
				return nil, fmt.Errorf("pointer manifest: entry %d (%s): negative size %d", i+1, strconv.Quote(m.Slug), p.Size)
			}
		}
		if m.SHA256 != "" {
			p.Hash = "sha256:" + strings.ToLower(m.SHA256)
		}
		ps[i] = p
	}
	if err := checkPointers(ps); err != nil {
		return nil, fmt.Errorf("pointer manifest: %w", err)
	}
	return ps, nil
}

// checkPointers checks each pointer on its own and that no two share a
// slug.
func checkPointers(ps []Pointer) error {
	seen := make(map[string]int, len(ps))
	for i, p := range ps {
		where := fmt.Sprintf("entry %d (%s)", i+1, strconv.Quote(p.Slug))
		if err := p.check(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if j, dup := seen[p.Slug]; dup {
			return fmt.Errorf("%s: duplicate slug, also entry %d", where, j+1)
		}
		seen[p.Slug] = i
	}
	return nil
}

func (p Pointer) check() error {
	if p.Slug == "" {
		return errors.New("no slug")
	}
	if reason := badName(p.Slug); reason != "" {
		return errors.New("unsafe slug: " + reason)
	}
	if probs := tree.New([]tree.Entry{{Slug: p.Slug, Size: -1, HasIsPublic: true}}).Problems(); len(probs) > 0 {
		return errors.New("unsafe slug: " + probs[0].Reason)
	}
	if p.URL == "" {
		return errors.New("no url")
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		// The *url.Error would repeat the URL, query and userinfo
		// included.
		return fmt.Errorf("bad url %q: %v", pointer.RedactURL(p.URL), errors.Unwrap(err))
	}
	if u.Scheme == "" || !u.IsAbs() {
		return fmt.Errorf("bad url %q: not absolute (want a scheme such as https://)", pointer.RedactURL(p.URL))
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return fmt.Errorf("bad url %q: no host", pointer.RedactURL(p.URL))
	}
	if p.Size < -1 {
		return fmt.Errorf("negative size %d", p.Size)
	}
	if p.Hash != "" {
		h, ok := strings.CutPrefix(p.Hash, "sha256:")
		if _, err := hex.DecodeString(h); !ok || err != nil || len(h) != 64 || strings.ToLower(h) != h {
			return fmt.Errorf("bad hash %q: want sha256:<64 lowercase hex digits>", p.Hash)
		}
	}
	return nil
}

// entry returns the tree entry of the pointer.
func (p Pointer) entry(rules *Rules) tree.Entry {
	e := tree.Entry{
		Slug:        p.Slug,
		HasIsPublic: true,
		Size:        p.Size,
		Hash:        p.Hash,
		ContentType: p.ContentType,
		URL:         p.URL,
	}
	if !p.ModTime.IsZero() {
		e.ModTime = p.ModTime.UTC().Round(0)
	}
	e.IsPublic, e.Groups = rules.Access(p.Slug)
	return e
}

// checkClashes reports a pointer whose slug is that of a file of the
// folder, or a file's directory, or lies under a file.
func checkClashes(files []file, ps []Pointer) error {
	if len(ps) == 0 {
		return nil
	}
	isFile := make(map[string]bool, len(files))
	entries := make([]tree.Entry, 0, len(files)+len(ps))
	for _, f := range files {
		isFile[f.slug] = true
		entries = append(entries, tree.Entry{Slug: f.slug, Size: -1, HasIsPublic: true})
	}
	isPointer := make(map[string]bool, len(ps))
	for _, p := range ps {
		if isFile[p.Slug] {
			return fmt.Errorf("ingest: pointer %s clashes with a file of the folder of the same path", displayPath(p.Slug))
		}
		isPointer[p.Slug] = true
		entries = append(entries, tree.Entry{Slug: p.Slug, Size: -1, HasIsPublic: true})
	}
	if probs := tree.New(entries).Problems(); len(probs) > 0 {
		what := "file"
		if isPointer[probs[0].Slug] {
			what = "pointer"
		}
		return fmt.Errorf("ingest: pointers clash with the folder's files: %s %s", what, probs[0])
	}
	return nil
}

// samePointer reports whether a previous tree entry is the pointer's
// entry unchanged.
func samePointer(prev, e *tree.Entry) bool {
	return prev.URL == e.URL && prev.Size == e.Size && prev.Hash == e.Hash &&
		prev.ModTime.Equal(e.ModTime) && prev.ContentType == e.ContentType &&
		prev.IsPublic == e.IsPublic && strings.Join(prev.Groups, "\x00") == strings.Join(e.Groups, "\x00")
}
