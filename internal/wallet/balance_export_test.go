package wallet

import (
	"context"

	"github.com/btcsuite/btcd/wire/v2"
)

// NaiveBalance is Balance worked out from scratch, output by output, with
// no cached credits: the reference the balance tests compare against.
func (w *Wallet) NaiveBalance(ctx context.Context, minDepth int64) (Balances, error) {
	var b Balances
	if err := w.loadChain(ctx); err != nil {
		return b, err
	}
	c := &w.chain
	c.mu.RLock()
	defer c.mu.RUnlock()
	tip := c.tipHeight()
	for _, wt := range c.order {
		depth := c.depth(wt, tip)
		if wt.coinbase && depth < 1 {
			continue
		}
		var credit int64
		for i, o := range wt.tx.TxOut {
			if c.spent(wire.OutPoint{Hash: wt.txid, Index: uint32(i)}) {
				continue
			}
			if w.IsMine(o.PkScript) {
				credit += o.Value
			}
		}
		switch {
		case immature(wt, depth):
			b.Immature += credit
		case w.trusted(wt, depth):
			if depth >= minDepth {
				b.Trusted += credit
			}
		case wt.inMempool && !wt.confirmed():
			b.UntrustedPending += credit
		}
	}
	return b, nil
}
