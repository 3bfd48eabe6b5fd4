package gnu

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromafs/chromafs/internal/getopt"
)

const (
	keyDiffLabel  = 'L' + 256
	keyDiffNormal = 'N' + 256
)

var diffSpec = getopt.Spec{
	Short: "bcC:iqsuU:w",
	Long: append([]getopt.Long{
		{Name: "brief", Key: 'q'},
		{Name: "report-identical-files", Key: 's'},
		{Name: "ignore-case", Key: 'i'},
		{Name: "ignore-space-change", Key: 'b'},
		{Name: "ignore-all-space", Key: 'w'},
		{Name: "unified", Key: 'u', HasArg: getopt.OptionalArgument},
		{Name: "context", Key: 'c', HasArg: getopt.OptionalArgument},
		{Name: "label", Key: keyDiffLabel, HasArg: getopt.RequiredArgument},
		{Name: "normal", Key: keyDiffNormal},
	}, helpVersion...),
}

const diffHelp = `Usage: %s [OPTION]... FILES
Compare FILES line by line.

Mandatory arguments to long options are mandatory for short options too.
      --normal                  output a normal diff (the default)
  -q, --brief                   report only when files differ
  -s, --report-identical-files  report when two files are the same
  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context
      --label LABEL             use LABEL instead of file name and timestamp
                                  (can be repeated)
  -i, --ignore-case               ignore case differences in file contents
  -b, --ignore-space-change       ignore changes in the amount of white space
  -w, --ignore-all-space          ignore all white space
      --help               display this help and exit
      --version            output version information and exit

FILES are 'FILE1 FILE2' or 'DIR1 DIR2' or 'DIR FILE' or 'FILE DIR'.
If a FILE is '-', read standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
`

// diffOptions are how diff compares and prints.
type diffOptions struct {
	unified           int // lines of context; -1 for the normal format
	brief, identical  bool
	ignoreCase        bool
	ignoreSpaceChange bool
	ignoreAllSpace    bool
	labels            []string
	sawDir            bool
}

// Diff compares two files as GNU diff 3.8 does, in its normal format or
// unified (-u, -U N) format, with -q -s -i -b -w and --label; a directory
// and a file compares the file of the same name in the directory, and
// two directories compare their files of the same names (one level, with
// "Only in" lines), as diff without -r. Lines are matched by Myers'
// algorithm as GNU diff matches them (the shortest edit script, its
// changes then slid as GNU's shift_boundaries slides them); very large
// inputs where GNU gives up on the shortest script may print other,
// equally valid hunks. The context format (-c, -C) is refused. The
// timestamps of -u are the files' modification times in Env.Location.
func Diff(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "diff")
	opts, operands, err := diffSpec.Parse(args)
	if err != nil {
		r.warn("%s", err)
		r.out.Flush()
		fmt.Fprintf(r.env.Stderr, "%s: Try '%s --help' for more information.\n", r.prog, r.prog)
		return 2
	}
	o := diffOptions{unified: -1}
	for _, op := range opts {
		switch op.Key {
		case keyHelp:
			r.help(diffHelp)
			return 0
		case keyVersion:
			r.version()
			return 0
		case 'q':
			o.brief = true
		case 's':
			o.identical = true
		case 'i':
			o.ignoreCase = true
		case 'b':
			o.ignoreSpaceChange = true
		case 'w':
			o.ignoreAllSpace = true
		case 'u', 'U':
			n := 3
			if op.Arg != "" {
				v, err := strconv.Atoi(op.Arg)
				if err != nil || v < 0 {
					r.warn("invalid context length '%s'", op.Arg)
					r.out.Flush()
					fmt.Fprintf(r.env.Stderr, "%s: Try '%s --help' for more information.\n", r.prog, r.prog)
					return 2
				}
				n = v
			}
			o.unified = n
		case 'c', 'C':
			r.warn("the context format (-c, -C) is not supported; use -u")
			return r.finish(2)
		case keyDiffLabel:
			o.labels = append(o.labels, op.Arg)
		case keyDiffNormal:
			o.unified = -1
		}
	}
	switch {
	case len(operands) == 0:
		r.warn("missing operand after '%s'", r.prog)
	case len(operands) == 1:
		r.warn("missing operand after '%s'", operands[0])
	case len(operands) > 2:
		r.warn("extra operand '%s'", operands[2])
	}
	if len(operands) != 2 {
		r.out.Flush()
		fmt.Fprintf(r.env.Stderr, "%s: Try '%s --help' for more information.\n", r.prog, r.prog)
		return 2
	}
	if !r.open() {
		return r.finish(2)
	}
	a, b := operands[0], operands[1]
	ai, aerr := r.diffStat(a)
	bi, berr := r.diffStat(b)
	if aerr != nil || berr != nil {
		if aerr != nil {
			r.warn("%s: %s", a, ErrText(aerr))
		}
		if berr != nil {
			r.warn("%s: %s", b, ErrText(berr))
		}
		return r.finish(2)
	}
	switch {
	case ai != nil && ai.IsDir() && bi != nil && bi.IsDir():
		return r.finish(r.diffDirs(a, b, o))
	case ai != nil && ai.IsDir():
		a = join(a, path.Base(b))
	case bi != nil && bi.IsDir():
		b = join(b, path.Base(a))
	}
	return r.finish(r.diffFiles(a, b, o))
}

