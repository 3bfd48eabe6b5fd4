package grepx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"

	"github.com/chromafs/chromafs/fscap"
	"github.com/chromafs/chromafs/regex"
)

// loading is a prefetched file that delivery waits for: done is closed
// when the file is handed over or its batch is over. A file handed over
// by a fscap.PrefetchEachFS is matched at once, on the goroutine that
// hands it over, for the first of the items that name it (item), and file
// holds the result; one loaded by a fscap.PrefetchFS's batch is read by
// the worker that reaches it. The first to take file takes it, so that a
// file named twice is read the second time, and Search keeps no file
// alive after matching it.
type loading struct {
	done chan struct{}
	once sync.Once
	item int // the first item that names the file
	file atomic.Pointer[File]
}

// finish closes done, with f, when not nil, the file's result.
func (l *loading) finish(f *File) {
	l.once.Do(func() {
		if f != nil {
			l.file.Store(f)
		}
		close(l.done)
	})
}

// Tuning of the acceleration.
const (
	// minLiteral is the length in bytes below which a required literal is
	// taken to be on nearly every page ("[0-9]{3,}" requires one of ten
	// digits): a coarse query for it costs a pass over the collection and
	// rules out nothing, so such patterns scan.
	minLiteral = 3
	// minCoarse is the number of uncached files below which reading them
	// is cheaper than a coarse query. A coarse query costs one pass over
	// the collection on Chroma, growing with it, where a batched read of a
	// few dozen pages by id is a lookup (BENCHMARKS.md, "grep"), so a
	// handful of pages is read, not filtered.
	minCoarse = 32
	// prefetchBatch is the number of files loaded per Prefetch call, and
	// prefetchAhead the number of batches in flight ahead of matching.
	prefetchBatch = 1024
	prefetchAhead = 2
	// minSplit is the fewest files below which a prefetch is not split
	// into prefetchAhead batches.
	minSplit = 128
	// window bounds how many files may be matched ahead of the one being
	// delivered, which bounds the memory held by undelivered results;
	// workers take files batch at a time.
	window = 512
	batch  = 16
)

