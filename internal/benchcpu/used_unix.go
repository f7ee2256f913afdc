//go:build unix

package benchcpu

import (
	"syscall"
	"time"
)

// Used returns the CPU time (user and system) the process has used so far,
// zero when it cannot be read.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
