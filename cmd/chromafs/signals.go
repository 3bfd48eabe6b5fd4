package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"
)

// signalGrace is how long a command that set signalExit may take to wind
// down after SIGINT or SIGTERM before the process exits anyway.
const signalGrace = 3 * time.Second

// signalExit is set by the commands that have no graceful shutdown of
// their own (grep), for main's notifyContext.
var signalExit atomic.Bool

// notifyContext returns a context that the first of sigs (main's:
// SIGINT and SIGTERM) cancels, the function that stops that
// notification and cancels the context, and a channel closed once the
// handlers are installed.
//
// It is signal.NotifyContext, except that a goroutine installs the
// handlers while the command starts: the first signal.Notify of a
// process starts the runtime's signal thread, and main waiting for that
// start and its hand-offs was a measurable part of every process's start
// (BENCHMARKS.md, "Process start"). A signal that arrives before they
// are installed has its default action, as one before main has.
//
// Every command winds down through the context. When exit is true at
// the first signal (main's is signalExit), that signal also stops the
// notification, so that a second signal ends the process at once (the
// default action), and the process exits with status 2 if it is still
// running signalGrace after the first: work that does not observe the
// context cannot keep it alive. (serve keeps its own graceful
// shutdown.)
func notifyContext(stderr io.Writer, exit *atomic.Bool, sigs ...os.Signal) (ctx context.Context, stop func(), installed <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	ready := make(chan struct{})
	var (
		mu              sync.Mutex
		notified, ended bool
	)
	stop = func() {
		mu.Lock()
		if !ended {
			ended = true
			if notified {
				signal.Stop(ch)
			}
		}
		mu.Unlock()
		cancel()
	}
	go func() {
		signal.Notify(ch, sigs...)
		mu.Lock()
		notified = true
		if ended {
			// stop ran while the handlers were being installed.
			signal.Stop(ch)
		}
		mu.Unlock()
		close(ready)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
			return
		}
		if !exit.Load() {
			return
		}
		stop()
		time.Sleep(signalGrace)
		fmt.Fprintf(stderr, "chromafs: still running %v after the interrupt; exiting\n", signalGrace)
		os.Exit(2)
	}()
	return ctx, stop, ready
}