// diffStat stats an operand; "-" is standard input (nil info).
func (r *run) diffStat(a string) (fs.FileInfo, error) {
	if a == "-" {
		return nil, nil
	}
	name, ok := r.resolve(a)
	if !ok {
		return nil, fs.ErrNotExist
	}
	return fs.Stat(r.fsys, name)
}

// diffDirs compares the files two directories have in common, in name
// order, and names those only one has.
func (r *run) diffDirs(a, b string, o diffOptions) int {
	list := func(d string) (map[string]fs.DirEntry, error) {
		name, _ := r.resolve(d)
		ents, err := fs.ReadDir(r.fsys, name)
		m := map[string]fs.DirEntry{}
		for _, e := range ents {
			m[e.Name()] = e
		}
		return m, err
	}
	am, err := list(a)
	if err != nil {
		r.warn("%s: %s", a, ErrText(err))
		return 2
	}
	bm, err := list(b)
	if err != nil {
		r.warn("%s: %s", b, ErrText(err))
		return 2
	}
	names := map[string]bool{}
	for n := range am {
		names[n] = true
	}
	for n := range bm {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	st := 0
	for _, n := range sorted {
		if r.stopped() {
			break
		}
		ae, ina := am[n]
		be, inb := bm[n]
		switch {
		case !inb:
			r.out.WriteString("Only in " + a + ": " + n + "\n")
			st = max(st, 1)
		case !ina:
			r.out.WriteString("Only in " + b + ": " + n + "\n")
			st = max(st, 1)
		case ae.IsDir() && be.IsDir():
			r.out.WriteString("Common subdirectories: " + join(a, n) + " and " + join(b, n) + "\n")
		case ae.IsDir() || be.IsDir():
			kind := func(e fs.DirEntry) string {
				if e.IsDir() {
					return "directory"
				}
				return "regular file"
			}
			r.out.WriteString("File " + join(a, n) + " is a " + kind(ae) + " while file " + join(b, n) + " is a " + kind(be) + "\n")
			st = max(st, 1)
		default:
			if s := r.diffFiles(join(a, n), join(b, n), diffOptions{unified: o.unified, brief: o.brief, identical: o.identical, ignoreCase: o.ignoreCase, ignoreSpaceChange: o.ignoreSpaceChange, ignoreAllSpace: o.ignoreAllSpace, sawDir: true}); s > st {
				st = s
			}
		}
	}
	return st
}

// diffFile is one side of a comparison.
type diffFile struct {
	label string
	data  []byte
	lines [][]byte // with their newline, the last maybe without
	ids   []int    // equivalence class of each line
	mtime time.Time
}

// diffRead reads an operand whole (at most HoldLimit bytes).
func (r *run) diffRead(a string) (*diffFile, error) {
	f, err := r.openInput(a)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readHeld(f)
	if err != nil {
		return nil, err
	}
	df := &diffFile{label: a, data: data, mtime: r.now()}
	if fi, ok := f.(fs.File); ok && a != "-" {
		if st, err := fi.Stat(); err == nil {
			df.mtime = st.ModTime()
		}
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			df.lines = append(df.lines, data)
			break
		}
		df.lines = append(df.lines, data[:i+1])
		data = data[i+1:]
	}
	return df, nil
}

