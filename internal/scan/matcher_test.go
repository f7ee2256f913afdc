package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// askedWallet is a memWallet whose scripts are not listed (a wallet whose
// database holds them): the follower asks MatchScripts.
type askedWallet struct {
	*memWallet
	asks    int // MatchScripts calls
	failAsk error
}

func (w *askedWallet) WatchList(ctx context.Context) (*WatchList, error) {
	wl, err := w.memWallet.WatchList(ctx)
	if err != nil {
		return nil, err
	}
	wl.Scripts, wl.ByMatch = nil, true
	return wl, nil
}

func (w *askedWallet) MatchScripts(ctx context.Context, scripts [][]byte) ([]bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asks++
	if err := w.failAsk; err != nil {
		w.failAsk = nil
		return nil, err
	}
	out := make([]bool, len(scripts))
	for i, s := range scripts {
		for _, m := range w.scripts {
			if bytes.Equal(s, m) {
				out[i] = true
			}
		}
	}
	return out, nil
}

// TestFollowerAsksMatcher follows a chain for a wallet that lists its
// scripts and one that is asked about them: each gets exactly its
// transactions (a payment, a spend of the paid output, a script both
// hold) whatever the path chosen, the asked one in one question per block,
// every block fetched once; a failed answer takes the asked wallet out of
// the round and it catches up; its mempool payments reach it.
func TestFollowerAsksMatcher(t *testing.T) {
	for _, path := range []int{pathAuto, pathFilter, pathRaw} {
		t.Run(fmt.Sprint("path", path), func(t *testing.T) {
			ctx := context.Background()
			c := newMemChain(t)
			f := NewFollower(Config{Backend: c})
			f.e.path = path
			shared := testScript("shared")
			a := &askedWallet{memWallet: &memWallet{scripts: [][]byte{testScript("a0"), testScript("a1"), shared}}}
			b := &memWallet{scripts: [][]byte{testScript("b0"), shared}}
			f.Add(a, a, ChainState{})
			f.Add(b, b, ChainState{})
			if _, err := f.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			stranger := testScript("stranger")
			payA := payTx(wire.OutPoint{Hash: chainhash.Hash{1}}, testScript("a1"), stranger)
			payShared := payTx(wire.OutPoint{Hash: chainhash.Hash{2}}, shared)
			c.mine(t, stranger, payA, payShared)
			c.mine(t, stranger)
			spendA := payTx(wire.OutPoint{Hash: payA.TxHash(), Index: 0}, stranger)
			c.mine(t, stranger, spendA)
			c.calls = map[string]int{}
			a.asks = 0
			if n, err := f.Sync(ctx); err != nil || n != 3 {
				t.Fatalf("Sync: %d blocks, %v", n, err)
			}
			sameFound(t, "a", a.take(), blkTx(1, payA), blkTx(1, payShared), blkTx(3, spendA))
			sameFound(t, "b", b.take(), blkTx(1, payShared))
			if a.asks != 3 {
				t.Errorf("asked %d times for 3 blocks", a.asks)
			}
			if c.calls["block"]+c.calls["raw"] != 3 {
				t.Errorf("fetches %v for 3 blocks", c.calls)
			}

			// A failed answer takes a out of the round; b goes on, and
			// a catches up (in the same Sync or the next) and gets the
			// block once.
			a.failAsk = errors.New("database down")
			a.asks = 0
			payA2 := payTx(wire.OutPoint{Hash: chainhash.Hash{4}}, testScript("a0"), testScript("b0"))
			c.mine(t, stranger, payA2)
			if _, err := f.Sync(ctx); err != nil {
				t.Fatalf("Sync with a failing matcher: %v", err)
			}
			sameFound(t, "b", b.take(), blkTx(4, payA2))
			if _, err := f.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			sameFound(t, "a after its failure", a.take(), blkTx(4, payA2))
			if a.asks < 2 {
				t.Errorf("asked %d times around a failure", a.asks)
			}

			// The mempool: one question for the batch.
			payMem := payTx(wire.OutPoint{Hash: chainhash.Hash{5}}, testScript("a0"))
			c.mempool = []*wire.MsgTx{payMem, payTx(wire.OutPoint{Hash: chainhash.Hash{6}}, stranger)}
			a.asks = 0
			if _, err := f.PollMempool(ctx); err != nil {
				t.Fatal(err)
			}
			sameFound(t, "a mempool", a.take(), blkTx(-1, payMem))
			if a.asks != 1 {
				t.Errorf("asked %d times for one mempool batch", a.asks)
			}
		})
	}
}
