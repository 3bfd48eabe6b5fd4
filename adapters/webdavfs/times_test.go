package webdavfs_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromafs/chromafs/adapters/webdavfs"
	"github.com/chromafs/chromafs/collection"
	"github.com/chromafs/chromafs/ingest"
	"github.com/chromafs/chromafs/internal/testbackend"
	"github.com/chromafs/chromafs/memstore"
)

// timeFiles are the pages of the trees of TestPropfindUnknownTimes.
var timeFiles = map[string]string{
	"index.md":         "# Home\n",
	"guides/setup.md":  "Setup.\n",
	"guides/deep/x.md": "Deep.\n",
}

// writeWithoutTimes writes timeFiles as other writers do (the seeds'
// layout: no sizes, no times).
func writeWithoutTimes(t *testing.T, dst collection.Writer) {
	t.Helper()
	mem := memstore.New("no-times")
	if err := memstore.Load(mem, collection.DefaultLayout(), timeFiles, memstore.LoadOptions{ChunkSize: 5}); err != nil {
		t.Fatal(err)
	}
	if err := dst.Upsert(context.Background(), mem.Records()); err != nil {
		t.Fatal(err)
	}
}

// t0 is the modification time of index.md in the tree with times; each
// other page is an hour later than the one before it in timeFiles' order
// below.
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// writeWithTimes ingests timeFiles with modification times.
func writeWithTimes(t *testing.T, dst ingest.Target) map[string]time.Time {
	t.Helper()
	times := map[string]time.Time{
		"index.md":         t0,
		"guides/setup.md":  t0.Add(time.Hour),
		"guides/deep/x.md": t0.Add(2 * time.Hour),
	}
	src := fstest.MapFS{}
	for slug, content := range timeFiles {
		src[slug] = &fstest.MapFile{Data: []byte(content), Mode: 0o644, ModTime: times[slug]}
	}
	if _, err := ingest.Run(context.Background(), dst, src, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return times
}

// TestPropfindUnknownTimes: on a tree that records no modification times,
// no directory has getlastmodified (allprop leaves it out, a prop request
// lists it in the 404 propstat), so that no "Mon, 01 Jan 0001" date
// reaches a client for one, and cadaver lists the directories as
// collections (dated by its own default); files keep the property, which
// cadaver needs to list them, and GET sends no Last-Modified. On a tree
// with times, files have theirs and directories the newest of the files
// below them, in PROPFIND, GET and cadaver's listing.
func TestPropfindUnknownTimes(t *testing.T) {
	cadaver := client(t, "cadaver")
	t.Setenv("TZ", "UTC") // cadaver prints dates in local time
	for _, b := range testbackend.Backends() {
		t.Run(b.Name+"/without", func(t *testing.T) {
			store := b.New(t)
			writeWithoutTimes(t, store)
			e := newEnv(t, store, timeFiles, webdavfs.Options{})
			for _, p := range []string{"/", "/guides/"} {
				st, got, body := propfind(t, e, p, "1", nil)
				if st != http.StatusMultiStatus {
					t.Fatalf("PROPFIND %s = %d %s", p, st, body)
				}
				if len(got) != 3 {
					t.Errorf("PROPFIND %s listed %d entries, want 3:\n%s", p, len(got), body)
				}
				for href, en := range got {
					switch {
					case en.dir && en.mtime != "":
						t.Errorf("PROPFIND %s: directory %s has getlastmodified %q", p, href, en.mtime)
					case !en.dir && en.mtime != zeroTime:
						t.Errorf("PROPFIND %s: file %s has getlastmodified %q, want %q", p, href, en.mtime, zeroTime)
					}
				}
			}
			named := `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:getlastmodified/><D:resourcetype/></D:prop></D:propfind>`
			resp, body := e.do(t, "PROPFIND", "/guides/", map[string]string{"Depth": "1"}, named)
			if resp.StatusCode != http.StatusMultiStatus {
				t.Fatalf("PROPFIND (prop) = %d %s", resp.StatusCode, body)
			}
			ms := string(body)
			// Two directories (guides, guides/deep) in a 404 propstat.
			if strings.Count(ms, "<D:getlastmodified/>") != 2 || strings.Count(ms, "404 Not Found") != 2 || strings.Count(ms, zeroTime) != 1 {
				t.Errorf("PROPFIND naming getlastmodified: want it in a 404 propstat for the 2 directories, the zero date for the file:\n%s", ms)
			}
			if resp, _ := e.do(t, "GET", "/index.md", nil, ""); resp.StatusCode != 200 || resp.Header.Get("Last-Modified") != "" {
				t.Errorf("GET = %d, Last-Modified %q; want 200 without Last-Modified", resp.StatusCode, resp.Header.Get("Last-Modified"))
			}
			out, err := run(t, t.TempDir(), "ls\ncd guides\nls\nquit\n", cadaver, e.srv.URL+"/")
			if err != nil {
				t.Fatalf("cadaver: %v\n%s", err, out)
			}
			// cadaver shows a collection without a time at the epoch; it
			// showed "Jan  1  1" (year 1) for webdav.Handler's date.
			for _, dir := range []string{"guides", "deep"} {
				if !regexp.MustCompile(`Coll:\s+` + dir + `\s+0\s+Jan\s+1\s+1970\n`).MatchString(out) {
					t.Errorf("cadaver does not list %s as a collection without a time:\n%s", dir, out)
				}
			}
			// index.md, read by the GET above, has a known size: cadaver
			// lists it (the unread setup.md, without getcontentlength, it
			// lists as an error, as before).
			if !regexp.MustCompile(`\n\s+index\.md\s+7\s+Jan\s+1\s+1\n`).MatchString(out) {
				t.Errorf("cadaver does not list index.md as a file:\n%s", out)
			}
		})
		t.Run(b.Name+"/with", func(t *testing.T) {
			store := b.New(t)
			times := writeWithTimes(t, store)
			e := newEnv(t, store, timeFiles, webdavfs.Options{})
			newest := t0.Add(2 * time.Hour)
			want := map[string]time.Time{
				"/":                 newest,
				"/guides/":          newest,
				"/guides/deep/":     newest,
				"/index.md":         times["index.md"],
				"/guides/setup.md":  times["guides/setup.md"],
				"/guides/deep/x.md": times["guides/deep/x.md"],
			}
			seen := 0
			for _, p := range []string{"/", "/guides/", "/guides/deep/"} {
				st, got, body := propfind(t, e, p, "1", nil)
				if st != http.StatusMultiStatus {
					t.Fatalf("PROPFIND %s = %d %s", p, st, body)
				}
				for href, en := range got {
					w, ok := want[href]
					if !ok {
						t.Errorf("PROPFIND %s: unexpected %s", p, href)
						continue
					}
					seen++
					if en.mtime != w.Format(http.TimeFormat) {
						t.Errorf("%s: getlastmodified %q; want %q", href, en.mtime, w.Format(http.TimeFormat))
					}
				}
			}
			if seen != 8 {
				t.Errorf("%d entries checked, want 8", seen)
			}
			if resp, _ := e.do(t, "GET", "/index.md", nil, ""); resp.Header.Get("Last-Modified") != t0.Format(http.TimeFormat) {
				t.Errorf("GET: Last-Modified %q; want %q", resp.Header.Get("Last-Modified"), t0.Format(http.TimeFormat))
			}
			out, err := run(t, t.TempDir(), "ls\nquit\n", cadaver, e.srv.URL+"/")
			if err != nil {
				t.Fatalf("cadaver: %v\n%s", err, out)
			}
			for _, line := range []string{`Coll:\s+guides\s+0\s+May\s+6\s+2024\n`, `\n\s+index\.md\s+7\s+May\s+6\s+2024\n`} {
				if !regexp.MustCompile(line).MatchString(out) {
					t.Errorf("cadaver listing lacks %s:\n%s", line, out)
				}
			}
		})
	}
}
