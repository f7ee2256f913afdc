package wallet_test

import (
	"context"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
)

// TestCommitTxKeptUntilSeen checks that a transaction the wallet commits
// is not forgotten by a mempool read that does not show it yet (one taken
// before the relay), that its input is spent at once, that once the
// mempool has shown it, leaving the mempool makes it inactive (kept, its
// input still spent, as Core), and that abandoning it frees the input
// until it is seen again.
func TestCommitTxKeptUntilSeen(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	w, spk := lockWallet(t, m)
	fund := fundInBlock(t, w, 7, wallet.BlockInfo{Height: 10, Hash: chainhash.Hash{0xa1}, Time: 1700000100}, spk, 5000)
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: fund.TxHash(), Index: 0}, nil, nil))
	spend.AddTxOut(wire.NewTxOut(4000, spk))
	if err := w.CommitTx(ctx, spend, wallet.TxComments{}); err != nil {
		t.Fatal(err)
	}
	coins := func() map[wire.OutPoint]bool {
		cs, err := w.SpendCoins(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[wire.OutPoint]bool{}
		for _, c := range cs {
			out[c.OutPoint] = true
		}
		return out
	}
	spendOut := wire.OutPoint{Hash: spend.TxHash(), Index: 0}
	if cs := coins(); cs[wire.OutPoint{Hash: fund.TxHash()}] || !cs[spendOut] {
		t.Fatalf("after commit, coins %v", cs)
	}
	none := func(chainhash.Hash) bool { return false }
	if n, err := w.DropUnconfirmed(ctx, none); err != nil || n != 0 {
		t.Fatalf("a mempool read without the committed transaction dropped %d (%v)", n, err)
	}
	if !coins()[spendOut] {
		t.Fatal("committed transaction forgotten")
	}
	if n, err := w.DropUnconfirmed(ctx, func(h chainhash.Hash) bool { return h == spend.TxHash() }); err != nil || n != 0 {
		t.Fatalf("dropped %d (%v) with the transaction in the mempool", n, err)
	}
	if n, err := w.MempoolLeft(ctx, none); err != nil || n != 1 {
		t.Fatalf("after it left the mempool, %d left (%v)", n, err)
	}
	// Core keeps it, inactive: its input stays spent, its output is not
	// spendable (not in the mempool), and it is still listed.
	if cs := coins(); cs[wire.OutPoint{Hash: fund.TxHash()}] || cs[spendOut] {
		t.Fatalf("after it left the mempool, coins %v", cs)
	}
	if _, err := w.Transaction(ctx, spend.TxHash()); err != nil {
		t.Fatalf("transaction forgotten after it left the mempool: %v", err)
	}
	// Abandoning it frees its input.
	if err := w.AbandonTransaction(ctx, spend.TxHash(), none); err != nil {
		t.Fatal(err)
	}
	if cs := coins(); !cs[wire.OutPoint{Hash: fund.TxHash()}] || cs[spendOut] {
		t.Fatalf("after abandoning, coins %v", cs)
	}
	det, err := w.Transaction(ctx, spend.TxHash())
	if err != nil || !det.Info.Abandoned || det.Info.Confirmations != 0 {
		t.Fatalf("abandoned transaction: %+v %v", det, err)
	}
	// Seen in the mempool again, it is no longer abandoned.
	if _, err := w.MempoolLeft(ctx, func(h chainhash.Hash) bool { return h == spend.TxHash() }); err != nil {
		t.Fatal(err)
	}
	if cs := coins(); cs[wire.OutPoint{Hash: fund.TxHash()}] || !cs[spendOut] {
		t.Fatalf("back in the mempool, coins %v", cs)
	}
	if det, _ := w.Transaction(ctx, spend.TxHash()); det.Info.Abandoned {
		t.Fatal("still abandoned back in the mempool")
	}
}
