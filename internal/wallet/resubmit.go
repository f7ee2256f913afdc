package wallet

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// ResubmitCandidates returns the transactions the wallet submits again to
// its backend's mempool (Core's ResubmitWalletTransactions with
// SubmitTxMemoryPoolAndRelay's conditions): the unconfirmed ones outside
// the mempool that are neither abandoned, nor conflicted by a block or a
// mempool transaction, nor coinbases, received at or before
// receivedBefore (a Unix time; 0 takes them all), in the order the wallet
// recorded them. None when -walletbroadcast is off.
func (w *Wallet) ResubmitCandidates(ctx context.Context, receivedBefore int64) ([]*wire.MsgTx, error) {
	if !w.Options().WalletBroadcast {
		return nil, nil
	}
	if err := w.loadChain(ctx); err != nil {
		return nil, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*wire.MsgTx
	for _, wt := range c.order {
		if wt.confirmed() || wt.coinbase || wt.inMempool || wt.marks.Abandoned ||
			wt.conflictHeight >= 0 || len(wt.mempoolConflicts) > 0 {
			continue
		}
		if receivedBefore > 0 && wt.rec.TimeReceived > receivedBefore {
			continue
		}
		out = append(out, wt.tx)
	}
	return out, nil
}

// Resubmitted tells the wallet that its backend's mempool accepted a
// transaction submitted again: it is in the mempool from then on, as when
// the wallet sees it there, and, as a just committed one, a mempool read
// taken before the submission does not take it out again.
func (w *Wallet) Resubmitted(ctx context.Context, txid chainhash.Hash) {
	w.setInMempool(ctx, txid, true)
}
