package treeindex

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/chromafs/chromafs/tree"
)

// ErrCorrupt is wrapped by the errors of Decode and DecodeDocument for a
// payload that is not a valid index. It wraps tree.ErrMalformed.
var ErrCorrupt = fmt.Errorf("%w: corrupt tree index", tree.ErrMalformed)

// Index is a decoded index.
type Index struct {
	// Stamp is the version of the JSON tree document the index was made
	// from (collection.TreeVersionOf).
	Stamp string
	// Metadata is the tree record's metadata as the index carries it
	// (JSON numbers are float64).
	Metadata map[string]any
	// Tree is the tree.
	Tree *tree.Tree
}

// Header is what ReadHeader reads: the part of an index that comes before
// its entries.
type Header struct {
	Stamp    string
	Metadata map[string]any
	// Entries is the number of entries the index declares.
	Entries int
	// Codec is the blocks' codec.
	Codec Codec

	groups, types []string
	rules         []rule
	blocks        []blockInfo
	data          []byte // the blocks, back to back; nil when read from b64
	dataLen       int    // their length

	// b64 is the base64 text of the payload of a document read by
	// ReadDocument, whose blocks start at payload byte dataOff: a block
	// is decoded from it when it is needed.
	b64     []byte
	dataOff int

	// Version 2 only: the root directory, the directory table's size and
	// its blocks; dirs is nil for version 1.
	root      *tree.Dir
	dirs      int
	dirBlocks []dirBlockInfo
}

// dirBlockInfo is a block of the directory table: its directories, the
// path of the first, and its bytes (in the header).
type dirBlockInfo struct {
	n     int
	first string
	b     []byte
}

type rule struct {
	isPublic, hasIsPublic bool
	groups                []string
	count                 int // version 2
}

type blockInfo struct {
	entries, raw, enc int
	first             string // version 2
	off               int    // in data
}

// ReadHeader reads the header of payload (stamp, metadata, the tables and
// the block directory) without inflating anything, so that a reader can
// check the stamp before it decodes the entries.
func ReadHeader(payload []byte) (*Header, error) {
	head := string(payload[:min(len(payload), len(magic))])
	v2 := head == magic
	if !v2 && head != magicV1 {
		if len(payload) >= 4 && string(payload[:4]) == magic[:4] {
			return nil, fmt.Errorf("%w: format version %d, want %d or %d (written by a newer chromafs?)", ErrCorrupt, payload[min(4, len(payload)-1)], magicV1[4], magic[4])
		}
		return nil, fmt.Errorf("%w: not a tree index (bad magic)", ErrCorrupt)
	}
	if len(payload) < len(magic)+4 {
		return nil, fmt.Errorf("%w: truncated", ErrCorrupt)
	}
	sum := binary.LittleEndian.Uint32(payload[len(payload)-4:])
	payload = payload[:len(payload)-4]
	if crc32.Checksum(payload, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or altered)", ErrCorrupt)
	}
	end, err := headerEnd(payload)
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(payload[:end], len(payload)-end, v2)
	if err != nil {
		return nil, err
	}
	h.data = payload[end:]
	return h, nil
}

// headerEnd returns where the header of payload (which starts with a
// magic) ends: the blocks start there.
func headerEnd(payload []byte) (int, error) {
	r := &reader{b: payload, i: len(magic)}
	r.byte() // the codec
	n := r.length("header")
	if r.err != nil {
		return 0, corrupt(r.err)
	}
	return r.i + n, nil
}

