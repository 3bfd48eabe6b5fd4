package main

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContext: once its handler is installed, the signal (SIGUSR1
// here: testenv ends the test process on SIGINT and SIGTERM) cancels the
// context instead of ending the process; stop cancels it too, also when
// it runs before the handler is installed. (Its exit flag is its own:
// the in-process grep tests set signalExit, with which the signal would
// end the test process.)
func TestNotifyContext(t *testing.T) {
	t.Run("signal", func(t *testing.T) {
		ctx, stop, installed := notifyContext(io.Discard, new(atomic.Bool), syscall.SIGUSR1)
		defer stop()
		<-installed
		if err := ctx.Err(); err != nil {
			t.Fatalf("context ended before any signal: %v", err)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("SIGUSR1 did not cancel the context")
		}
	})
	t.Run("stop before installed", func(t *testing.T) {
		ctx, stop, installed := notifyContext(io.Discard, new(atomic.Bool), syscall.SIGUSR1)
		stop()
		if ctx.Err() == nil {
			t.Fatal("stop did not cancel the context")
		}
		<-installed
		stop() // a second stop is harmless
	})
}