// diffFiles compares two files and prints their differences.
func (r *run) diffFiles(a, b string, o diffOptions) int {
	fa, err := r.diffRead(a)
	if err != nil {
		r.warn("%s: %s", a, errText(err))
		return 2
	}
	fb, err := r.diffRead(b)
	if err != nil {
		r.warn("%s: %s", b, errText(err))
		return 2
	}
	header := func() {
		if o.sawDir {
			r.out.WriteString("diff")
			if o.unified >= 0 {
				r.out.WriteString(" -u")
			}
			r.out.WriteString(" " + a + " " + b + "\n")
		}
	}
	same := bytes.Equal(fa.data, fb.data)
	if same {
		if o.identical {
			r.out.WriteString("Files " + a + " and " + b + " are identical\n")
		}
		return 0
	}
	if bytes.IndexByte(fa.data, 0) >= 0 || bytes.IndexByte(fb.data, 0) >= 0 {
		if o.brief {
			r.out.WriteString("Files " + a + " and " + b + " differ\n")
		} else {
			r.out.WriteString("Binary files " + a + " and " + b + " differ\n")
		}
		return 1
	}
	classes := map[string]int{}
	key := func(l []byte) string {
		nl := len(l) > 0 && l[len(l)-1] == '\n'
		s := string(l)
		if nl {
			s = s[:len(s)-1]
		}
		if o.ignoreCase {
			s = strings.ToLower(s)
		}
		switch {
		case o.ignoreAllSpace:
			s = strings.Join(strings.Fields(s), "")
		case o.ignoreSpaceChange:
			s = strings.TrimRight(strings.Join(strings.FieldsFunc(s, isDiffSpace), " "), " ")
			if len(s) > 0 && strings.IndexFunc(string(l[:1]), isDiffSpace) == 0 {
				s = " " + s
			}
		}
		if !nl {
			s += "\x00noeol"
		}
		return s
	}
	for _, f := range []*diffFile{fa, fb} {
		f.ids = make([]int, len(f.lines))
		for i, l := range f.lines {
			k := key(l)
			id, ok := classes[k]
			if !ok {
				id = len(classes)
				classes[k] = id
			}
			f.ids[i] = id
		}
	}
	// As GNU diff does, leave the common first and last lines out of
	// the comparison but for the lines of context it may print.
	horizon := max(o.unified, 0)
	pre := 0
	for pre < len(fa.ids) && pre < len(fb.ids) && fa.ids[pre] == fb.ids[pre] {
		pre++
	}
	suf := 0
	for suf < len(fa.ids)-pre && suf < len(fb.ids)-pre && fa.ids[len(fa.ids)-1-suf] == fb.ids[len(fb.ids)-1-suf] {
		suf++
	}
	lo, hi := max(pre-horizon, 0), max(suf-horizon, 0)
	ma, mb := diffCompare(fa.ids[lo:len(fa.ids)-hi], fb.ids[lo:len(fb.ids)-hi])
	ca := make([]bool, len(fa.ids))
	cb := make([]bool, len(fb.ids))
	copy(ca[lo:], ma)
	copy(cb[lo:], mb)
	hunks := diffHunks(ca, cb)
	if len(hunks) == 0 {
		if o.identical {
			r.out.WriteString("Files " + a + " and " + b + " are identical\n")
		}
		return 0
	}
	if o.brief {
		r.out.WriteString("Files " + a + " and " + b + " differ\n")
		return 1
	}
	header()
	if o.unified >= 0 {
		r.unified(fa, fb, hunks, o)
	} else {
		r.normal(fa, fb, hunks)
	}
	return 1
}

func isDiffSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'
}

// diffHunk is one change: lines [a0, a1) of the first file replaced by
// lines [b0, b1) of the second.
type diffHunk struct{ a0, a1, b0, b1 int }

