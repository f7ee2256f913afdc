//go:build !unix

package methods

import (
	"testing"
	"time"
)

func processCPUTime() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
