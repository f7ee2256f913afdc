//go:build !unix

package benchcpu

import "time"

// Used returns zero: the platform has no getrusage.
func Used() time.Duration { return 0 }
