package sed

import "regexp"

// Program is a compiled script. It holds no state of a run: one Program
// may run any number of times, also at once.
type Program struct {
	cmds  []command
	quiet bool // the script starts with "#n"
}

type addrKind int

const (
	addrLine addrKind = iota
	addrLast
	addrRe
	addrStep // first~step
	addrPlus // addr1,+N
	addrMult // addr1,~N
)

type addr struct {
	kind       addrKind
	n, step    int
	re         *regexp.Regexp // nil with addrRe: the last regex used
	emptyRegex bool
}

type replPart struct {
	lit   string
	group int  // -1: a literal
	conv  byte // case conversion before it: 'L' 'U' 'l' 'u' 'E' or 0
}

// command is one command of a script with its addresses. Run works on a
// copy of the Program's commands, whose range fields are the state of
// that run.
type command struct {
	a1, a2 *addr
	neg    bool
	cmd    byte
	text   string // a i c text, label, file name
	num    int    // q Q exit status, l width (-1 if none)
	jump   int    // index of the target for b t T {; -1: end of script

	re     *regexp.Regexp // s (nil: last regex)
	repl   []replPart
	global bool
	nth    int
	print  int
	wout   string // s///w, w, W: "/dev/stdout" or "/dev/stderr"
	ymap   map[rune]rune

	// The state of a range during a run.
	active    bool // a range is open
	rangeEnd  int  // last line of a numeric range
	closedNum bool // a range whose first address is a line number ended
}