// parseHeader reads the payload's part before its blocks, head (magic,
// codec, header), for blocks of dataLen bytes.
func parseHeader(head []byte, dataLen int, v2 bool) (*Header, error) {
	r := &reader{b: head, i: len(magic)}
	h := &Header{Codec: Codec(r.byte())}
	if r.err == nil && h.Codec != Stored && h.Codec != Zstd {
		return nil, fmt.Errorf("%w: unknown codec %d", ErrCorrupt, h.Codec)
	}
	n := r.length("header")
	if r.err != nil {
		return nil, corrupt(r.err)
	}
	hr := &reader{b: head[r.i : r.i+n]}
	h.dataLen = dataLen

	h.Stamp = hr.str("stamp")
	meta := hr.str("metadata")
	if hr.err == nil && len(meta) > maxMetaBytes {
		return nil, fmt.Errorf("%w: metadata of %d bytes exceeds %d", ErrCorrupt, len(meta), maxMetaBytes)
	}
	h.groups = hr.strs("groups")
	h.types = hr.strs("content types")
	nr := hr.count("rules", 2)
	if hr.err != nil {
		return nil, corrupt(hr.err)
	}
	h.rules = make([]rule, nr)
	for i := range h.rules {
		f := hr.byte()
		if f&^ruleAll != 0 && hr.err == nil {
			return nil, fmt.Errorf("%w: rule %d: unknown flags %#x", ErrCorrupt, i, f)
		}
		ng := hr.count("rule groups", 1)
		if hr.err != nil {
			return nil, corrupt(hr.err)
		}
		ru := rule{isPublic: f&ruleIsPublic != 0, hasIsPublic: f&ruleHasIsPublic != 0}
		var groups []string
		if f&ruleGroups != 0 {
			groups = make([]string, ng)
		} else if ng > 0 {
			return nil, fmt.Errorf("%w: rule %d has groups but no groups flag", ErrCorrupt, i)
		}
		for j := range ng {
			id := hr.uvarint()
			if id >= uint64(len(h.groups)) && hr.err == nil {
				return nil, fmt.Errorf("%w: rule %d names group %d of %d", ErrCorrupt, i, id, len(h.groups))
			}
			if hr.err != nil {
				return nil, corrupt(hr.err)
			}
			groups[j] = h.groups[id]
		}
		ru.groups = groups
		if v2 {
			c := hr.uvarint()
			if c > uint64(len(head)+dataLen) && hr.err == nil {
				return nil, fmt.Errorf("%w: rule %d counts %d entries", ErrCorrupt, i, c)
			}
			ru.count = int(c)
		}
		h.rules[i] = ru
	}
	total := hr.uvarint()
	nb := hr.count("blocks", 3)
	if hr.err != nil {
		return nil, corrupt(hr.err)
	}
	h.blocks = make([]blockInfo, nb)
	sumEntries, sumEnc := uint64(0), uint64(0)
	for i := range h.blocks {
		e, raw, enc := hr.uvarint(), hr.uvarint(), hr.uvarint()
		if hr.err != nil {
			return nil, corrupt(hr.err)
		}
		if e == 0 || e > BlockEntries || raw > maxBlockBytes || raw < minEntryBytes*e || enc > uint64(h.dataLen) {
			return nil, fmt.Errorf("%w: block %d: %d entries, %d raw bytes, %d encoded bytes", ErrCorrupt, i, e, raw, enc)
		}
		var first string
		if v2 {
			if first = hr.str("first path"); hr.err != nil {
				return nil, corrupt(hr.err)
			}
		}
		h.blocks[i] = blockInfo{entries: int(e), raw: int(raw), enc: int(enc), first: first, off: int(sumEnc)}
		sumEntries += e
		sumEnc += enc
	}
	if v2 {
		if err := h.readDirs(hr, total); err != nil {
			return nil, err
		}
	}
	if hr.i != len(hr.b) {
		return nil, fmt.Errorf("%w: %d bytes after the header's fields", ErrCorrupt, len(hr.b)-hr.i)
	}
	if sumEntries != total {
		return nil, fmt.Errorf("%w: the blocks hold %d entries, the header declares %d", ErrCorrupt, sumEntries, total)
	}
	if sumEnc != uint64(h.dataLen) {
		return nil, fmt.Errorf("%w: the blocks take %d bytes, %d follow the header", ErrCorrupt, sumEnc, h.dataLen)
	}
	h.Entries = int(total)
	if err := json.Unmarshal([]byte(meta), &h.Metadata); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrCorrupt, err)
	}
	return h, nil
}

// minEntryBytes is the fewest raw bytes an entry takes in a block: the
// two lengths of its path and five fields.
const minEntryBytes = 7

