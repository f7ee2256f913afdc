package methods

import (
	"context"
	"sync"
	"testing"

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
