package treeindex

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/chromafs/chromafs/tree"
)

// DocumentHeader is the first line of an index record's document as
// earlier versions wrote it; the base64 of the payload follows it.
// EncodeDocument now writes the line documentPrefix, the CRC-32C of the
// base64 text in 8 lowercase hex digits and a line feed, which lets
// ReadDocument check the document without decoding all of it.
const DocumentHeader = "chromafs-tree-index/1\n"

// documentPrefix starts the first line of the documents EncodeDocument
// writes.
const documentPrefix = "chromafs-tree-index/2 crc32c="

// documentLine is the length of that first line.
const documentLine = len(documentPrefix) + 8 + 1

// RecordSuffix is appended to the tree id to make the index record's id.
const RecordSuffix = "/index"

// RecordID returns the id of the index record of the tree record treeID:
// treeID + "/index". Its shards (collection.ShardTree) have ids that
// collection.IsShardID(RecordID(treeID), id) recognises.
func RecordID(treeID string) string { return treeID + RecordSuffix }

// StampKey is the index record's metadata key that repeats the index's
// stamp (the JSON tree's version), for people and tools that look at the
// collection; readers trust the stamp inside the payload.
const StampKey = "chromafs_tree_index_of"

// Codec is how the blocks of an index are compressed.
type Codec byte

// Codecs. Zstd is what Encode writes: it inflates faster than gzip
// (compress/flate) at about the same size (see BENCHMARKS.md, "Compact
// tree index and shared parsed trees").
const (
	Stored Codec = 0
	Zstd   Codec = 1
)

// BlockEntries is the most entries a block holds. A block also ends once
// its raw size passes blockBytes.
const BlockEntries = 4096

// dirBlockEntries is the number of directories in the blocks of the
// directory table that Encode writes.
const dirBlockEntries = 64

// appendRuleTimes appends the rules below a directory: their count, then
// each one's gap from the one before minus one, and its newest time (a
// kind byte: 0 none, 1 seconds, 2 seconds and nanoseconds; then those).
func appendRuleTimes(b []byte, rts []tree.RuleTime) []byte {
	b = binary.AppendUvarint(b, uint64(len(rts)))
	prev := -1
	for _, rt := range rts {
		b = binary.AppendUvarint(b, uint64(rt.Rule-prev-1))
		prev = rt.Rule
		switch {
		case rt.ModTime.IsZero():
			b = append(b, 0)
		case rt.ModTime.Nanosecond() == 0:
			b = append(b, 1)
			b = binary.AppendVarint(b, rt.ModTime.Unix())
		default:
			b = append(b, 2)
			b = binary.AppendVarint(b, rt.ModTime.Unix())
			b = binary.AppendUvarint(b, uint64(rt.ModTime.Nanosecond()))
		}
	}
	return b
}

// blockEntries is the number of entries in the blocks Encode writes: small
// enough that a reader that looks up one path or lists one directory
// decodes little (see Header.Lazy), large enough to compress.
const blockEntries = 256

// blockBytes ends a block early: blocks stay far below tree.BaseBytes, so
// that the first one always fits the limits.
const blockBytes = 256 << 10

// maxBlockBytes is the largest raw block Decode inflates (one entry may
// be larger than blockBytes).
const maxBlockBytes = 16 << 20

// maxMetaBytes bounds the metadata JSON of the header.
const maxMetaBytes = 64 << 10

// Flags of an entry.
const (
	flagModTime = 1 << iota
	flagNanos
	flagSHA256
	flagHash
	flagURL
	flagSplitLines
	flagParts
	flagAll = 1<<iota - 1
)

// Flags of a rule.
const (
	ruleIsPublic = 1 << iota
	ruleHasIsPublic
	ruleGroups
	ruleAll = 1<<iota - 1
)

// Options are the options of EncodeWith.
type Options struct {
	// Codec compresses the blocks; the zero Options use Zstd.
	Codec Codec
	// Stored, when set, writes the blocks uncompressed (Codec Stored).
	Stored bool
}