// maxEntriesPerByte bounds the entries a lazy tree accepts for the size
// of its payload: an index declaring more (a few bytes that claim
// millions of entries) is refused before the tree's tables are made.
// Ingest's indexes hold an entry in 3 to 50 bytes.
const maxEntriesPerByte = 64

// readDirs reads the root's rules and the directory table's directory
// of a version 2 header; the table's blocks are read when a tree needs
// them (readDirBlock).
func (h *Header) readDirs(hr *reader, total uint64) error {
	root := &tree.Dir{Path: ".", Lo: 0, Hi: int(total)}
	rts, err := readRuleTimes(hr, len(h.rules), nil)
	if err != nil {
		return err
	}
	root.Rules = rts
	nd := hr.count("directories", 5)
	nb := hr.count("directory blocks", 3)
	if hr.err != nil {
		return corrupt(hr.err)
	}
	root.End = nd + 1
	h.dirBlocks = make([]dirBlockInfo, nb)
	sum, size := 0, 0
	for b := range h.dirBlocks {
		n := hr.uvarint()
		first := hr.str("directory")
		length := hr.uvarint()
		if hr.err != nil {
			return corrupt(hr.err)
		}
		if n == 0 || n > uint64(nd-sum) || length > uint64(len(hr.b)) {
			return fmt.Errorf("%w: directory block %d: %d directories, %d bytes", ErrCorrupt, b, n, length)
		}
		h.dirBlocks[b] = dirBlockInfo{n: int(n), first: first}
		sum += int(n)
		size += int(length)
		h.dirBlocks[b].b = hr.b[:length] // the length, for now
	}
	if sum != nd || size > len(hr.b)-hr.i {
		return fmt.Errorf("%w: the directory blocks hold %d directories in %d bytes, the header %d and %d", ErrCorrupt, sum, size, nd, len(hr.b)-hr.i)
	}
	for b := range h.dirBlocks {
		n := len(h.dirBlocks[b].b)
		h.dirBlocks[b].b = hr.b[hr.i : hr.i+n : hr.i+n]
		hr.i += n
	}
	h.root, h.dirs = root, nd
	return nil
}

// readRuleTimes reads the rules below a directory (appendRuleTimes),
// appending them to rts.
func readRuleTimes(hr *reader, nrules int, rts []tree.RuleTime) ([]tree.RuleTime, error) {
	nr := hr.count("directory rules", 2)
	if hr.err != nil {
		return nil, corrupt(hr.err)
	}
	r := -1
	for range nr {
		r += int(min(hr.uvarint(), uint64(nrules))) + 1
		var mt time.Time
		switch kind := hr.byte(); kind {
		case 0:
		case 1, 2:
			sec := hr.varint()
			var nsec uint64
			if kind == 2 {
				nsec = hr.uvarint()
			}
			if hr.err == nil && (nsec >= 1e9 || sec < minUnix || sec > maxUnix) {
				return nil, fmt.Errorf("%w: directory time %d.%09d out of range", ErrCorrupt, sec, nsec)
			}
			mt = time.Unix(sec, int64(nsec)).UTC()
		default:
			if hr.err == nil {
				return nil, fmt.Errorf("%w: directory time kind %d", ErrCorrupt, kind)
			}
		}
		if hr.err != nil {
			return nil, corrupt(hr.err)
		}
		if r >= nrules {
			return nil, fmt.Errorf("%w: directory rule %d of %d", ErrCorrupt, r, nrules)
		}
		rts = append(rts, tree.RuleTime{Rule: r, ModTime: mt})
	}
	return rts, nil
}

