//go:build unix

package sign

import (
	"syscall"
	"testing"
	"time"
)

// processCPUTime returns the CPU time (user and system) the process has
// used so far: on a shared machine it depends less on the load than wall
// time does.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per iteration since start as the
// metric cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 && start > 0 {
		b.ReportMetric(float64(processCPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
