package wallet_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
)

// TestForeignMempoolConflict follows a payment whose sender replaces it in
// the mempool with a transaction paying elsewhere, which the wallet does
// not record (Core's mempool_conflicts with a foreign transaction): the
// payment and the wallet's spend of its output list the replacement in
// mempoolconflicts, are not trusted and count in no balance once they left
// the mempool; each gets one replaced event naming the replacement, which
// neither a second delivery nor a reopen reading the same mempool repeats;
// the conflict ends when the replacement leaves the mempool (the child
// spends the payment's output again), and a block
// holding it makes the payment conflicted (negative confirmations, no
// mempool conflict left).
func TestForeignMempoolConflict(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	defer func() { m.Close() }()
	w, spk := lockWallet(t, m)
	other := append([]byte{0x00, 0x14}, make([]byte, 20)...)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	coin := wire.OutPoint{Hash: chainhash.Hash{0x79}, Index: 2}
	pay := wire.NewMsgTx(2)
	pay.AddTxIn(wire.NewTxIn(&coin, nil, nil))
	pay.AddTxOut(wire.NewTxOut(7000, spk))
	child := wire.NewMsgTx(2)
	child.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: pay.TxHash()}, nil, nil))
	child.AddTxOut(wire.NewTxOut(3000, other))
	child.AddTxOut(wire.NewTxOut(3500, spk))
	repl := wire.NewMsgTx(2)
	repl.AddTxIn(wire.NewTxIn(&coin, nil, nil))
	repl.AddTxOut(wire.NewTxOut(6500, other))
	// A stranger's transaction spending neither: not a conflict.
	stranger := wire.NewMsgTx(2)
	stranger.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0x7a}}, nil, nil))
	stranger.AddTxOut(wire.NewTxOut(1000, other))
	name := map[[32]byte]string{pay.TxHash(): "pay", child.TxHash(): "child", repl.TxHash(): "repl", {}: "-"}

	must(w.FollowerMempool(ctx, []*wire.MsgTx{pay}))
	must(w.CommitTx(ctx, child, wallet.TxComments{}))
	pooled := map[chainhash.Hash]bool{pay.TxHash(): true, child.TxHash(): true}
	must2 := func(_ int, err error) { t.Helper(); must(err) }
	must2(w.MempoolLeft(ctx, func(id chainhash.Hash) bool { return pooled[id] }))

	info := func(id chainhash.Hash) wallet.TxInfo {
		t.Helper()
		d, err := w.Transaction(ctx, id)
		must(err)
		return d.Info
	}
	conflicts := func(step string, want ...chainhash.Hash) {
		t.Helper()
		for _, id := range []chainhash.Hash{pay.TxHash(), child.TxHash()} {
			if got := info(id).MempoolConflicts; !slices.Equal(got, want) {
				t.Fatalf("%s: mempoolconflicts of %s %v, want %v", step, name[id], got, want)
			}
		}
	}
	events := func() []string {
		t.Helper()
		evs, err := w.Events(ctx, 0, 100)
		must(err)
		var out []string
		for _, e := range evs {
			out = append(out, fmt.Sprintf("%s %s %s", e.Kind, name[e.TxID], name[e.Related]))
		}
		return out
	}
	wantEvents := func(step string, want ...string) {
		t.Helper()
		if got := events(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: events\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	conflicts("before")
	if bal, _ := w.Balances(ctx); bal.UntrustedPending != 3500 || bal.Trusted != 0 {
		t.Fatalf("before: balances %+v", bal)
	}
	base := []string{"received pay -", "sent child -"}
	wantEvents("before", base...)
	// The payment's foreign input is watched: a mempool transaction
	// spending it is handed in.
	_, _, ops, err := w.WatchList(ctx)
	if err != nil || !slices.Contains(ops, coin) {
		t.Fatalf("the payment's input is not watched: %v %v", ops, err)
	}

	// The sender replaces the payment: the stranger's transaction comes in
	// the same delivery and changes nothing.
	must(w.FollowerMempool(ctx, []*wire.MsgTx{stranger, repl}))
	conflicts("replaced", repl.TxHash())
	if _, err := w.Transaction(ctx, repl.TxHash()); err == nil {
		t.Fatal("the replacement was recorded")
	}
	replaced := append(slices.Clone(base), "replaced pay repl", "replaced child repl")
	wantEvents("replaced", replaced...)
	// Out of the mempool at once (the backend holds no two spends of one
	// coin), before a mempool read says so: nothing pending.
	if bal, _ := w.Balances(ctx); bal != (wallet.Balances{}) {
		t.Fatalf("replaced: balances %+v", bal)
	}
	pooled = map[chainhash.Hash]bool{repl.TxHash(): true, stranger.TxHash(): true}
	must2(w.MempoolLeft(ctx, func(id chainhash.Hash) bool { return pooled[id] }))
	conflicts("replaced, left", repl.TxHash())
	for _, id := range []chainhash.Hash{pay.TxHash(), child.TxHash()} {
		if in := info(id); in.Trusted == nil || *in.Trusted || in.Confirmations != 0 {
			t.Fatalf("replaced %s: %+v", name[id], in)
		}
	}
	if bal, _ := w.Balances(ctx); bal != (wallet.Balances{}) {
		t.Fatalf("replaced: balances %+v", bal)
	}
	// A mempool-conflicted transaction does not spend its inputs (Core's
	// IsSpent).
	if w.Output(ctx, wire.OutPoint{Hash: pay.TxHash()}).Spent {
		t.Fatal("replaced: the child still spends the payment's output")
	}
	// The same transaction again: nothing new.
	must(w.FollowerMempool(ctx, []*wire.MsgTx{repl}))
	wantEvents("delivered again", replaced...)

	// A reopen starts without the conflict (memory only, as Core's); the
	// first mempool read finds it again, without a second event.
	must(m.Close())
	m = newManager(dir)
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	conflicts("reopened")
	// A new payment in the same read makes the delivery write.
	pay2 := wire.NewMsgTx(2)
	pay2.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0x7b}}, nil, nil))
	pay2.AddTxOut(wire.NewTxOut(2000, spk))
	name[pay2.TxHash()] = "pay2"
	must(w.FollowerMempool(ctx, []*wire.MsgTx{repl, pay2}))
	pooled[pay2.TxHash()] = true
	must2(w.MempoolLeft(ctx, func(id chainhash.Hash) bool { return pooled[id] }))
	conflicts("reopened, read again", repl.TxHash())
	replaced = append(replaced, "received pay2 -")
	wantEvents("reopened, read again", replaced...)

	// The replacement leaves the mempool (evicted): the conflict ends; the
	// payment stays inactive and the child spends its output again.
	pooled = map[chainhash.Hash]bool{}
	must2(w.MempoolLeft(ctx, func(id chainhash.Hash) bool { return pooled[id] }))
	conflicts("replacement gone")
	if !w.Output(ctx, wire.OutPoint{Hash: pay.TxHash()}).Spent {
		t.Fatal("replacement gone: the child no longer spends the payment's output")
	}

	// It comes back and is mined: a block conflict, no mempool conflict.
	must(w.FollowerMempool(ctx, []*wire.MsgTx{repl}))
	conflicts("back", repl.TxHash())
	wantEvents("back", replaced...)
	must(w.FollowerBlock(ctx, wallet.BlockInfo{Height: 60, Hash: chainhash.Hash{0xd6}, Time: 1700000600},
		[]*wire.MsgTx{repl}, []int{1}))
	must(w.Checkpoint(ctx, []wallet.BlockRef{{Height: 60, Hash: [32]byte{0xd6}}}))
	conflicts("mined")
	for _, id := range []chainhash.Hash{pay.TxHash(), child.TxHash()} {
		if in := info(id); in.Confirmations != -1 {
			t.Fatalf("mined %s: %d confirmations", name[id], in.Confirmations)
		}
	}
	wantEvents("mined", append(slices.Clone(replaced), "conflicted pay repl", "conflicted child repl")...)
}