// readDirBlock decodes directory block b, whose first directory is at
// position start of the table, into out.
func (h *Header) readDirBlock(b, start int, out []tree.Dir) error {
	blk := h.dirBlocks[b]
	if len(out) != blk.n {
		return fmt.Errorf("%w: directory block %d: %d directories, want %d", ErrCorrupt, b, blk.n, len(out))
	}
	hr := &reader{b: blk.b}
	var paths []byte
	ends := make([]int, len(out))
	var rts []tree.RuleTime
	rtEnds := make([]int, len(out))
	prev := 0 // where the previous path starts in paths
	for k := range out {
		shared := hr.uvarint()
		rest := hr.length("directory")
		if hr.err == nil && shared > uint64(len(paths)-prev) {
			return fmt.Errorf("%w: directory %d shares %d bytes with a path of %d", ErrCorrupt, start+k, shared, len(paths)-prev)
		}
		if hr.err != nil {
			return fmt.Errorf("%w: directory block %d: %v", ErrCorrupt, b, hr.err)
		}
		at := len(paths)
		paths = append(paths, paths[prev:prev+int(shared)]...)
		paths = append(paths, hr.b[hr.i:hr.i+rest]...)
		prev = at
		hr.i += rest
		lo, n, desc := hr.uvarint(), hr.uvarint(), hr.uvarint()
		if hr.err != nil {
			return fmt.Errorf("%w: directory block %d: %v", ErrCorrupt, b, hr.err)
		}
		if lo > math.MaxInt32 || n > math.MaxInt32 || desc > math.MaxInt32 {
			return fmt.Errorf("%w: directory %d: entries %d and %d, %d below", ErrCorrupt, start+k, lo, n, desc)
		}
		out[k] = tree.Dir{Lo: int(lo), Hi: int(lo + n), End: start + k + 1 + int(desc)}
		ends[k] = len(paths)
		var err error
		if rts, err = readRuleTimes(hr, len(h.rules), rts); err != nil {
			return err
		}
		rtEnds[k] = len(rts)
	}
	if hr.i != len(hr.b) {
		return fmt.Errorf("%w: directory block %d: %d bytes left", ErrCorrupt, b, len(hr.b)-hr.i)
	}
	all := string(paths)
	rts = slices.Clip(rts)
	from, rfrom := 0, 0
	for k := range out {
		out[k].Path = all[from:ends[k]]
		out[k].Rules = rts[rfrom:rtEnds[k]:rtEnds[k]]
		from, rfrom = ends[k], rtEnds[k]
	}
	return nil
}

// Lazy returns the tree of an index whose entries are decoded a block
// at a time, when a lookup, a listing or a walk first needs them
// (tree.NewLazy), for a header of format version 2; ok is false for an
// index of version 1, which the caller decodes with Decode. The header's
// summary is checked at once, within the limits l (the raw size the
// blocks declare, which the decoder never exceeds); each block is checked
// as Decode checks it when it is decoded, and one that fails is reported
// to onError (when set) and served nowhere. A lazy tree keeps the payload.
func (h *Header) Lazy(l tree.Limits, onError func(error)) (ix *Index, ok bool, err error) {
	if h.root == nil {
		return nil, false, nil
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = tree.DefaultMaxBytes
	}
	if l.BytesPerEntry <= 0 {
		l.BytesPerEntry = tree.DefaultBytesPerEntry
	}
	if h.Entries > maxEntriesPerByte*(h.dataLen+1) {
		return nil, false, fmt.Errorf("treeindex: %w: %d entries declared in %d bytes of blocks", ErrCorrupt, h.Entries, h.dataLen)
	}
	var raw int64
	for _, b := range h.blocks {
		raw += int64(b.raw)
	}
	allowed := l.MaxBytes
	if c := int64(h.Entries); c < (allowed-tree.BaseBytes)/l.BytesPerEntry {
		allowed = tree.BaseBytes + l.BytesPerEntry*c
	}
	if raw > allowed {
		return nil, false, fmt.Errorf("treeindex: %w: the blocks declare %d bytes for %d entries, where %d bytes plus %d per entry are allowed (Limits.BytesPerEntry), at most %d (Limits.MaxBytes)",
			tree.ErrTooLarge, raw, h.Entries, tree.BaseBytes, l.BytesPerEntry, l.MaxBytes)
	}
	src := tree.Source{
		Entries:   h.Entries,
		Rules:     make([]tree.Rule, len(h.rules)),
		Blocks:    make([]tree.Block, len(h.blocks)),
		Root:      *h.root,
		Dirs:      h.dirs,
		DirBlocks: make([]tree.Block, len(h.dirBlocks)),
		OnError:   onError,
	}
	start := 1
	for b, bl := range h.dirBlocks {
		src.DirBlocks[b] = tree.Block{First: bl.first, Start: start}
		start += bl.n
	}
	src.DecodeDirs = func(b int, out []tree.Dir) error {
		return h.readDirBlock(b, src.DirBlocks[b].Start, out)
	}
	for r, ru := range h.rules {
		src.Rules[r] = tree.Rule{IsPublic: ru.isPublic, HasIsPublic: ru.hasIsPublic, Groups: ru.groups, Count: ru.count}
	}
	start = 0
	for b, bl := range h.blocks {
		src.Blocks[b] = tree.Block{First: bl.first, Start: start}
		start += bl.entries
	}
	src.Decode = func(b int, out []tree.Entry, rules []int32) error {
		raw, err := h.inflate(b)
		if err != nil {
			return err
		}
		pathsLen, pathsEnd, err := measurePaths(raw, len(out))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if err := h.decodeBlock(out, rules, raw, pathsLen, pathsEnd); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil
	}
	t, err := tree.NewLazy(src)
	if err != nil {
		return nil, false, fmt.Errorf("treeindex: %w: %v", ErrCorrupt, err)
	}
	return &Index{Stamp: h.Stamp, Metadata: h.Metadata, Tree: t}, true, nil
}

