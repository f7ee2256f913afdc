package methods

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/wallet"
)

// relayRecorder is a backend whose SendRawTransaction accepts a
// transaction only under a live context, as a real backend call fails
// under a cancelled one, and keeps what it accepted.
type relayRecorder struct {
	chain.Backend
	mu   sync.Mutex
	sent []chainhash.Hash
}

func (b *relayRecorder) SendRawTransaction(ctx context.Context, tx *wire.MsgTx) (chainhash.Hash, error) {
	if err := ctx.Err(); err != nil {
		return chainhash.Hash{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, tx.TxHash())
	return tx.TxHash(), nil
}

// TestCommitOutlivesHangUp: a client that hangs up right after the wallet
// committed its transaction does not stop the relay; the transaction
// reaches the backend and the wallet keeps it as relayed (in the mempool),
// not as refused.
func TestCommitOutlivesHangUp(t *testing.T) {
	bw := newBenchWallet(t, 1, 1)
	fund := bw.fundingTx()
	fund.AddTxOut(wire.NewTxOut(100_000, bw.recv[0]))
	bw.block(t, []*wire.MsgTx{fund})

	spend := wire.NewMsgTx(2)
	fh := fund.TxHash()
	spend.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&fh, 0), nil, nil))
	spend.AddTxOut(wire.NewTxOut(90_000, bw.change[0]))

	b := &relayRecorder{}
	d := &Deps{Chain: backendOnly{b}}
	ctx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	afterCommitHook = hangUp
	t.Cleanup(func() { afterCommitHook = nil })
	if err := commitTransaction(ctx, d, bw.w, spend, wallet.TxComments{}); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatal("the hook did not hang up")
	}
	if len(b.sent) != 1 || b.sent[0] != spend.TxHash() {
		t.Fatalf("relayed %v, want %s", b.sent, spend.TxHash())
	}
	if st := walletTxInMempool(t, bw.w, spend.TxHash()); !st {
		t.Fatal("the relayed transaction is kept as refused by the backend")
	}
}

// walletTxInMempool reports gettransaction's "trusted" of an unconfirmed
// wallet transaction spending only confirmed wallet outputs: true while
// the wallet holds it in the mempool, false once refused.
func walletTxInMempool(t *testing.T, w *wallet.Wallet, txid chainhash.Hash) bool {
	t.Helper()
	td, err := w.Transaction(context.Background(), txid)
	if err != nil {
		t.Fatal(err)
	}
	if td.Info.Trusted == nil {
		t.Fatalf("%s: no trusted field", txid)
	}
	return *td.Info.Trusted
}

// refusingBackend refuses every transaction, as a backend whose mempool
// does not take them.
type refusingBackend struct{ chain.Backend }

func (refusingBackend) SendRawTransaction(context.Context, *wire.MsgTx) (chainhash.Hash, error) {
	return chainhash.Hash{}, errors.New("refused")
}

// TestResubmitCandidates: the wallet's transactions the backend refused
// are the ones it submits again, in the order it recorded them; not an
// abandoned one, not one the mempool holds, not one received after the
// given time, none with -walletbroadcast off; once the mempool took one
// again (Resubmitted) it is trusted and no longer a candidate.
func TestResubmitCandidates(t *testing.T) {
	bw := newBenchWallet(t, 3, 3)
	fund := bw.fundingTx()
	for i := range 3 {
		fund.AddTxOut(wire.NewTxOut(100_000, bw.recv[i]))
	}
	bw.block(t, []*wire.MsgTx{fund})
	fh := fund.TxHash()
	ctx := context.Background()
	refused := &Deps{Chain: backendOnly{refusingBackend{}}}
	var ids []chainhash.Hash
	for i := range 3 {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&fh, uint32(i)), nil, nil))
		tx.AddTxOut(wire.NewTxOut(90_000, bw.change[i]))
		if err := commitTransaction(ctx, refused, bw.w, tx, wallet.TxComments{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tx.TxHash())
	}
	if err := bw.w.AbandonTransaction(ctx, ids[1], func(chainhash.Hash) bool { return false }); err != nil {
		t.Fatal(err)
	}
	got, err := bw.w.ResubmitCandidates(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].TxHash() != ids[0] || got[1].TxHash() != ids[2] {
		t.Fatalf("candidates %v, want %s then %s", txids(got), ids[0], ids[2])
	}
	if got, _ := bw.w.ResubmitCandidates(ctx, time.Now().Unix()-3600); len(got) != 0 {
		t.Fatalf("candidates received over an hour ago: %v", txids(got))
	}
	if walletTxInMempool(t, bw.w, ids[0]) {
		t.Fatal("refused transaction trusted")
	}
	bw.w.Resubmitted(ctx, ids[0])
	if !walletTxInMempool(t, bw.w, ids[0]) {
		t.Fatal("resubmitted transaction not held in the mempool")
	}
	got, _ = bw.w.ResubmitCandidates(ctx, 0)
	if len(got) != 1 || got[0].TxHash() != ids[2] {
		t.Fatalf("candidates after resubmission %v, want %s", txids(got), ids[2])
	}
	// The options are this test node's own.
	bw.w.Options().WalletBroadcast = false
	if got, _ := bw.w.ResubmitCandidates(ctx, 0); len(got) != 0 {
		t.Fatalf("candidates with -walletbroadcast=0: %v", txids(got))
	}
}

func txids(txs []*wire.MsgTx) []chainhash.Hash {
	var out []chainhash.Hash
	for _, tx := range txs {
		out = append(out, tx.TxHash())
	}
	return out
}
