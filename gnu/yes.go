package gnu

import (
	"bytes"
	"context"
	"strings"

	"github.com/chromafs/chromafs/internal/getopt"
)

var yesSpec = getopt.Spec{Long: helpVersion}

const yesHelp = `Usage: %[1]s [STRING]...
  or:  %[1]s OPTION
Repeatedly output a line with all specified STRING(s), or 'y'.

      --help        display this help and exit
      --version     output version information and exit
`

// Yes writes its operands joined by spaces (or "y") and a newline again
// and again, as GNU yes 9.1 does, until writing fails (a closed pipe: a
// caller such as a shell ends it as SIGPIPE would) or ctx ends.
func Yes(ctx context.Context, env *Env, args []string) int {
	r := newRun(ctx, env, "yes")
	_, operands, done, status := r.parse(&yesSpec, args, 1, yesHelp)
	if done {
		return status
	}
	line := "y\n"
	if len(operands) > 0 {
		line = strings.Join(operands, " ") + "\n"
	}
	buf := bytes.Repeat([]byte(line), max(1, 8192/len(line)))
	for !r.stopped() {
		if _, err := r.out.Write(buf); err != nil {
			break
		}
	}
	return r.finish(1)
}