// diffHunks turns the changed marks into changes.
func diffHunks(ca, cb []bool) []diffHunk {
	var hunks []diffHunk
	i, j := 0, 0
	for i < len(ca) || j < len(cb) {
		if (i < len(ca) && ca[i]) || (j < len(cb) && cb[j]) {
			h := diffHunk{a0: i, b0: j}
			for i < len(ca) && ca[i] {
				i++
			}
			for j < len(cb) && cb[j] {
				j++
			}
			h.a1, h.b1 = i, j
			hunks = append(hunks, h)
			continue
		}
		i++
		j++
	}
	return hunks
}

// writeLine writes a line with a prefix, and GNU's note when it has no
// newline.
func (r *run) writeDiffLine(prefix string, l []byte) {
	r.out.WriteString(prefix)
	r.out.Write(l)
	if len(l) == 0 || l[len(l)-1] != '\n' {
		r.out.WriteString("\n\\ No newline at end of file\n")
	}
}

// normal prints GNU diff's default format.
func (r *run) normal(fa, fb *diffFile, hunks []diffHunk) {
	rng := func(lo, hi int) string {
		// 1-based lines lo+1..hi; an empty range prints the line before.
		if hi-lo == 1 || hi <= lo {
			if hi <= lo {
				return strconv.Itoa(lo)
			}
			return strconv.Itoa(hi)
		}
		return strconv.Itoa(lo+1) + "," + strconv.Itoa(hi)
	}
	for _, h := range hunks {
		switch {
		case h.a1 > h.a0 && h.b1 > h.b0:
			r.out.WriteString(rng(h.a0, h.a1) + "c" + rng(h.b0, h.b1) + "\n")
		case h.a1 > h.a0:
			r.out.WriteString(rng(h.a0, h.a1) + "d" + rng(h.b0, h.b1) + "\n")
		default:
			r.out.WriteString(rng(h.a0, h.a1) + "a" + rng(h.b0, h.b1) + "\n")
		}
		for _, l := range fa.lines[h.a0:h.a1] {
			r.writeDiffLine("< ", l)
		}
		if h.a1 > h.a0 && h.b1 > h.b0 {
			r.out.WriteString("---\n")
		}
		for _, l := range fb.lines[h.b0:h.b1] {
			r.writeDiffLine("> ", l)
		}
	}
}

// unified prints the unified format with o.unified lines of context.
func (r *run) unified(fa, fb *diffFile, hunks []diffHunk, o diffOptions) {
	label := func(f *diffFile, i int) string {
		if i < len(o.labels) {
			return o.labels[i]
		}
		return f.label + "\t" + f.mtime.In(r.loc()).Format("2006-01-02 15:04:05.000000000 -0700")
	}
	r.out.WriteString("--- " + label(fa, 0) + "\n")
	r.out.WriteString("+++ " + label(fb, 1) + "\n")
	ctx := o.unified
	rng := func(lo, hi int) string {
		switch n := hi - lo; {
		case n == 1:
			return strconv.Itoa(lo + 1)
		case n == 0:
			return strconv.Itoa(lo) + ",0"
		default:
			return strconv.Itoa(lo+1) + "," + strconv.Itoa(n)
		}
	}
	for i := 0; i < len(hunks); {
		// Group the changes whose context overlaps or touches.
		j := i
		for j+1 < len(hunks) && hunks[j+1].a0-hunks[j].a1 <= 2*ctx {
			j++
		}
		a0 := max(hunks[i].a0-ctx, 0)
		b0 := max(hunks[i].b0-ctx, 0)
		a1 := min(hunks[j].a1+ctx, len(fa.lines))
		b1 := min(hunks[j].b1+ctx, len(fb.lines))
		r.out.WriteString("@@ -" + rng(a0, a1) + " +" + rng(b0, b1) + " @@\n")
		pos := a0
		for k := i; k <= j; k++ {
			h := hunks[k]
			for _, l := range fa.lines[pos:h.a0] {
				r.writeDiffLine(" ", l)
			}
			for _, l := range fa.lines[h.a0:h.a1] {
				r.writeDiffLine("-", l)
			}
			for _, l := range fb.lines[h.b0:h.b1] {
				r.writeDiffLine("+", l)
			}
			pos = h.a1
		}
		for _, l := range fa.lines[pos:a1] {
			r.writeDiffLine(" ", l)
		}
		i = j + 1
	}
}

