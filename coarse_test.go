package chromafs_test

import (
	"context"
	"slices"
	"testing"

	"github.com/chromafs/chromafs"
	"github.com/chromafs/chromafs/memstore"
)

// TestCandidatesRemembered: a repeated Candidates call, in the same or
// another session of one Shared, whatever its groups or its names, asks the
// store only about pages no earlier call asked about, and answers as a
// session with a Shared of its own does; another Shared, another literal
// set, fold, and Drop ask again.
func TestCandidatesRemembered(t *testing.T) {
	files := corpus(t)
	files["guides/straddle.md"] = "x" + "access_token" + "\n"
	// 7-byte chunks cut mid-line: pages need the boundary queries.
	mem := newMem(t, files, memstore.LoadOptions{ChunkSize: 7})
	ctx := context.Background()
	sh := chromafs.NewShared(0)
	public := mustNew(t, mem, chromafs.WithShared(sh))
	staff := mustNew(t, mem, chromafs.WithShared(sh), chromafs.WithGroups("staff"))
	pubNames, staffNames := allFiles(t, public), allFiles(t, staff)

	// want is what a session with a Shared of its own answers.
	want := func(names, lits []string, fold bool, groups ...string) []string {
		t.Helper()
		fresh := mustNew(t, mem, chromafs.WithShared(chromafs.NewShared(0)), chromafs.WithGroups(groups...))
		got, err := fresh.Candidates(ctx, names, lits, fold)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	call := func(fsys *chromafs.FS, names, lits []string, fold bool, wantSearch bool, wantOut []string) {
		t.Helper()
		mem.ResetRequests()
		got, err := fsys.Candidates(ctx, names, lits, fold)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, wantOut) {
			t.Errorf("Candidates(%d names, %q, fold=%v) = %q; want %q", len(names), lits, fold, got, wantOut)
		}
		if n := mem.Requests().Search; (n > 0) != wantSearch {
			t.Errorf("Candidates(%d names, %q, fold=%v): %d searches; want any: %v", len(names), lits, fold, n, wantSearch)
		}
		checkCandidates(t, fsys, names, lits, fold, got)
	}

	lits := []string{"access_token"}
	wantPub := want(pubNames, lits, false)
	wantStaff := want(staffNames, lits, false, "staff")
	if !slices.Contains(wantPub, "guides/straddle.md") || len(wantStaff) <= len(wantPub) {
		t.Fatalf("corpus: public candidates %q, staff %q", wantPub, wantStaff)
	}
	call(public, pubNames, lits, false, true, wantPub)
	call(public, pubNames, lits, false, false, wantPub)
	call(public, pubNames[:len(pubNames)/2], lits, false, false, want(pubNames[:len(pubNames)/2], lits, false))
	// Another session, another view: only the pages the public one did
	// not see are asked about.
	call(staff, staffNames, lits, false, true, wantStaff)
	call(staff, staffNames, lits, false, false, wantStaff)
	again := mustNew(t, mem, chromafs.WithShared(sh))
	reversed := slices.Clone(pubNames)
	slices.Reverse(reversed)
	call(again, reversed, lits, false, false, want(reversed, lits, false))
	// A Sub view names pages from its root.
	sub, err := public.Sub("guides")
	if err != nil {
		t.Fatal(err)
	}
	subNames := allFiles(t, sub)
	got, err := sub.(*chromafs.FS).Candidates(ctx, subNames, lits, false)
	if err != nil || !slices.Contains(got, "straddle.md") {
		t.Errorf("Sub(guides).Candidates = %q, %v; want straddle.md among them", got, err)
	}

	// Another literal set, fold, another Shared: asked again.
	call(public, pubNames, []string{"access_token", "webhook"}, false, true, want(pubNames, []string{"access_token", "webhook"}, false))
	call(public, pubNames, lits, true, true, want(pubNames, lits, true))
	other := mustNew(t, mem, chromafs.WithShared(chromafs.NewShared(0)))
	call(other, pubNames, lits, false, true, wantPub)
	// Drop forgets them.
	sh.Drop(mem.CollectionID())
	call(mustNew(t, mem, chromafs.WithShared(sh)), pubNames, lits, false, true, wantPub)
}