// Encode returns the index payload of entries, stamped with stamp (the
// version of the JSON tree document made from the same entries,
// collection.TreeVersionOf) and carrying meta (the tree record's
// metadata: strings, booleans and numbers). Entries are encoded in path
// order; Encode refuses entries that tree.New would skip, as tree.Encode
// does. The output depends on its arguments only.
func Encode(entries []tree.Entry, stamp string, meta map[string]any) ([]byte, error) {
	return EncodeWith(entries, stamp, meta, Options{})
}

// EncodeWith is Encode with options.
func EncodeWith(entries []tree.Entry, stamp string, meta map[string]any, opt Options) ([]byte, error) {
	t := tree.New(entries)
	if p := t.Problems(); len(p) > 0 {
		return nil, fmt.Errorf("treeindex: cannot encode %s", p[0])
	}
	metaJSON := []byte("{}")
	if len(meta) > 0 {
		var err error
		if metaJSON, err = json.Marshal(meta); err != nil {
			return nil, fmt.Errorf("treeindex: metadata: %w", err)
		}
	}
	if len(metaJSON) > maxMetaBytes {
		return nil, fmt.Errorf("treeindex: metadata of %d bytes exceeds %d", len(metaJSON), maxMetaBytes)
	}
	codec := Zstd
	if opt.Stored {
		codec = Stored
	} else if opt.Codec != 0 {
		codec = opt.Codec
	}
	if codec != Stored && codec != Zstd {
		return nil, fmt.Errorf("treeindex: unknown codec %d", codec)
	}
	es := t.Entries()

	// Intern groups, content types and rules.
	groupIDs := map[string]int{}
	var groups []string
	typeIDs := map[string]int{}
	var types []string
	ruleIDs := map[string]int{}
	var rules [][]byte
	ruleOf := make([]int32, len(es))
	var key []byte
	for i := range es {
		e := &es[i]
		if e.ContentType != "" {
			if _, ok := typeIDs[e.ContentType]; !ok {
				typeIDs[e.ContentType] = len(types)
				types = append(types, e.ContentType)
			}
		}
		flags := byte(0)
		if e.IsPublic {
			flags |= ruleIsPublic
		}
		if e.HasIsPublic {
			flags |= ruleHasIsPublic
		}
		if e.Groups != nil {
			flags |= ruleGroups
		}
		key = append(key[:0], flags)
		key = binary.AppendUvarint(key, uint64(len(e.Groups)))
		for _, g := range e.Groups {
			id, ok := groupIDs[g]
			if !ok {
				id = len(groups)
				groupIDs[g] = id
				groups = append(groups, g)
			}
			key = binary.AppendUvarint(key, uint64(id))
		}
		r, ok := ruleIDs[string(key)]
		if !ok {
			if len(rules) == maxRules {
				return nil, fmt.Errorf("treeindex: more than %d distinct access rules", maxRules)
			}
			r = len(rules)
			ruleIDs[string(key)] = r
			rules = append(rules, slices.Clone(key))
		}
		ruleOf[i] = int32(r)
	}
	dirs, counts := tree.Summarize(es, ruleOf, len(rules))

	// The blocks.
	type block struct {
		entries  int
		first    string
		raw, enc []byte
	}
	var blocks []block
	var paths, fields, hashes []byte
	flush := func(start, n int) {
		raw := make([]byte, 0, len(paths)+len(fields)+len(hashes))
		raw = append(append(append(raw, paths...), fields...), hashes...)
		blocks = append(blocks, block{entries: n, first: es[start].Slug, raw: raw})
		paths, fields, hashes = paths[:0], fields[:0], hashes[:0]
	}
	start := 0
	prev := ""
	for i := range es {
		e := &es[i]
		if i > start && (i-start == blockEntries || len(paths)+len(fields)+len(hashes) >= blockBytes) {
			flush(start, i-start)
			start, prev = i, ""
		}
		shared := commonPrefix(prev, e.Slug)
		paths = binary.AppendUvarint(paths, uint64(shared))
		paths = binary.AppendUvarint(paths, uint64(len(e.Slug)-shared))
		paths = append(paths, e.Slug[shared:]...)
		prev = e.Slug

		var flags uint64
		var sum []byte
		if !e.ModTime.IsZero() {
			flags |= flagModTime
			if e.ModTime.Nanosecond() != 0 {
				flags |= flagNanos
			}
		}
		if h, ok := strings.CutPrefix(e.Hash, "sha256:"); ok && len(h) == 64 && isLowerHex(h) {
			flags |= flagSHA256
			sum, _ = hex.AppendDecode(nil, []byte(h))
		} else if e.Hash != "" {
			flags |= flagHash
		}
		if e.URL != "" {
			flags |= flagURL
		}
		if e.SplitLines {
			flags |= flagSplitLines
		}
		if e.Parts != "" {
			flags |= flagParts
		}
		fields = binary.AppendUvarint(fields, flags)
		fields = binary.AppendUvarint(fields, uint64(ruleOf[i]))
		fields = binary.AppendUvarint(fields, uint64(e.Size+1))
		if flags&flagModTime != 0 {
			fields = binary.AppendVarint(fields, e.ModTime.Unix())
			if flags&flagNanos != 0 {
				fields = binary.AppendUvarint(fields, uint64(e.ModTime.Nanosecond()))
			}
		}
		fields = binary.AppendUvarint(fields, uint64(e.Chunks))
		ct := 0
		if e.ContentType != "" {
			ct = typeIDs[e.ContentType] + 1
		}
		fields = binary.AppendUvarint(fields, uint64(ct))
		if flags&flagHash != 0 {
			fields = appendString(fields, e.Hash)
		}
		if flags&flagURL != 0 {
			fields = appendString(fields, e.URL)
		}
		if flags&flagParts != 0 {
			fields = appendString(fields, e.Parts)
		}
		hashes = append(hashes, sum...)
	}
	if len(es) > start {
		flush(start, len(es)-start)
	}
	for i := range blocks {
		b := &blocks[i]
		if len(b.raw) > maxBlockBytes {
			return nil, fmt.Errorf("treeindex: a block of %d bytes exceeds %d (an entry of several megabytes?)", len(b.raw), maxBlockBytes)
		}
		switch codec {
		case Stored:
			b.enc = b.raw
		case Zstd:
			b.enc = encoder().EncodeAll(b.raw, nil)
		}
	}

	// The header, then the payload.
	var h []byte
	h = appendString(h, stamp)
	h = appendString(h, string(metaJSON))
	h = binary.AppendUvarint(h, uint64(len(groups)))
	for _, g := range groups {
		h = appendString(h, g)
	}
	h = binary.AppendUvarint(h, uint64(len(types)))
	for _, ct := range types {
		h = appendString(h, ct)
	}
	h = binary.AppendUvarint(h, uint64(len(rules)))
	for r, key := range rules {
		h = append(h, key...)
		h = binary.AppendUvarint(h, uint64(counts[r]))
	}
	h = binary.AppendUvarint(h, uint64(len(es)))
	h = binary.AppendUvarint(h, uint64(len(blocks)))
	size := 0
	for _, b := range blocks {
		h = binary.AppendUvarint(h, uint64(b.entries))
		h = binary.AppendUvarint(h, uint64(len(b.raw)))
		h = binary.AppendUvarint(h, uint64(len(b.enc)))
		h = appendString(h, b.first)
		size += len(b.enc)
	}
	// The root's rules, then the directory table (tree.Summarize) in
	// blocks of dirBlockEntries directories: their directory, then their
	// bytes.
	h = appendRuleTimes(h, dirs[0].Rules)
	table := dirs[1:]
	var dirBlocks [][]byte
	var rec []byte
	for lo := 0; lo < len(table); lo += dirBlockEntries {
		rec = rec[:0]
		prevDir := ""
		for k := lo; k < min(lo+dirBlockEntries, len(table)); k++ {
			dr := &table[k]
			shared := commonPrefix(prevDir, dr.Path)
			rec = binary.AppendUvarint(rec, uint64(shared))
			rec = appendString(rec, dr.Path[shared:])
			rec = binary.AppendUvarint(rec, uint64(dr.Lo))
			rec = binary.AppendUvarint(rec, uint64(dr.Hi-dr.Lo))
			rec = binary.AppendUvarint(rec, uint64(dr.End-(k+1)-1)) // its descendants
			rec = appendRuleTimes(rec, dr.Rules)
			prevDir = dr.Path
		}
		dirBlocks = append(dirBlocks, slices.Clone(rec))
	}
	h = binary.AppendUvarint(h, uint64(len(table)))
	h = binary.AppendUvarint(h, uint64(len(dirBlocks)))
	for b, blk := range dirBlocks {
		h = binary.AppendUvarint(h, uint64(min(dirBlockEntries, len(table)-b*dirBlockEntries)))
		h = appendString(h, table[b*dirBlockEntries].Path)
		h = binary.AppendUvarint(h, uint64(len(blk)))
	}
	for _, blk := range dirBlocks {
		h = append(h, blk...)
	}
	out := make([]byte, 0, len(magic)+6+binary.MaxVarintLen64+len(h)+size)
	out = append(out, magic...)
	out = append(out, byte(codec))
	out = binary.AppendUvarint(out, uint64(len(h)))
	out = append(out, h...)
	for _, b := range blocks {
		out = append(out, b.enc...)
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// castagnoli is the CRC-32C table of the payload's checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// magic starts every payload that Encode writes: "CFTI" and the format
// version. Version 1 (magicV1) had no block directory of first paths,
// rule counts or directory table; it is still read, eagerly.
const (
	magic   = "CFTI\x02"
	magicV1 = "CFTI\x01"
)

// maxRules bounds the distinct access rules of an index, so that a
// reader's per-view table of them stays small.
const maxRules = 1 << 20

// EncodeDocument returns the document of an index record for payload:
// its first line (documentPrefix and the CRC-32C of the rest) and the
// standard base64 of payload.
func EncodeDocument(payload []byte) []byte {
	doc := make([]byte, documentLine, documentLine+base64.StdEncoding.EncodedLen(len(payload)))
	doc = base64.StdEncoding.AppendEncode(doc, payload)
	line := fmt.Appendf(nil, "%s%08x\n", documentPrefix, crc32.Checksum(doc[documentLine:], castagnoli))
	copy(doc, line)
	return doc
}

// documentText returns the base64 text of an index record's document,
// having checked its first line (and the CRC-32C that a version 2 line
// gives). A document that is not one is an error wrapping ErrCorrupt.
func documentText(doc []byte) ([]byte, error) {
	if rest, ok := bytes.CutPrefix(doc, []byte(DocumentHeader)); ok {
		return rest, nil
	}
	if !bytes.HasPrefix(doc, []byte(documentPrefix)) || len(doc) < documentLine || doc[documentLine-1] != '\n' {
		return nil, fmt.Errorf("%w: the document does not start with %q or %q", ErrCorrupt, strings.TrimSpace(DocumentHeader), documentPrefix+"...")
	}
	want, err := strconv.ParseUint(string(doc[len(documentPrefix):documentLine-1]), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: the document's first line: %v", ErrCorrupt, err)
	}
	text := doc[documentLine:]
	if crc32.Checksum(text, castagnoli) != uint32(want) {
		return nil, fmt.Errorf("%w: the document's checksum does not match (truncated or altered)", ErrCorrupt)
	}
	return text, nil
}

// DecodeDocument returns the payload of an index record's document. A
// document that is not one is an error wrapping ErrCorrupt. A large
// document without line breaks is decoded in GOMAXPROCS parts at once.
func DecodeDocument(doc []byte) ([]byte, error) {
	b64, err := documentText(doc)
	if err != nil {
		return nil, err
	}
	payload := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	parts := min(runtime.GOMAXPROCS(0), len(b64)/minBase64Part)
	if parts < 2 || hasLineBreak(b64) {
		// base64 skips line breaks: parts could not be cut at groups.
		n, err := base64.StdEncoding.Decode(payload, b64)
		if err != nil {
			return nil, fmt.Errorf("%w: base64: %v", ErrCorrupt, err)
		}
		return payload[:n], nil
	}
	// Parts of whole 4-character groups, each decoded into its own
	// place; only the last may end with padding.
	step := len(b64) / parts &^ 3
	ns := make([]int, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*step, (p+1)*step
		if p == parts-1 {
			hi = len(b64)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The decoder may write a few bytes past what it decodes
			// (8 at a time): it is given this part's room only.
			dst := payload[lo/4*3:]
			if p < parts-1 {
				dst = payload[lo/4*3 : hi/4*3 : hi/4*3]
			}
			n, err := base64.StdEncoding.Decode(dst, b64[lo:hi])
			if e, ok := err.(base64.CorruptInputError); ok {
				err = base64.CorruptInputError(int64(e) + int64(lo))
			}
			if err == nil && p < parts-1 && n != (hi-lo)/4*3 {
				err = fmt.Errorf("padding before byte %d", hi)
			}
			ns[p], errs[p] = n, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%w: base64: %v", ErrCorrupt, err)
		}
	}
	return payload[:(parts-1)*step/4*3+ns[parts-1]], nil
}

// hasLineBreak reports whether b holds a line feed or a carriage return
// (two IndexByte scans: bytes.ContainsAny of two bytes is much slower).
func hasLineBreak(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}

// ReadDocument reads the header of an index record's document as
// ReadHeader reads a payload's, without decoding the base64 of its
// blocks: the header's blocks are decoded from the text when a tree needs
// them. The document's checksum is checked at once (CRC-32C of the text,
// on its first line); the payload's own is not, since it covers the same
// bytes. A document of the earlier form (first line DocumentHeader, no
// checksum of its own) or with line breaks in its base64 is decoded whole
// and read by ReadHeader.
func ReadDocument(doc []byte) (*Header, error) {
	if bytes.HasPrefix(doc, []byte(DocumentHeader)) {
		payload, err := DecodeDocument(doc)
		if err != nil {
			return nil, err
		}
		return ReadHeader(payload)
	}
	b64, err := documentText(doc)
	if err != nil {
		return nil, err
	}
	if hasLineBreak(b64) {
		payload, err := DecodeDocument(doc)
		if err != nil {
			return nil, err
		}
		return ReadHeader(payload)
	}
	// The payload's length, from the text's and its padding.
	size := len(b64) / 4 * 3
	if len(b64)%4 != 0 {
		return nil, fmt.Errorf("%w: base64 of %d characters", ErrCorrupt, len(b64))
	}
	for k := len(b64) - 1; k >= max(0, len(b64)-2) && b64[k] == '='; k-- {
		size--
	}
	// The magic, the codec and the header's length come first; then
	// the header, whose end tells where the blocks start.
	first, err := decodeRange(b64, 0, min(size, len(magic)+1+binary.MaxVarintLen64))
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(first, []byte(magic)) || size < len(magic)+4 {
		// Not version 2: the earlier format is read whole.
		payload, err := DecodeDocument(doc)
		if err != nil {
			return nil, err
		}
		return ReadHeader(payload)
	}
	n, k := binary.Uvarint(first[len(magic)+1:])
	if k <= 0 || n > uint64(size) || len(magic)+1+k+int(n) > size-4 {
		return nil, fmt.Errorf("%w: truncated or bad header length", ErrCorrupt)
	}
	end := len(magic) + 1 + k + int(n)
	head, err := decodeRange(b64, 0, end)
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(head, size-end-4, true)
	if err != nil {
		return nil, err
	}
	h.b64, h.dataOff = b64, end
	return h, nil
}

// minBase64Part is the fewest base64 bytes DecodeDocument decodes on a
// goroutine of its own.
const minBase64Part = 256 << 10

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var (
	encOnce sync.Once
	enc     *zstd.Encoder
)

// encoder returns the shared zstd encoder (EncodeAll is safe for
// concurrent use).
func encoder() *zstd.Encoder {
	encOnce.Do(func() {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only for invalid options
		}
	})
	return enc
}
