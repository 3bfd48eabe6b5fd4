//go:build unix

package chromafs_test

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time the process has used, user and system,
// on all its threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per iteration since start (a
// processCPU reading) as cpu-ms/op: on a shared machine it varies far
// less with the load than ns/op does.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
