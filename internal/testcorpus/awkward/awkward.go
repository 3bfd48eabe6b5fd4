// Package awkward is a small docs folder whose content is hard to chunk
// and to reassemble: text in and beyond the Basic Multilingual Plane
// (emoji, mathematical letters, CJK with no spaces), CRLF and mixed line
// ends, very long lines with and without spaces, empty and whitespace-only
// files, a byte order mark, indented code blocks, blank lines that hold
// only spaces or tabs, files with no final newline and with several,
// repeated paragraphs (identical chunks), Markdown links and images, and
// nested directories with non-ASCII names. Tests write it with the real
// writers (LangChain.js, LlamaIndex.TS: see testenv.WriteWith) and check
// what a reader of their collections can rebuild.
//
// The files are built in Go rather than stored under testdata so that no
// editor, git attribute or checkout setting can change a line end, a
// trailing space or a final newline. Every file ends in .md or .txt, the
// extensions both writers read by default. It is for tests only.
package awkward

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files returns the folder: slash-separated relative paths to contents.
// The contents are valid UTF-8. Each call returns a new map.
func Files() map[string]string {
	f := map[string]string{}

	// Plain Markdown longer than two chunks of 1,000 characters:
	// headings, links and an image (the LlamaIndex Markdown reader
	// removes links), paragraphs separated by blank lines.
	var b strings.Builder
	b.WriteString("# Getting started\n\nWelcome to the [Acme](https://acme.example/docs) docs. ")
	b.WriteString("![logo](img/logo.png)\n\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nRun the step number %d of the setup and check its output against the [reference](ref/step-%d.md) before you go on. ", i, i, i)
		b.WriteString("Nothing here is hard, but every sentence takes room so that chunks fill up.\n\n")
	}
	b.WriteString("That is all.\n")
	f["README.md"] = b.String()

	// Non-BMP characters (each two UTF-16 code units, four UTF-8 bytes)
	// early and throughout, so that every later offset differs between
	// UTF-16 units, code points and bytes.
	b.Reset()
	b.WriteString("# Emoji 😀 and friends 🚀\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "Line %d: 😀 grinning, 🚀 rocket, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 fraktur, ĉu naïve café, 漢字かな交じり文 %d.\n", i, i)
		if i%8 == 7 {
			b.WriteString("\n")
		}
	}
	f["unicode/emoji.md"] = b.String()

	// CJK without a space or newline for more than 1,000 characters: the
	// recursive splitter falls back to single characters.
	b.Reset()
	b.WriteString("# 指南\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "这是第%d句中文文本，没有空格也没有换行。", i)
	}
	b.WriteString("\n\n最后一段。\n")
	f["unicode/中文/指南.md"] = b.String()

	// CRLF throughout, longer than a chunk.
	b.Reset()
	b.WriteString("# Windows\r\n\r\n")
	for i := range 30 {
		fmt.Fprintf(&b, "Paragraph %d was written on Windows and ends with a carriage return.\r\n", i)
		if i%5 == 4 {
			b.WriteString("\r\n")
		}
	}
	f["crlf/windows.md"] = b.String()

	// Mixed line ends and no final newline.
	f["crlf/mixed.txt"] = "first line LF\nsecond line CRLF\r\nthird line LF\n\r\nafter a CR-only blank line\r\nlast line, no final newline"

	// One line of 5,000 characters with spaces; one of 3,000 without any
	// whitespace.
	f["long/one-line.md"] = strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet, ", 179)) + "\n"
	f["long/no-spaces.txt"] = strings.Repeat("0123456789abcdefghij", 150)

	// The same paragraph many times (more than 2,048 tokens): writers
	// that find a chunk by an earlier occurrence of its text place the
	// repeats wrongly. one-line.md and no-spaces.txt repeat too: Periodic
	// lists all three.
	f["long/repeated.md"] = strings.Repeat("This paragraph is boilerplate that repeats, as licence text does.\n\n", 200)

	// Code blocks with indentation (spaces and tabs), blank lines that
	// hold only spaces or tabs, trailing spaces: whitespace that trimmed
	// chunks drop at their ends.
	b.Reset()
	b.WriteString("# Code\n\nSome prose before the code.   \n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "```go\nfunc f%d() {\n\tif x {\n\t\treturn %d\n\t}\n    \n        indented := true   \n}\n```\n", i, i)
		b.WriteString("    \n\t\n")
		fmt.Fprintf(&b, "    four-space indented line %d\n\n", i)
	}
	b.WriteString("  \n")
	f["code/indented.md"] = b.String()

	// Empty, whitespace-only and newline-only files.
	f["empty.md"] = ""
	f["blank/spaces.txt"] = "   \n\t\n  "
	f["blank/newlines.md"] = "\n\n\n"

	// Final newlines: none, one, several; leading blank lines and
	// indentation before the first word.
	f["ends/none.md"] = "# No final newline\n\nThe last line has no newline."
	f["ends/one.md"] = "# One final newline\n\nThe last line has one newline.\n"
	f["ends/three.md"] = "# Three final newlines\n\nThe last line has three.\n\n\n"
	f["ends/leading.md"] = "\n\n   Indented first words after two blank lines.\n"

	// A byte order mark (LangChain.js's TextLoader keeps it; a
	// TextDecoder, as LlamaIndex.TS's readers use, drops it).
	f["bom.md"] = "\uFEFF# With a byte order mark\n\nText after the BOM.\n"

	// Headings with nothing between them (the LlamaIndex Markdown reader
	// joins them), and a deep path.
	f["a/b/c/d/deep.md"] = "# Deep\n## Deeper\n### Deepest\n\nFour directories down.\n"

	return f
}

// Periodic lists the files of Files whose text is one short piece
// repeated: a chunk's text occurs at many offsets, so a writer that looks
// a chunk up with indexOf (LangChain.js for its line numbers, LlamaIndex.TS
// for its character offsets) records an earlier occurrence than the one
// the chunk was cut from.
var Periodic = []string{"long/one-line.md", "long/no-spaces.txt", "long/repeated.md"}

// WriteDir writes files under a new temporary directory of tb, removed
// when tb ends, and returns the directory.
func WriteDir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