// checkSummary checks the summary of a version 2 header (rule counts,
// first paths of the blocks, directory table) against the entries it
// summarises and their rules.
func (h *Header) checkSummary(entries []tree.Entry, rules []int32) error {
	dirs, counts := tree.Summarize(entries, rules, len(h.rules))
	for r, c := range counts {
		if h.rules[r].count != c {
			return fmt.Errorf("rule %d counts %d entries, %d name it", r, h.rules[r].count, c)
		}
	}
	start := 0
	for b, bl := range h.blocks {
		if bl.first != entries[start].Slug {
			return fmt.Errorf("block %d: first path %q, its first entry is %q", b, bl.first, entries[start].Slug)
		}
		start += bl.entries
	}
	if len(dirs)-1 != h.dirs {
		return fmt.Errorf("%d directories in the table, the entries have %d", h.dirs, len(dirs)-1)
	}
	got := []tree.Dir{*h.root}
	start = 1
	for b, bl := range h.dirBlocks {
		out := make([]tree.Dir, bl.n)
		if err := h.readDirBlock(b, start, out); err != nil {
			return err
		}
		if out[0].Path != bl.first {
			return fmt.Errorf("directory block %d: first path %q, its first directory is %q", b, bl.first, out[0].Path)
		}
		got = append(got, out...)
		start += bl.n
	}
	for d := range dirs {
		a, b := &dirs[d], &got[d]
		if a.Path != b.Path || a.Lo != b.Lo || a.Hi != b.Hi || a.End != b.End || len(a.Rules) != len(b.Rules) {
			return fmt.Errorf("directory %d: %q in the table, %q from the entries", d, b.Path, a.Path)
		}
		for k := range a.Rules {
			if a.Rules[k].Rule != b.Rules[k].Rule || !a.Rules[k].ModTime.Equal(b.Rules[k].ModTime) {
				return fmt.Errorf("directory %q: rules differ from the entries'", a.Path)
			}
		}
	}
	return nil
}

// blockData returns the encoded bytes of block b: a slice of the payload,
// or, for a header that ReadDocument read, the block's part of the base64
// text decoded.
func (h *Header) blockData(b int) ([]byte, error) {
	bl := h.blocks[b]
	if h.b64 == nil {
		return h.data[bl.off : bl.off+bl.enc], nil
	}
	return decodeRange(h.b64, h.dataOff+bl.off, bl.enc)
}

// decodeRange decodes the bytes [off, off+n) of the payload whose
// standard base64 (without line breaks) is b64: the 4-character groups
// that hold them.
func decodeRange(b64 []byte, off, n int) ([]byte, error) {
	lo, hi := off/3*4, min((off+n+2)/3*4, len(b64))
	buf := make([]byte, base64.StdEncoding.DecodedLen(hi-lo))
	got, err := base64.StdEncoding.Decode(buf, b64[lo:hi])
	if err != nil {
		return nil, fmt.Errorf("%w: base64: %v", ErrCorrupt, err)
	}
	from := off - off/3*3
	if from+n > got {
		return nil, fmt.Errorf("%w: truncated base64", ErrCorrupt)
	}
	return buf[from : from+n : from+n], nil
}