// TestSenderBumpInMempool: the sender of a payment replaces it in the
// mempool with a transaction that still pays the wallet (a fee bump
// made elsewhere). The replacement is the wallet's, the payment lists it
// in mempoolconflicts and is out of the mempool at once, so that the
// pending balance counts the replacement alone, not both, even before a
// mempool read says the payment left.
func TestSenderBumpInMempool(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	coin := wire.OutPoint{Hash: chainhash.Hash{0x7c}, Index: 0}
	pay := func(v int64) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&coin, nil, nil))
		tx.AddTxOut(wire.NewTxOut(v, spk))
		return tx
	}
	orig, bump := pay(7000), pay(6000)
	if err := w.FollowerMempool(ctx, []*wire.MsgTx{orig}); err != nil {
		t.Fatal(err)
	}
	if err := w.FollowerMempool(ctx, []*wire.MsgTx{bump}); err != nil {
		t.Fatal(err)
	}
	d, err := w.Transaction(ctx, orig.TxHash())
	if err != nil || !slices.Equal(d.Info.MempoolConflicts, []chainhash.Hash{bump.TxHash()}) {
		t.Fatalf("original: %+v %v", d.Info, err)
	}
	if bal, _ := w.Balances(ctx); bal.UntrustedPending != 6000 {
		t.Fatalf("balances %+v, want 6000 pending", bal)
	}
	evs, err := w.Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var replaced int
	for _, e := range evs {
		if e.Kind == wallet.EventReplaced {
			replaced++
			if e.TxID != orig.TxHash() || e.Related != bump.TxHash() {
				t.Errorf("replaced event %+v", e)
			}
		}
	}
	if replaced != 1 {
		t.Errorf("%d replaced events", replaced)
	}
}
