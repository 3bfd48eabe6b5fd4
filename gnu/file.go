package gnu

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chromafs/chromafs/internal/getopt"
)

const (
	keyMimeType     = 'T' + 256
	keyMimeEncoding = 'E' + 256
)

var fileSpec = getopt.Spec{
	Short: "biL",
	Long: append([]getopt.Long{
		{Name: "brief", Key: 'b'},
		{Name: "mime", Key: 'i'},
		{Name: "mime-type", Key: keyMimeType},
		{Name: "mime-encoding", Key: keyMimeEncoding},
		{Name: "dereference", Key: 'L'},
	}, helpVersion...),
}

const fileUsage = `Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]
            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]
            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]
            <file> ...
       file -C [-m <magicfiles>]
       file [--help]
`

const fileHelp = `Usage: %s [OPTION...] [FILE...]
Determine type of FILEs.

  -b, --brief                do not prepend filenames to output lines
  -i, --mime                 output MIME type strings (--mime-type and
                               --mime-encoding)
      --mime-type            output the MIME type
      --mime-encoding        output the MIME encoding
  -L, --dereference          follow symlinks (default)
      --help                 display this help and exit
      --version              output version information and exit
`

// File names the type of each file as file 5.44 does (-b, -i, --mime-type,
// --mime-encoding) for the kinds a documentation collection holds: a
// directory, an empty or one-byte file, text (ASCII, UTF-8 with or without
// a BOM, ISO-8859) with file's notes on line terminators, very long lines
// and escape sequences, and among texts JSON, HTML, XML, shell and Python
// scripts and makefiles. Binary content is "data" (file's magic for
// images, archives and the like is not consulted). A file that cannot be
// read is said so on standard output, status 0, as file does.
func File(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "file")
	opts, operands, err := fileSpec.Parse(args)
	if err != nil {
		r.out.WriteString(fileUsage)
		r.warn("%s", err)
		r.out.Flush()
		io.WriteString(r.env.Stderr, fileUsage)
		return 1
	}
	brief, mimeType, mimeEnc := false, false, false
	for _, o := range opts {
		switch o.Key {
		case keyHelp:
			r.help(fileHelp)
			return 0
		case keyVersion:
			r.out.WriteString("file-5.44\nmagic file from /usr/share/misc/magic\n")
			return r.finish(0)
		case 'b':
			brief = true
		case 'i':
			mimeType, mimeEnc = true, true
		case keyMimeType:
			mimeType = true
		case keyMimeEncoding:
			mimeEnc = true
		}
	}
	if len(operands) == 0 {
		r.out.Flush()
		io.WriteString(r.env.Stderr, fileUsage)
		return 1
	}
	if !r.open() {
		return r.finish(1)
	}
	width := 0
	for _, a := range operands {
		width = max(width, utf8.RuneCountInString(a))
	}
	for _, a := range operands {
		if r.stopped() {
			break
		}
		desc, mt, enc := r.describe(a)
		var out string
		switch {
		case mimeType && mimeEnc:
			out = mt + "; charset=" + enc
		case mimeType:
			out = mt
		case mimeEnc:
			out = enc
		default:
			out = desc
		}
		if mt == "" {
			out = desc // an error
		}
		if !brief {
			r.out.WriteString(a + ":" + strings.Repeat(" ", width-utf8.RuneCountInString(a)) + " ")
		}
		r.out.WriteString(out + "\n")
	}
	return r.finish(0)
}

var makefileLine = regexp.MustCompile(`(?m)^(all|install|clean|[A-Za-z_.-]+)[ \t]*:([^=]|$)[^\n]*\n\t`)