// diffCompare marks the lines of a and b (equivalence classes) that are
// not in a longest common subsequence found as GNU diff finds it:
// Myers' divide and conquer on the middle snake (diffseq.h's diag and
// compareseq), then analyze.c's shift_boundaries.
func diffCompare(a, b []int) (ca, cb []bool) {
	// The marks have a false sentinel before and after each file.
	ma := make([]bool, len(a)+2)
	mb := make([]bool, len(b)+2)
	n := len(a) + len(b) + 3
	fd := make([]int, 2*n+1)
	bd := make([]int, 2*n+1)
	off := n // diagonals run from -(len(b)) to len(a)
	var compareseq func(xoff, xlim, yoff, ylim int)
	var ra, rb []int // the real index of each line not discarded
	diag := func(xoff, xlim, yoff, ylim int) (int, int) {
		dmin, dmax := xoff-ylim, xlim-yoff
		fmid, bmid := xoff-yoff, xlim-ylim
		fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
		odd := (fmid-bmid)&1 != 0
		fd[off+fmid] = xoff
		bd[off+bmid] = xlim
		for {
			if fmin > dmin {
				fmin--
				fd[off+fmin-1] = -1
			} else {
				fmin++
			}
			if fmax < dmax {
				fmax++
				fd[off+fmax+1] = -1
			} else {
				fmax--
			}
			for d := fmax; d >= fmin; d -= 2 {
				tlo, thi := fd[off+d-1], fd[off+d+1]
				x0 := tlo + 1
				if tlo < thi {
					x0 = thi
				}
				x, y := x0, x0-d
				for x < xlim && y < ylim && a[x] == b[y] {
					x++
					y++
				}
				fd[off+d] = x
				if odd && bmin <= d && d <= bmax && bd[off+d] <= x {
					return x, y
				}
			}
			const big = int(^uint(0) >> 1)
			if bmin > dmin {
				bmin--
				bd[off+bmin-1] = big
			} else {
				bmin++
			}
			if bmax < dmax {
				bmax++
				bd[off+bmax+1] = big
			} else {
				bmax--
			}
			for d := bmax; d >= bmin; d -= 2 {
				tlo, thi := bd[off+d-1], bd[off+d+1]
				x0 := thi - 1
				if tlo < thi {
					x0 = tlo
				}
				x, y := x0, x0-d
				for xoff < x && yoff < y && a[x-1] == b[y-1] {
					x--
					y--
				}
				bd[off+d] = x
				if !odd && fmin <= d && d <= fmax && x <= fd[off+d] {
					return x, y
				}
			}
		}
	}
	compareseq = func(xoff, xlim, yoff, ylim int) {
		for xoff < xlim && yoff < ylim && a[xoff] == b[yoff] {
			xoff++
			yoff++
		}
		for xoff < xlim && yoff < ylim && a[xlim-1] == b[ylim-1] {
			xlim--
			ylim--
		}
		switch {
		case xoff == xlim:
			for ; yoff < ylim; yoff++ {
				mb[rb[yoff]+1] = true
			}
		case yoff == ylim:
			for ; xoff < xlim; xoff++ {
				ma[ra[xoff]+1] = true
			}
		default:
			xmid, ymid := diag(xoff, xlim, yoff, ylim)
			compareseq(xoff, xmid, yoff, ymid)
			compareseq(xmid, xlim, ymid, ylim)
		}
	}
	// Lines without a match in the other file are changes: GNU diff
	// leaves them (and some lines with very many matches) out of the
	// search, which changes which of the shortest scripts it finds.
	da, db := diffDiscards(a, b), diffDiscards(b, a)
	var ua, ub []int
	for i, v := range a {
		if da[i] {
			ma[i+1] = true
		} else {
			ua, ra = append(ua, v), append(ra, i)
		}
	}
	for i, v := range b {
		if db[i] {
			mb[i+1] = true
		} else {
			ub, rb = append(ub, v), append(rb, i)
		}
	}
	full := [2][]int{a, b}
	a, b = ua, ub
	compareseq(0, len(a), 0, len(b))
	a, b = full[0], full[1]
	diffShift(ma, mb, a)
	diffShift(mb, ma, b)
	return ma[1 : len(a)+1], mb[1 : len(b)+1]
}

