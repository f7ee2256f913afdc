package benchcpu

import (
	"testing"
	"time"
)

// Report reports the process CPU time per iteration since start (a value
// of Used) as the metric cpu-ns/op.
func Report(b *testing.B, start time.Duration) {
	if b.N > 0 && start > 0 {
		b.ReportMetric(float64(Used()-start)/float64(b.N), "cpu-ns/op")
	}
}
