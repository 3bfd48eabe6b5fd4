package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// signalGrace is how long a command that set signalExit may take to wind
// down after SIGINT or SIGTERM before the process exits anyway.
const signalGrace = 3 * time.Second

// signalExit is set by the commands that have no graceful shutdown of
// their own (grep), for exitAfterSignal.
var signalExit atomic.Bool

// exitAfterSignal is started by main with the context that the first
// SIGINT or SIGTERM cancels and the function that stops that
// notification. Every command winds down through its context. When the
// running command has set signalExit, exitAfterSignal also restores the
// signals' default action, so that a second signal ends the process at
// once, and ends the process with status 2 if it is still running
// signalGrace after the first: work that does not observe the context
// cannot keep the process alive. (serve keeps its own graceful shutdown.)
func exitAfterSignal(ctx context.Context, stop context.CancelFunc, stderr io.Writer) {
	<-ctx.Done()
	if !signalExit.Load() {
		return
	}
	stop()
	time.Sleep(signalGrace)
	fmt.Fprintf(stderr, "chromafs: still running %v after the interrupt; exiting\n", signalGrace)
	os.Exit(2)
}