// inflate returns the raw bytes of block b.
func (h *Header) inflate(b int) ([]byte, error) {
	bl := h.blocks[b]
	enc, err := h.blockData(b)
	if err != nil {
		return nil, err
	}
	switch h.Codec {
	case Stored:
		if bl.enc != bl.raw {
			return nil, fmt.Errorf("%w: stored block %d: %d bytes, declared %d", ErrCorrupt, b, bl.enc, bl.raw)
		}
		return enc, nil
	default:
		// The decoder inflates no more than the capacity given
		// (zstd.WithDecodeAllCapLimit): a frame that declares or holds
		// more than the block's size fails without inflating it.
		raw, err := decoder().DecodeAll(enc, make([]byte, 0, bl.raw))
		if err != nil {
			return nil, fmt.Errorf("%w: block %d: zstd: %v", ErrCorrupt, b, err)
		}
		if len(raw) != bl.raw {
			return nil, fmt.Errorf("%w: block %d inflates to %d bytes, declared %d", ErrCorrupt, b, len(raw), bl.raw)
		}
		return raw, nil
	}
}

// Decode decodes an index payload within the limits l (see the package
// documentation, section "Limits").
func Decode(payload []byte, l tree.Limits) (*Index, error) {
	h, err := ReadHeader(payload)
	if err != nil {
		return nil, fmt.Errorf("treeindex: %w", err)
	}
	return h.Decode(l)
}

// Decode decodes the entries of the index whose header h is.
func (h *Header) Decode(l tree.Limits) (*Index, error) {
	if l.MaxBytes <= 0 {
		l.MaxBytes = tree.DefaultMaxBytes
	}
	if l.BytesPerEntry <= 0 {
		l.BytesPerEntry = tree.DefaultBytesPerEntry
	}
	// Inflate the blocks in order, each only if the limits allow it after
	// the entries of the blocks before it were counted (their paths
	// read); then decode them into entries, in parallel.
	type block struct {
		raw      []byte
		n, off   int
		pathsLen int // the bytes of the block's paths, whole
		pathsEnd int // where its paths' section ends
	}
	blocks := make([]block, len(h.blocks))
	var rawSoFar int64
	counted := 0
	for bi, b := range h.blocks {
		allowed := l.MaxBytes
		if c := int64(counted); c < (allowed-tree.BaseBytes)/l.BytesPerEntry {
			allowed = tree.BaseBytes + l.BytesPerEntry*c
		}
		if rawSoFar+int64(b.raw) > allowed {
			return nil, fmt.Errorf("treeindex: %w: block %d would make %d bytes with %d entries decoded, where %d bytes plus %d per entry are allowed (Limits.BytesPerEntry), at most %d (Limits.MaxBytes)",
				tree.ErrTooLarge, bi, rawSoFar+int64(b.raw), counted, tree.BaseBytes, l.BytesPerEntry, l.MaxBytes)
		}
		rawSoFar += int64(b.raw)
		raw, err := h.inflate(bi)
		if err != nil {
			return nil, fmt.Errorf("treeindex: %w", err)
		}
		pathsLen, pathsEnd, err := measurePaths(raw, b.entries)
		if err != nil {
			return nil, fmt.Errorf("treeindex: %w: block %d: %v", ErrCorrupt, bi, err)
		}
		blocks[bi] = block{raw: raw, n: b.entries, off: counted, pathsLen: pathsLen, pathsEnd: pathsEnd}
		counted += b.entries
	}
	if counted != h.Entries {
		return nil, fmt.Errorf("treeindex: %w: %d entries decoded, %d declared", ErrCorrupt, counted, h.Entries)
	}
	entries := make([]tree.Entry, counted)
	var rules []int32 // version 2: to check the summary
	if h.root != nil {
		rules = make([]int32, counted)
	}
	errs := make([]error, len(blocks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				bi := int(next.Add(1)) - 1
				if bi >= len(blocks) {
					return
				}
				b := &blocks[bi]
				var rs []int32
				if rules != nil {
					rs = rules[b.off : b.off+b.n]
				}
				errs[bi] = h.decodeBlock(entries[b.off:b.off+b.n], rs, b.raw, b.pathsLen, b.pathsEnd)
			}
		}()
	}
	wg.Wait()
	for bi, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("treeindex: %w: block %d: %v", ErrCorrupt, bi, err)
		}
	}
	// Encode writes entries that tree.New accepts, in path order: the
	// tree is checked, not sorted.
	t, err := tree.NewSorted(entries)
	if err != nil {
		return nil, fmt.Errorf("treeindex: %w: %v", ErrCorrupt, err)
	}
	if rules != nil {
		if err := h.checkSummary(entries, rules); err != nil {
			return nil, fmt.Errorf("treeindex: %w: %v", ErrCorrupt, err)
		}
	}
	return &Index{Stamp: h.Stamp, Metadata: h.Metadata, Tree: t}, nil
}

