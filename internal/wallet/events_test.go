package wallet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestEventLog follows a wallet through a mempool payment, its block, a
// payment first seen in a block, tips reaching depth 6, a rollback and a
// reload: the log holds exactly the expected events in order, with
// increasing cursors, and after the reload depths already reported are not
// reported again.
func TestEventLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	w, spk := lockWallet(t, m)
	pay := func(seed byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{seed}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		return tx
	}
	a, b := pay(1), pay(2)
	name := map[[32]byte]string{a.TxHash(): "a", b.TxHash(): "b"}
	blk := func(h int32, fork byte) wallet.BlockInfo {
		return wallet.BlockInfo{Height: h, Hash: chainhash.Hash{byte(h), fork}, Time: 1700000000 + int64(h)}
	}
	tip := func(h int32, fork byte) []wallet.BlockRef {
		return []wallet.BlockRef{{Height: h, Hash: blk(h, fork).Hash}}
	}
	var cursor int64
	check := func(step string, want ...string) {
		t.Helper()
		evs, err := w.Events(ctx, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			if e.Cursor <= cursor {
				t.Errorf("%s: cursor %d after %d", step, e.Cursor, cursor)
			}
			cursor = e.Cursor
			s := e.Kind + " " + name[e.TxID]
			if e.Kind == wallet.EventConfirmed {
				s += fmt.Sprintf(" %d", e.Depth)
			}
			if e.Height >= 0 {
				if e.BlockHash != blk(e.Height, e.BlockHash[1]).Hash {
					t.Errorf("%s: event at %d with block %x", step, e.Height, e.BlockHash)
				}
				s += fmt.Sprintf(" @%d", e.Height)
			}
			got = append(got, s)
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: events %q, want %q", step, got, want)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	must(w.MempoolTxs(ctx, []*wire.MsgTx{a}))
	check("mempool", "received a")
	must(w.MempoolTxs(ctx, []*wire.MsgTx{a}))
	check("mempool again")
	must(w.BlockConnected(ctx, blk(100, 0), []*wire.MsgTx{a}, nil))
	must(w.Checkpoint(ctx, tip(100, 0)))
	check("mined", "confirmed a 1 @100")
	must(w.BlockConnected(ctx, blk(100, 0), []*wire.MsgTx{a}, nil))
	check("block again")
	must(w.BlockConnected(ctx, blk(101, 0), []*wire.MsgTx{b}, nil))
	check("first seen in a block", "received b @101", "confirmed b 1 @101")
	must(w.Checkpoint(ctx, tip(104, 0)))
	check("depth 5 and 4")
	must(w.Checkpoint(ctx, tip(105, 0)))
	check("depth 6 of a", "confirmed a 6 @100")
	must(w.Checkpoint(ctx, tip(106, 0)))
	check("depth 6 of b", "confirmed b 6 @101")
	must(w.Checkpoint(ctx, tip(110, 0)))
	check("deeper")
	must(w.Rollback(ctx, 100))
	check("reorg", "reorged b @101")

	// A reload keeps the log and what it reported.
	must(m.Close())
	m = newManager(dir)
	defer m.Close()
	var err error
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	must(w.Checkpoint(ctx, tip(110, 1)))
	check("after reload")
	must(w.BlockConnected(ctx, blk(102, 1), []*wire.MsgTx{b}, nil))
	check("b mined again", "confirmed b 1 @102")
	must(w.Checkpoint(ctx, tip(107, 1)))
	check("b at depth 6 again", "confirmed b 6 @102")
	evs, err := w.Events(ctx, 0, 3)
	if err != nil || len(evs) != 3 || evs[0].Kind != wallet.EventReceived || evs[2].Cursor <= evs[1].Cursor {
		t.Errorf("limit 3 from the start: %+v %v", evs, err)
	}
}

// TestEventLogDepths: with depth 3 alone configured, a payment first seen
// in a block gives received only, and confirmed once its block is 3 deep.
func TestEventLogDepths(t *testing.T) {
	ctx := context.Background()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10, EventDepths: []int32{3}})
	defer m.Close()
	w, spk := lockWallet(t, m)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{7}}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, spk))
	kinds := func() string {
		evs, err := w.Events(ctx, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, e := range evs {
			s = append(s, fmt.Sprintf("%s %d", e.Kind, e.Depth))
		}
		return strings.Join(s, "; ")
	}
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 50, Hash: chainhash.Hash{50}}, []*wire.MsgTx{tx}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 51, Hash: [32]byte{51}}}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); got != "received 0" {
		t.Errorf("at depth 2: %s", got)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 52, Hash: [32]byte{52}}}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); got != "received 0; confirmed 3" {
		t.Errorf("at depth 3: %s", got)
	}
}
