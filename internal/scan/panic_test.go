package scan

import (
	"context"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/safego"
)

// panickingBackend has a tip and panics when asked for block hashes, which
// the scanner does on the goroutines that fetch windows ahead.
type panickingBackend struct {
	chain.Backend
}

func (panickingBackend) Tip(context.Context) (chain.BlockID, error) {
	return chain.BlockID{Height: 100}, nil
}

func (panickingBackend) BlockHashes(context.Context, []int32) ([]chainhash.Hash, error) {
	var m map[int32]chainhash.Hash
	m[0] = chainhash.Hash{} // a nil-map write: a bug in the backend
	return nil, nil
}

// TestRescanSurvivesPanickingFetch: a panic on a window-fetching goroutine
// fails the rescan with an internal error instead of killing the process.
func TestRescanSurvivesPanickingFetch(t *testing.T) {
	w := &testWallet{scripts: decoys(3)}
	s := New(Config{Backend: panickingBackend{}, Source: w, Sink: w, NoFilters: true})
	_, err := s.Rescan(context.Background(), 0, 50)
	var pe *safego.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Rescan: %v, want a *safego.PanicError", err)
	}
	if _, running := s.Progress(); running {
		t.Error("rescan still marked running")
	}
}