// diffShift is GNU diff's shift_boundaries for one file: changed (with
// sentinels, index i+1 for line i) runs of lines are slid to merge with
// other runs and, where possible, to line up with a run of changes in
// the other file.
func diffShift(changed, other []bool, equivs []int) {
	ch := func(i int) bool { return changed[i+1] }
	set := func(i int, v bool) { changed[i+1] = v }
	oc := func(j int) bool { return other[j+1] }
	iEnd := len(equivs)
	i, j := 0, 0
	for {
		for i < iEnd && !ch(i) {
			for oc(j) {
				j++
			}
			j++
			i++
		}
		if i == iEnd {
			return
		}
		start := i
		i++
		for ch(i) {
			i++
		}
		for oc(j) {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			for start > 0 && equivs[start-1] == equivs[i-1] {
				start--
				set(start, true)
				i--
				set(i, false)
				for ch(start - 1) {
					start--
				}
				j--
				for oc(j) {
					j--
				}
			}
			corresponding = iEnd
			if oc(j - 1) {
				corresponding = i
			}
			for i != iEnd && equivs[start] == equivs[i] {
				set(start, false)
				start++
				set(i, true)
				i++
				for ch(i) {
					i++
				}
				j++
				for oc(j) {
					j++
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		for corresponding < i {
			start--
			set(start, true)
			i--
			set(i, false)
			j--
			for oc(j) {
				j--
			}
		}
	}
}

// diffDiscards is GNU diff's discard_confusing_lines for file a against
// b: the lines of a that match no line of b, and those that match very
// many when they sit in a run of such lines between unmatched ones.
func diffDiscards(a, b []int) []bool {
	counts := map[int]int{}
	for _, v := range b {
		counts[v]++
	}
	end := len(a)
	many := 5
	for tem := end / 64; ; {
		tem >>= 2
		if tem <= 0 {
			break
		}
		many *= 2
	}
	d := make([]byte, end)
	for i, v := range a {
		switch n := counts[v]; {
		case n == 0:
			d[i] = 1
		case n > many:
			d[i] = 2
		}
	}
	for i := 0; i < end; i++ {
		if d[i] == 2 {
			d[i] = 0
			continue
		}
		if d[i] == 0 {
			continue
		}
		j, provisional := i, 0
		for ; j < end && d[j] != 0; j++ {
			if d[j] == 2 {
				provisional++
			}
		}
		for j > i && d[j-1] == 2 {
			j--
			d[j] = 0
			provisional--
		}
		length := j - i
		if provisional*4 > length {
			for j > i {
				j--
				if d[j] == 2 {
					d[j] = 0
				}
			}
			continue
		}
		minimum := 1
		for tem := length >> 2; ; {
			tem >>= 2
			if tem <= 0 {
				break
			}
			minimum <<= 1
		}
		minimum++
		consec := 0
		for j = 0; j < length; j++ {
			switch {
			case d[i+j] != 2:
				consec = 0
			default:
				consec++
				if minimum == consec {
					j -= consec
				} else if minimum < consec {
					d[i+j] = 0
				}
			}
		}
		consec = 0
		for j = 0; j < length; j++ {
			if j >= 8 && d[i+j] == 1 {
				break
			}
			switch d[i+j] {
			case 2:
				consec = 0
				d[i+j] = 0
			case 0:
				consec = 0
			default:
				consec++
			}
			if consec == 3 {
				break
			}
		}
		i += length - 1
		consec = 0
		for j = 0; j < length; j++ {
			if j >= 8 && d[i-j] == 1 {
				break
			}
			switch d[i-j] {
			case 2:
				consec = 0
				d[i-j] = 0
			case 0:
				consec = 0
			default:
				consec++
			}
			if consec == 3 {
				break
			}
		}
	}
	out := make([]bool, end)
	for i, v := range d {
		out[i] = v != 0
	}
	return out
}
