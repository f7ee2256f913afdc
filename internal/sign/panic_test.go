package sign

import (
	"context"
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

// TestSignTransactionContextStops: with its context ended, signing many
// inputs stops, returns the context's error and leaves the transaction
// unsigned; with a live context it signs as SignTransaction does.
func TestSignTransactionContextStops(t *testing.T) {
	keys := make([]*Key, 64)
	for i := range keys {
		keys[i] = benchKey(byte(i))
	}
	p := NewProvider(keys...)
	tx, coins := benchTx(len(keys), func(i int) []byte { return p2wpkhFor(keys[i]) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SignTransactionContext(ctx, tx, coins, p, SigHashDefault); err != context.Canceled {
		t.Fatalf("cancelled: %v", err)
	}
	for i, in := range tx.TxIn {
		if len(in.Witness) != 0 {
			t.Fatalf("input %d signed by a cancelled call", i)
		}
	}
	errs, err := SignTransactionContext(context.Background(), tx, coins, p, SigHashDefault)
	if err != nil || len(errs) != 0 {
		t.Fatalf("live context: %v %v", err, errs)
	}
}
