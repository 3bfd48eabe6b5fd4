package ingest

import (
	"reflect"
	"testing"
	"time"

	"github.com/chromafs/chromafs/tree"
)

func TestPageEntry(t *testing.T) {
	// A mod time with nanoseconds, in a zone east of UTC.
	local := time.Date(2024, 3, 1, 10, 30, 15, 987654321, time.FixedZone("CET", 3600))
	utc := time.Date(2024, 3, 1, 9, 30, 15, 0, time.UTC)
	tests := []struct {
		name       string
		slug       string
		content    string
		modTime    time.Time
		isPublic   bool
		groups     []string
		chunks     int
		splitLines bool
		want       tree.Entry
	}{
		{
			name: "empty public page", slug: "empty.txt", content: "", modTime: utc,
			isPublic: true, chunks: 1,
			want: tree.Entry{
				Slug: "empty.txt", IsPublic: true, HasIsPublic: true, Size: 0, ModTime: utc,
				Hash:        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
				ContentType: "text/plain; charset=utf-8", Chunks: 1,
			},
		},
		{
			name: "markdown, private, mod time in UTC and whole seconds", slug: "guide/intro.md",
			content: "# Title\n\nbody\n", modTime: local, groups: []string{"staff"}, chunks: 3, splitLines: true,
			want: tree.Entry{
				Slug: "guide/intro.md", HasIsPublic: true, Groups: []string{"staff"}, Size: 14, ModTime: utc,
				Hash:        "sha256:d58d548bdb9b18792c6f5a4b1538f79fffd01f37466065452c137eabc7f3ee37",
				ContentType: "text/markdown; charset=utf-8", Chunks: 3, SplitLines: true,
			},
		},
		{
			name: "no extension: sniffed", slug: "README", content: "hello\n", modTime: utc,
			isPublic: true, chunks: 1,
			want: tree.Entry{
				Slug: "README", IsPublic: true, HasIsPublic: true, Size: 6, ModTime: utc,
				Hash:        "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
				ContentType: "text/plain; charset=utf-8", Chunks: 1,
			},
		},
		{
			name: "html, zero mod time", slug: "site/index.html", content: "<html><body>x</body></html>",
			isPublic: true, chunks: 1,
			want: tree.Entry{
				Slug: "site/index.html", IsPublic: true, HasIsPublic: true, Size: 27,
				Hash:        "sha256:0278ec47b5f21edf3ae433fb9e7951474c5b7f34d7975c2bf4e8b78ac75bdcd8",
				ContentType: "text/html; charset=utf-8", Chunks: 1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PageEntry(tt.slug, []byte(tt.content), tt.modTime, tt.isPublic, tt.groups, tt.chunks, tt.splitLines)
			if !got.ModTime.Equal(tt.want.ModTime) || got.ModTime.Location() != time.UTC {
				t.Errorf("ModTime = %v, want %v in UTC", got.ModTime, tt.want.ModTime)
			}
			got.ModTime, tt.want.ModTime = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PageEntry = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestPageEntryRoundTrip checks that an entry from PageEntry survives the
// tree format unchanged: what ingest builds is what readers parse.
func TestPageEntryRoundTrip(t *testing.T) {
	mod := time.Date(2025, 6, 30, 23, 59, 59, 500, time.UTC)
	want := PageEntry("docs/a b/ü.md", []byte("line one\nline two\n"), mod, false, []string{"eng", "ops"}, 2, true)
	for _, compressed := range []bool{false, true} {
		doc, err := tree.Encode([]tree.Entry{want}, compressed)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tree.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tr.Entry(want.Slug)
		if !ok {
			t.Fatalf("compressed=%v: entry %q not in the parsed tree", compressed, want.Slug)
		}
		if !got.ModTime.Equal(want.ModTime) {
			t.Errorf("compressed=%v: ModTime %v, want %v", compressed, got.ModTime, want.ModTime)
		}
		g, w := *got, want
		g.ModTime, w.ModTime = time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("compressed=%v: parsed %+v\nwant %+v", compressed, g, w)
		}
	}
}
