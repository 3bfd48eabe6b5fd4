package tree

import (
	"encoding/base64"
	"errors"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// zipDoc returns the gzip+base64 document whose inflated text is parts,
// with n spaces written where a part is the empty string, made so that
// gigabytes of padding cost neither memory nor time here
// (testenv.GzipPadded).
func zipDoc(t testing.TB, n int, parts ...string) []byte {
	t.Helper()
	return []byte(base64.StdEncoding.EncodeToString(testenv.GzipPadded(n, parts...)))
}

// TestBomb: a small compressed record that inflates to far more than
// BaseBytes (64 MiB here; BenchmarkBomb has a gigabyte) fails with
// ErrTooLarge after about BaseBytes (as the error says: so in little
// time) and in little memory, wherever the padding is.
func TestBomb(t *testing.T) {
	const size = 64 << 20
	for _, tc := range []struct {
		name  string
		parts []string
	}{
		{"empty object padded", []string{"{", "", "}"}},
		{"leading padding", []string{"", "{}"}},
		{"trailing padding", []string{`{"a": {"isPublic": true}}`, ""}},
		{"between entries", []string{`{"a": {},`, "", `"b": {}}`}},
		{"inside an entry", []string{`{"a": {"isPublic":`, "", `true}}`}},
		{"ignored string", []string{`{"a": {"x": "`, "", `"}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := zipDoc(t, size, tc.parts...)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tr, err := Parse(doc)
			runtime.ReadMemStats(&after)
			if err == nil || !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse of a %d-byte bomb = %v (tree %v); want ErrTooLarge", len(doc), err, tr != nil)
			}
			if !strings.Contains(err.Error(), "Limits.BytesPerEntry") {
				t.Errorf("error %q does not say which limit", err)
			}
			// Memory: windows of 64 KiB up to about BaseBytes, not the
			// inflated gigabyte.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("Parse allocated %d bytes", alloc)
			}
			// Time: it inflated about BaseBytes (windows of 64 KiB, or
			// twice the part of a token it holds), not 64 MiB.
			var decoded int64
			if m := bytesDecoded.FindStringSubmatch(err.Error()); m == nil {
				t.Errorf("error %q does not say how much was decoded", err)
			} else if decoded, _ = strconv.ParseInt(m[1], 10, 64); decoded > 2*(BaseBytes+2*DefaultBytesPerEntry)+window {
				t.Errorf("Parse decoded %d bytes before failing", decoded)

			}
		})
	}
}

var bytesDecoded = regexp.MustCompile(`(\d+) bytes decoded`)

// TestLimits: the ratio of decoded bytes to valid entries, and the
// absolute cap, which Limits raise.
func TestLimits(t *testing.T) {
	// 200 entries with 40 KiB of padding each: from the 44th entry on,
	// more than BaseBytes + 16 KiB an entry; less than with 64 KiB.
	var parts []string
	parts = append(parts, "{")
	for i := range 200 {
		if i > 0 {
			parts = append(parts, ",")
		}
		parts = append(parts, `"p`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`/`+strings.Repeat("y", i+1)+`": {"isPublic": true}`, "")
	}
	parts = append(parts, "}")
	doc := zipDoc(t, 40<<10, parts...)
	if _, err := Parse(doc); !errors.Is(err, ErrTooLarge) {
		t.Errorf("default limits: %v; want ErrTooLarge", err)
	}
	tr, err := ParseLimited(doc, Limits{BytesPerEntry: 64 << 10})
	if err != nil || tr.Len() != 200 {
		t.Fatalf("BytesPerEntry 64 KiB: %v", err)
	}
	// The absolute cap.
	if _, err := ParseLimited(doc, Limits{BytesPerEntry: 64 << 10, MaxBytes: 2 << 20}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "Limits.MaxBytes") {
		t.Errorf("MaxBytes 2 MiB: %v; want ErrTooLarge naming MaxBytes", err)
	}
	// Plain documents obey the same limits.
	plain := []byte(`{"a": {}` + strings.Repeat(" ", BaseBytes+DefaultBytesPerEntry) + `}`)
	if _, err := Parse(plain); !errors.Is(err, ErrTooLarge) {
		t.Errorf("padded plain document: %v; want ErrTooLarge", err)
	}
}

// TestStreamed: a compressed document, read a window at a time, gives the
// tree that its plain text gives, whatever the window cuts: entries,
// problems, a member larger than a window, and syntax error offsets.
func TestStreamed(t *testing.T) {
	entries := GenEntries(3000, 7) // about 700 KB: eleven windows
	big := Entry{Slug: "zz/big.md", Groups: make([]string, 20000), Size: -1}
	for i := range big.Groups {
		big.Groups[i] = strings.Repeat("g", i%13+1)
	}
	entries = append(entries, big)
	plain, err := Encode(entries, false)
	if err != nil {
		t.Fatal(err)
	}
	// Problems and duplicates scattered through the document.
	text := strings.Replace(string(plain), "{\n", "{\n\"../bad\": {},\n\"zz/big.md\": {\"isPublic\": true},\n", 1)
	want, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, pad := range []int{0, 1, 2, 5} {
		doc := zipDoc(t, pad, "", text, "")
		got, err := Parse(doc)
		if err != nil {
			t.Fatalf("pad %d: %v", pad, err)
		}
		if !reflect.DeepEqual(got.Entries(), want.Entries()) || !reflect.DeepEqual(got.Problems(), want.Problems()) {
			t.Fatalf("pad %d: the compressed document parses differently from the plain one", pad)
		}
	}
	// A syntax error far into a compressed document reports its offset
	// in the inflated text.
	bad := text[:500_000] + "\x01" + text[500_000:]
	_, errPlain := Parse([]byte(bad))
	_, errZip := Parse(zipDoc(t, 0, bad))
	if errPlain == nil || errZip == nil || errPlain.Error() != errZip.Error() {
		t.Errorf("error in a plain document %q, in the same compressed %q", errPlain, errZip)
	}
	// A corrupt checksum after a complete document is an error.
	z := zipDoc(t, 0, text)
	raw, _ := base64.StdEncoding.DecodeString(string(z))
	raw[len(raw)-8] ^= 0xff
	if _, err := Parse(raw); err == nil || !strings.Contains(err.Error(), "gzip: invalid checksum") {
		t.Errorf("corrupt checksum: %v", err)
	}
}

// TestNoEntries: a document that has entries, none of them valid, is an
// error naming the problems; an empty object is an empty tree.
func TestNoEntries(t *testing.T) {
	for _, doc := range []string{
		`{"../x": {}}`,
		`{"a": 1, "b": {"isPublic": "yes"}, "c//d": {}, "/e": {}}`,
		`{"a": {"isPublic": true}, "a": {"isPublic": "yes"}}`,
		string(zipDoc(t, 0, `{"../x": {}}`)),
	} {
		_, err := Parse([]byte(doc))
		if !errors.Is(err, ErrNoEntries) || !errors.Is(err, ErrMalformed) {
			t.Errorf("%.40s: %v; want ErrNoEntries", doc, err)
			continue
		}
		if !strings.Contains(err.Error(), "skipped (") {
			t.Errorf("error %q does not name the problems", err)
		}
	}
	for _, doc := range []string{`{}`, string(zipDoc(t, 0, `{}`))} {
		if tr, err := Parse([]byte(doc)); err != nil || tr.Len() != 0 {
			t.Errorf("%s: %v, %v; want an empty tree", doc, tr, err)
		}
	}
}

// BenchmarkBomb parses the 1.38 MB gzip+base64 record that inflates to
// 1000 MiB of spaces inside "{}".
func BenchmarkBomb(b *testing.B) {
	doc := zipDoc(b, 1000<<20, "{", "", "}")
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Parse(doc); !errors.Is(err, ErrTooLarge) {
			b.Fatal(err)
		}
	}
}