// Search runs q over fsys and calls fn, in walk order, with each file
// that has something to report: in Lines mode files with a selected line;
// in Count mode every file in scope, zeros included, as grep -c does; in
// FilesWithMatches mode files with a selected line; in FilesWithoutMatch
// mode files without one; in every mode files whose Err is set (a missing
// operand, a directory operand without Recursive, a read error). fn
// returning an error stops the search and Search returns that error.
//
// An invalid pattern is an error wrapping *regex.Error, returned before
// anything is read. Search honours ctx throughout, compiling the patterns
// included: when ctx ends while they compile, the error is a
// *regex.CanceledError, and later the error is ctx.Err().
//
// When fsys implements fscap.CandidatesFS, files that the coarse filter
// proves free of the pattern's required literals are not read (and have
// Count 0). The filter is used only when it can change nothing but speed:
// never with Invert (a file without the literal has every line selected),
// never when the pattern has no required literal, and only when more than
// a few files would otherwise be fetched (see fscap.UncachedFS).
func Search(ctx context.Context, fsys fs.FS, q Query, fn func(*File) error) (Stats, error) {
	var st Stats
	ctx, span := startSpan(ctx, "grep")
	defer func() {
		span.SetAttributes(attribute.Int("grep.files", st.Files), attribute.Int("grep.candidates", st.Candidates), attribute.Bool("grep.coarse", st.Coarse))
		span.End()
	}()
	m, err := regex.CompileContext(ctx, regex.Options{
		Patterns:   q.Patterns,
		Syntax:     q.Syntax,
		IgnoreCase: q.IgnoreCase,
		Word:       q.Word,
		Line:       q.Line,
	})
	if err != nil {
		return st, err
	}
	if q.Trace != nil {
		q.Trace(fmt.Sprintf("compile (%d patterns)", len(q.Patterns)))
	}
	filt, err := compileFilter(&q)
	if err != nil {
		return st, err
	}
	items := scope(fsys, &q, filt)
	var names []string
	for _, it := range items {
		if it.err == nil {
			names = append(names, it.path)
		}
	}
	st.Files = len(names)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var skip map[string]bool
	var fetch []string
	if q.MaxCount >= 0 && len(names) > 0 {
		pctx, ps := startSpan(ctx, "grep coarse filter")
		skip, fetch, st.Coarse, err = plan(pctx, fsys, &q, m, names)
		ps.End()
		if err != nil {
			return st, err
		}
	}
	// The reads and the matching, interleaved.
	ctx, matching := startSpan(ctx, "grep match")
	defer matching.End()
	for _, n := range names {
		if q.MaxCount >= 0 && !skip[n] {
			st.Candidates++
		}
	}

	// match scans the content of f, a file that has no error.
	match := func(f *File, data []byte) {
		clean := m.Err() == nil
		scanFile(f, data, m, &q)
		if err := m.Err(); clean && err != nil {
			// A -P pattern gave up on a line of this file (or of one
			// matched meanwhile).
			f.Err = err
		}
	}

	// Prefetch in batches, ahead of matching; a file waits for its batch,
	// or, with a fscap.PrefetchEachFS, only for itself.
	ready := make(map[string]*loading, len(fetch))
	// prefetching counts the prefetch goroutines: a search that runs to
	// its end waits for them, so that what a batch stores after handing
	// its files over (the page cache, a shared tier such as Redis) is
	// stored when Search returns, as when matching waited for the batch.
	var prefetching sync.WaitGroup
	if _, ok := fsys.(fscap.PrefetchFS); ok && len(fetch) > 0 {
		// At least prefetchAhead batches when there are enough files, so
		// that matching starts before the last of them is loaded.
		var batches [][]string
		var owned [][]*loading
		size := min(prefetchBatch, max(minSplit, (len(fetch)+prefetchAhead-1)/prefetchAhead))
		slab := make([]loading, len(fetch))
		for i := 0; i < len(fetch); i += size {
			b := fetch[i:min(i+size, len(fetch))]
			var own []*loading
			for _, n := range b {
				if _, ok := ready[n]; !ok { // a repeated name waits for its first batch
					l := &slab[len(ready)]
					l.done, l.item = make(chan struct{}), -1
					ready[n] = l
					own = append(own, l)
				}
			}
			batches, owned = append(batches, b), append(owned, own)
		}
		for i, it := range items {
			if l := ready[it.path]; l != nil && l.item < 0 && it.err == nil {
				l.item = i
			}
		}
		// handed is called by PrefetchEach, possibly concurrently; ready
		// is not written once the batches are made. Matching each file
		// as it comes, rather than when the workers, which take files in
		// walk order, reach it, keeps up with a store that answers the
		// batches' parts out of walk order: the files of a part that
		// comes in early are matched while the parts before it are still
		// in flight, not after the last answer.
		handed := func(name string, data []byte) {
			l := ready[name]
			if l == nil || l.item < 0 {
				return
			}
			select {
			case <-l.done: // handed over before, or its batch is over
				return
			default:
			}
			if ctx.Err() != nil {
				l.finish(nil)
				return
			}
			it := items[l.item]
			f := &File{Operand: it.operand, Path: it.path}
			match(f, data)
			l.finish(f)
		}
		sem := make(chan struct{}, prefetchAhead)
		prefetching.Add(1)
		go func() {
			defer prefetching.Done()
			for i, b := range batches {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				prefetching.Add(1)
				go func() {
					defer prefetching.Done()
					// A failed prefetch is not an error here: reading the
					// file fetches it again and reports its own error. A
					// PrefetchFS that is not a PrefetchEachFS hands over
					// nothing: its batch's files are read when it is over.
					_ = fscap.PrefetchEach(ctx, fsys, b, handed)
					for _, l := range owned[i] {
						l.finish(nil)
					}
					<-sem
				}()
			}
		}()
	}

	// Workers match batches of files; the caller's goroutine delivers
	// them in order. Credits bound how far matching runs ahead.
	nb := (len(items) + batch - 1) / batch
	files := make([]*File, len(items))
	done := make([]chan struct{}, nb)
	for i := range done {
		done[i] = make(chan struct{})
	}
	work := make(chan int)
	credits := make(chan struct{}, window/batch)
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				for i := b * batch; i < min((b+1)*batch, len(items)); i++ {
					it := items[i]
					f := &File{Operand: it.operand, Path: it.path, Err: it.err}
					if it.err == nil && q.MaxCount >= 0 && !skip[it.path] && ctx.Err() == nil {
						matched := false
						if l, ok := ready[it.path]; ok {
							select {
							case <-l.done:
								if l.item == i {
									if p := l.file.Swap(nil); p != nil {
										f, matched = p, true
									}
								}
							case <-ctx.Done():
							}
						}
						if !matched {
							if data, err := fscap.ReadFileShared(fsys, it.path); err != nil {
								f.Err = err
							} else {
								match(f, data)
							}
						}
					}
					files[i] = f
				}
				close(done[b])
			}
		}()
	}
	go func() {
		defer close(work)
		for b := range nb {
			select {
			case credits <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case work <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	defer cancel()

	var lines, bytesOut int
	for b := range nb {
		select {
		case <-done[b]:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			// Files of this batch may have been left unread.
			return st, err
		}
		for i := b * batch; i < min((b+1)*batch, len(items)); i++ {
			f := files[i]
			files[i] = nil
			if !report(&q, f) {
				continue
			}
			if errors.Is(f.Err, regex.ErrMatchLimit) {
				// GNU grep -P stops at the first line PCRE2 gives up on.
				return st, fn(f)
			}
			if trimmed := limit(&q, f, &lines, &bytesOut); trimmed {
				st.Truncated = true
				if q.Mode == Lines && len(f.Lines) == 0 {
					return st, nil
				}
				return st, fn(f)
			}
			if err := fn(f); err != nil {
				return st, err
			}
		}
		<-credits
	}
	prefetching.Wait()
	return st, nil
}

// report reports whether a file is delivered in q's mode.
func report(q *Query, f *File) bool {
	if f.Err != nil {
		return true
	}
	switch q.Mode {
	case Count:
		return true
	case FilesWithoutMatch:
		return f.Count == 0
	default:
		return f.Count > 0
	}
}

// limit applies MaxMatches and MaxBytes to f given what was already
// delivered, trimming f, and reports whether the limits stop the search.
func limit(q *Query, f *File, lines, bytesOut *int) bool {
	if q.MaxMatches <= 0 && q.MaxBytes <= 0 {
		return false
	}
	if f.Err != nil {
		return false
	}
	if q.Mode != Lines {
		*lines++
		return q.MaxMatches > 0 && *lines >= q.MaxMatches
	}
	selected := 0
	for i, l := range f.Lines {
		size := len(l.Text) + 1
		if q.MaxBytes > 0 && *bytesOut+size > q.MaxBytes {
			f.Lines = f.Lines[:i]
			f.Count = selected
			return true
		}
		*bytesOut += size
		if !l.Context {
			selected++
			*lines++
			if q.MaxMatches > 0 && *lines >= q.MaxMatches {
				f.Lines = f.Lines[:i+1]
				f.Count = selected
				return true
			}
		}
	}
	return false
}

// selective reports whether a literal set is worth a coarse query: every
// literal has at least minLiteral bytes.
func selective(lits []string) bool {
	for _, l := range lits {
		if len(l) < minLiteral {
			return false
		}
	}
	return true
}

// plan decides which files the coarse filter rules out (skip) and which
// to prefetch. It never fails the search: if the filter fails, every file
// is read, and each read reports its own error.
func plan(ctx context.Context, fsys fs.FS, q *Query, m *regex.Matcher, names []string) (skip map[string]bool, fetch []string, coarse bool, err error) {
	uncached := fscap.Uncached(ctx, fsys, names)
	if len(uncached) == 0 {
		return nil, nil, false, nil
	}
	cf, ok := fsys.(fscap.CandidatesFS)
	if !ok {
		return nil, uncached, false, nil
	}
	skipped := func(why string) {
		if q.Trace != nil {
			q.Trace(fmt.Sprintf("coarse filter skipped (%s): all %d uncached files read", why, len(uncached)))
		}
	}
	if q.Invert {
		skipped("-v")
		return nil, uncached, false, nil
	}
	if len(uncached) < minCoarse {
		skipped(fmt.Sprintf("fewer than %d uncached files", minCoarse))
		return nil, uncached, false, nil
	}
	lits, fold, ok := m.Literals()
	if !ok {
		skipped(m.NoLiterals())
		return nil, uncached, false, nil
	}
	if !selective(lits) {
		skipped(fmt.Sprintf("a required literal is shorter than %d bytes", minLiteral))
		return nil, uncached, false, nil
	}
	cands, err := cf.Candidates(ctx, uncached, lits, fold)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		return nil, uncached, false, nil
	}
	in := make(map[string]bool, len(cands))
	for _, c := range cands {
		in[c] = true
	}
	skip = make(map[string]bool, len(uncached)-len(cands))
	for _, n := range uncached {
		if in[n] {
			fetch = append(fetch, n)
		} else {
			skip[n] = true
		}
	}
	return skip, fetch, true, nil
}
