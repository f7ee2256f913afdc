package sign

import (
	"errors"
	"runtime"
	"testing"

	"github.com/descwallet/descwallet/internal/safego"
)

// TestParallelWorkersRecoverPanics: a panic in one job, on the pool or on
// the calling goroutine, comes back as a *safego.PanicError instead of
// killing the process.
func TestParallelWorkersRecoverPanics(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, n := range []int{parallelThreshold, 200} {
		err := parallelWorkers(n, func() func(int) {
			return func(i int) {
				if i == n/2 {
					var p *Key
					_ = p.pubBytes // nil dereference
				}
			}
		})
		var pe *safego.PanicError
		if !errors.As(err, &pe) {
			t.Errorf("n=%d: got %v, want a *safego.PanicError", n, err)
		}
	}
	done := make([]bool, 200)
	if err := parallelFor(len(done), func(i int) { done[i] = true }); err != nil {
		t.Fatal(err)
	}
	for i, d := range done {
		if !d {
			t.Fatalf("job %d not run", i)
		}
	}
}