// measurePaths reads the paths' section of the raw block b, which must
// hold n paths, and returns their whole length and where the section
// ends.
func measurePaths(b []byte, n int) (total, end int, err error) {
	r := &reader{b: b}
	prev := 0
	for range n {
		shared, rest := r.uvarint(), r.length("path")
		if r.err != nil {
			return 0, 0, r.err
		}
		if shared > uint64(prev) {
			return 0, 0, fmt.Errorf("path shares %d bytes with a path of %d", shared, prev)
		}
		r.i += rest
		prev = int(shared) + rest
		total += prev
	}
	return total, r.i, nil
}

// decodeBlock decodes the raw block b into out, one entry per path:
// measurePaths gave the paths' whole length and where they end. rules,
// when not nil, gets the rule number of each entry.
func (h *Header) decodeBlock(out []tree.Entry, rules []int32, b []byte, total, pathsEnd int) error {
	n := len(out)
	r := &reader{b: b}
	buf := make([]byte, 0, total)
	offs := make([]int, n+1)
	for k := range n {
		shared, rest := int(r.uvarint()), r.length("path")
		ps := 0
		if k > 0 {
			ps = offs[k-1]
		}
		buf = append(buf, buf[ps:ps+shared]...)
		buf = append(buf, r.b[r.i:r.i+rest]...)
		r.i += rest
		offs[k+1] = len(buf)
	}
	if r.i != pathsEnd {
		return fmt.Errorf("paths end at byte %d, measured %d", r.i, pathsEnd)
	}
	paths := string(buf)

	var sha []int // the entries with a sha256 hash
	for k := range n {
		flags := r.uvarint()
		ru := r.uvarint()
		size := r.uvarint()
		if r.err != nil {
			return r.err
		}
		if flags&^flagAll != 0 {
			return fmt.Errorf("entry %d: unknown flags %#x", k, flags)
		}
		if ru >= uint64(len(h.rules)) {
			return fmt.Errorf("entry %d: rule %d of %d", k, ru, len(h.rules))
		}
		if size > math.MaxInt64 {
			return fmt.Errorf("entry %d: size %d", k, size)
		}
		rl := &h.rules[ru]
		if rules != nil {
			rules[k] = int32(ru)
		}
		e := tree.Entry{
			Slug:        paths[offs[k]:offs[k+1]],
			IsPublic:    rl.isPublic,
			HasIsPublic: rl.hasIsPublic,
			Groups:      rl.groups,
			Size:        int64(size) - 1,
			SplitLines:  flags&flagSplitLines != 0,
		}
		if flags&flagModTime != 0 {
			sec := r.varint()
			var nsec uint64
			if flags&flagNanos != 0 {
				nsec = r.uvarint()
			}
			if r.err != nil {
				return r.err
			}
			if nsec >= 1e9 || sec < minUnix || sec > maxUnix {
				return fmt.Errorf("entry %d: modTime %d.%09d out of range", k, sec, nsec)
			}
			e.ModTime = time.Unix(sec, int64(nsec)).UTC()
		}
		chunks, ct := r.uvarint(), r.uvarint()
		if r.err != nil {
			return r.err
		}
		if chunks > math.MaxInt32 {
			return fmt.Errorf("entry %d: %d chunks", k, chunks)
		}
		e.Chunks = int(chunks)
		if ct > uint64(len(h.types)) {
			return fmt.Errorf("entry %d: content type %d of %d", k, ct, len(h.types))
		}
		if ct > 0 {
			e.ContentType = h.types[ct-1]
		}
		if flags&flagHash != 0 {
			e.Hash = r.str("hash")
		}
		if flags&flagURL != 0 {
			e.URL = r.str("url")
		}
		if flags&flagParts != 0 {
			e.Parts = r.str("parts")
		}
		if r.err != nil {
			return r.err
		}
		if flags&flagSHA256 != 0 {
			if flags&flagHash != 0 {
				return fmt.Errorf("entry %d: two hashes", k)
			}
			sha = append(sha, k)
		}
		out[k] = e
	}
	if len(r.b)-r.i != 32*len(sha) {
		return fmt.Errorf("%d bytes of hashes for %d sha256 hashes", len(r.b)-r.i, len(sha))
	}
	if len(sha) > 0 {
		// One string holds the block's hashes in their text form.
		const prefix = "sha256:"
		const w = len(prefix) + 64
		hx := make([]byte, w*len(sha))
		for j := range sha {
			copy(hx[j*w:], prefix)
			hexEncode(hx[j*w+len(prefix):(j+1)*w], r.b[r.i+32*j:r.i+32*(j+1)])
		}
		// hx is not written again: the string shares its bytes.
		all := unsafe.String(&hx[0], len(hx))
		for j, k := range sha {
			out[k].Hash = all[j*w : (j+1)*w]
		}
	}
	return nil
}

