package wallet_test

import (
	"context"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestSmartTime feeds blocks to a wallet, some from a rescan and some from
// following the tip, and checks each transaction's listed time against
// Core's ComputeTimeSmart, the listing order (the order the wallet recorded
// them in), and that the times survive a reload.
func TestSmartTime(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true,
		Desc: descriptor.AddChecksum("raw(51)"), Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		t.Fatalf("import: %v %+v", err, res)
	}
	now := time.Now().Unix()
	type step struct {
		rescan    bool
		blockTime int64
		// want is the listed time; wantNow asks for the time of the
		// call (between the clock before and after it).
		want    int64
		wantNow bool
	}
	steps := []step{
		// A rescan gives the block's time, even a future one.
		{rescan: true, blockTime: now - 5000, want: now - 5000},
		// A new block older than the latest transaction: that one's time.
		{blockTime: now - 10000, want: now - 5000},
		// A new block from the future: the time received.
		{blockTime: now + 100000, wantNow: true},
		{rescan: true, blockTime: now + 50000, want: now + 50000},
		// The latest transaction lies more than 5 minutes ahead: it is
		// passed over for the one before (received now), which bounds
		// the old block's time from below.
		{blockTime: now - 20000, wantNow: true},
	}
	var ids []chainhash.Hash
	bounds := make([][2]int64, len(steps))
	for i, s := range steps {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{byte(i + 1)}, Index: 0}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(int64(1000*(i+1)), []byte{0x51}))
		ids = append(ids, tx.TxHash())
		blk := wallet.BlockInfo{Height: int32(100 + i), Hash: chainhash.Hash{0xb0, byte(i)}, Time: s.blockTime, Rescan: s.rescan}
		bounds[i][0] = time.Now().Unix()
		if err := w.BlockConnected(ctx, blk, []*wire.MsgTx{tx}, []int{1}); err != nil {
			t.Fatal(err)
		}
		bounds[i][1] = time.Now().Unix()
	}
	check := func(w *wallet.Wallet, when string) {
		list, err := w.ListTransactions(ctx, nil, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(steps) {
			t.Fatalf("%s: %d entries, want %d", when, len(list), len(steps))
		}
		for i, e := range list {
			if e.Info.TxID != ids[i] {
				t.Errorf("%s: entry %d is %s, want %s (recording order)", when, i, e.Info.TxID, ids[i])
				continue
			}
			s := steps[i]
			if s.wantNow {
				if e.Info.Time < bounds[i][0] || e.Info.Time > bounds[i][1] {
					t.Errorf("%s: entry %d time %d, want the time received [%d, %d]", when, i, e.Info.Time, bounds[i][0], bounds[i][1])
				}
			} else if e.Info.Time != s.want {
				t.Errorf("%s: entry %d time %d, want %d", when, i, e.Info.Time, s.want)
			}
			if e.Info.TimeReceived < bounds[i][0] || e.Info.TimeReceived > bounds[i][1] {
				t.Errorf("%s: entry %d timereceived %d, want [%d, %d]", when, i, e.Info.TimeReceived, bounds[i][0], bounds[i][1])
			}
			if e.Info.BlockTime != s.blockTime {
				t.Errorf("%s: entry %d blocktime %d, want %d", when, i, e.Info.BlockTime, s.blockTime)
			}
			d, err := w.Transaction(ctx, ids[i])
			if err != nil {
				t.Fatal(err)
			}
			if d.Info.Time != e.Info.Time {
				t.Errorf("%s: gettransaction time %d, listtransactions %d", when, d.Info.Time, e.Info.Time)
			}
		}
	}
	check(w, "live")
	if _, err := m.Unload(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	w, _, err = m.Load(ctx, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	check(w, "reloaded")
}
