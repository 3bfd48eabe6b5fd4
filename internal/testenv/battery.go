package testenv

import (
	"os"
	"testing"
)

// RaceBatteries is the environment variable that runs the batteries
// under -race too: CHROMAFS_RACE_BATTERIES=1.
const RaceBatteries = "CHROMAFS_RACE_BATTERIES"

// Battery marks the calling test as a GNU differential battery: many
// cases compared one by one with GNU grep or bash, whose cost under the
// race detector buys little race coverage. Call it first in the test
// function. Under -race it skips the test, unless CHROMAFS_RACE_BATTERIES
// is 1; without -race it does nothing.
//
// `make test` runs every battery in a second `go test` without -race:
// the Makefile's BATTERY_RUN pattern over its BATTERY_PKGS (`make
// test-batteries` runs that pass alone). TestBatteriesInMakefile fails
// when a test that calls Battery is not selected by them, so that no
// battery is skipped by both passes. What the batteries no longer check
// under -race, the matchers' lazily built state shared by concurrent
// scans, package regex's TestMatchersConcurrent checks, and it is not a
// battery.
func Battery(tb testing.TB) {
	tb.Helper()
	if Race && os.Getenv(RaceBatteries) != "1" {
		tb.Skip("GNU differential battery: skipped under -race; `make test` runs it without -race " +
			"(`make test-batteries` runs the batteries alone), and " + RaceBatteries + "=1 runs it here")
	}
}