// hexPairs holds the two lowercase hex digits of each byte.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789abcdef"
	for i := range t {
		t[i] = [2]byte{digits[i>>4], digits[i&15]}
	}
	return t
}()

// hexEncode is hex.Encode with one table lookup a byte instead of two.
func hexEncode(dst, src []byte) {
	_ = dst[2*len(src)-1]
	for i, c := range src {
		p := &hexPairs[c]
		dst[2*i], dst[2*i+1] = p[0], p[1]
	}
}

// Bounds of tree times (years 0 to 9999), in Unix seconds.
var (
	minUnix = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxUnix = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// reader reads the fields of a payload. The first error sticks: every
// later read returns zero values.
type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// corrupt wraps an error of the header's reader.
func corrupt(err error) error { return fmt.Errorf("%w: header: %v", ErrCorrupt, err) }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.i >= len(r.b) {
		r.fail("truncated at byte %d", r.i)
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	if r.i < len(r.b) && r.b[r.i] < 0x80 {
		v := r.b[r.i]
		r.i++
		return uint64(v)
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.fail("bad or truncated number at byte %d", r.i)
		return 0
	}
	r.i += n
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.fail("bad or truncated number at byte %d", r.i)
		return 0
	}
	r.i += n
	return v
}

// length reads a length of bytes that must follow.
func (r *reader) length(what string) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)-r.i) {
		r.fail("%s of %d bytes at byte %d, %d left", what, n, r.i, len(r.b)-r.i)
		return 0
	}
	return int(n)
}

// count reads a count of items of at least min bytes each.
func (r *reader) count(what string, minBytes int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64((len(r.b)-r.i)/minBytes) {
		r.fail("%d %s in %d bytes", n, what, len(r.b)-r.i)
		return 0
	}
	return int(n)
}

func (r *reader) str(what string) string {
	n := r.length(what)
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.i : r.i+n])
	r.i += n
	return s
}

func (r *reader) strs(what string) []string {
	n := r.count(what, 1)
	if r.err != nil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str(what)
	}
	return out
}

var (
	decOnce sync.Once
	dec     *zstd.Decoder
	decErr  error
)

// decoder returns the shared zstd decoder, which refuses frames that
// inflate beyond maxBlockBytes (DecodeAll is safe for concurrent use).
func decoder() *zstd.Decoder {
	decOnce.Do(func() {
		dec, decErr = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBlockBytes), zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(2))
	})
	if decErr != nil {
		panic(decErr) // only for invalid options
	}
	return dec
}