// describe returns file's description, MIME type and MIME encoding of
// operand a; an empty MIME type means the description is an error.
func (r *run) describe(a string) (desc, mime, enc string) {
	var data []byte
	if a == "-" {
		f, _ := r.openInput("-")
		data, _ = readHeld(io.LimitReader(f, 1<<20))
	} else {
		name, ok := r.resolve(a)
		var fi fs.FileInfo
		err := error(fs.ErrNotExist)
		if ok {
			fi, err = fs.Stat(r.fsys, name)
		}
		if err != nil {
			return "cannot open `" + a + "' (" + ErrText(err) + ")", "", ""
		}
		if fi.IsDir() {
			return "directory", "inode/directory", "binary"
		}
		f, err := r.fsys.Open(name)
		if err != nil {
			return "cannot open `" + a + "' (" + ErrText(err) + ")", "", ""
		}
		data, err = io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		if err != nil {
			return "cannot read `" + a + "' (" + ErrText(err) + ")", "", ""
		}
	}
	switch len(data) {
	case 0:
		return "empty", "inode/x-empty", "binary"
	case 1:
		return "very short file (no magic)", "application/octet-stream", "binary"
	}
	body := data
	bom := bytes.HasPrefix(body, []byte("\xef\xbb\xbf"))
	if bom {
		body = body[3:]
	}
	var encDesc string
	isText := func(c byte) bool {
		return c >= 0x20 && c < 0x7f || c == '\a' || c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == 0x1b
	}
	ascii, latin := true, true
	for _, c := range body {
		if c >= 0x80 {
			ascii = false
			if c < 0xa0 {
				latin = false
			}
		} else if !isText(c) {
			ascii, latin = false, false
			break
		}
	}
	switch {
	case ascii && !bom:
		encDesc, enc = "ASCII text", "us-ascii"
	case (ascii || utf8.Valid(body)) && bytes.IndexFunc(body, func(r rune) bool { return r < 0x80 && !isText(byte(r)) }) < 0:
		encDesc, enc = "Unicode text, UTF-8 text", "utf-8"
		if bom {
			encDesc = "Unicode text, UTF-8 (with BOM) text"
		}
	case latin && !bom:
		encDesc, enc = "ISO-8859 text", "iso-8859-1"
	default:
		return "data", "application/octet-stream", "binary"
	}
	mime = "text/plain"
	kind := ""
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	lower := strings.ToLower(string(trimmed[:min(len(trimmed), 64)]))
	switch {
	case (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(body) && len(trimmed) > 2:
		return "JSON text data", "application/json", enc
	case strings.HasPrefix(lower, "<?xml"):
		kind, mime = "XML 1.0 document, ", "text/xml"
	case strings.HasPrefix(lower, "<!doctype html"), strings.HasPrefix(lower, "<html"):
		kind, mime = "HTML document, ", "text/html"
	case bytes.HasPrefix(body, []byte("#!")):
		line, _, _ := bytes.Cut(body, []byte("\n"))
		interp := strings.Fields(string(line[2:]))
		prog := ""
		if len(interp) > 0 {
			prog = interp[0][strings.LastIndexByte(interp[0], '/')+1:]
			if prog == "env" && len(interp) > 1 {
				prog = interp[1]
			}
		}
		switch {
		case prog == "sh":
			kind, mime = "POSIX shell script, ", "text/x-shellscript"
		case prog == "bash":
			kind, mime = "Bourne-Again shell script, ", "text/x-shellscript"
		case strings.HasPrefix(prog, "python"):
			kind, mime = "Python script, ", "text/x-script.python"
		default:
			kind = "a " + strings.TrimSpace(string(line[2:])) + " script, "
		}
		encDesc += " executable"
	case makefileLine.Match(body[:min(len(body), 4096)]):
		kind, mime = "makefile script, ", "text/x-makefile"
	}
	desc = kind + encDesc
	// file's notes on the text: long lines, terminators, escapes.
	longest, cur := 0, 0
	crlf, cr, lf := false, false, false
	for i, c := range body {
		switch c {
		case '\n':
			lf = true
			if i > 0 && body[i-1] == '\r' {
				crlf = true
			}
			longest, cur = max(longest, cur), 0
			continue
		case '\r':
			if i+1 >= len(body) || body[i+1] != '\n' {
				cr = true
				longest, cur = max(longest, cur), 0
				continue
			}
			continue
		}
		cur++
	}
	longest = max(longest, cur)
	if longest > 300 {
		desc += ", with very long lines (" + strconv.Itoa(longest) + ")"
	}
	switch {
	case crlf && cr:
		desc += ", with CRLF, CR line terminators"
	case crlf && lf && bytes.Count(body, []byte("\n")) > bytes.Count(body, []byte("\r\n")):
		desc += ", with CRLF, LF line terminators"
	case crlf:
		desc += ", with CRLF line terminators"
	case cr && lf:
		desc += ", with CR, LF line terminators"
	case cr:
		desc += ", with CR line terminators"
	case !lf:
		desc += ", with no line terminators"
	}
	if bytes.IndexByte(body, 0x1b) >= 0 {
		desc += ", with escape sequences"
	}
	return desc, mime, enc
}
