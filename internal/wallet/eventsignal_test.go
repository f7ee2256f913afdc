package wallet_test

import (
	"context"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// TestEventsChanged: the channel taken before a commit that appends events
// is closed by it; a commit without events (the same mempool transaction
// again) leaves the next channel open; closing the wallet closes it.
func TestEventsChanged(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	w, spk := lockWallet(t, m)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{7}}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, spk))

	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	ch := w.EventsChanged()
	if closed(ch) {
		t.Fatal("closed before any event")
	}
	if err := w.MempoolTxs(ctx, []*wire.MsgTx{tx}); err != nil {
		t.Fatal(err)
	}
	if !closed(ch) {
		t.Fatal("not woken by a received event")
	}
	ch = w.EventsChanged()
	if err := w.MempoolTxs(ctx, []*wire.MsgTx{tx}); err != nil {
		t.Fatal(err)
	}
	if closed(ch) {
		t.Fatal("woken by a commit that appended no event")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !closed(ch) || !closed(w.EventsChanged()) {
		t.Fatal("not woken by the wallet closing")
	}
}
