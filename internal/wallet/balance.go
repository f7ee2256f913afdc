package wallet

import (
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// The balance calls add up, per transaction, the value of its unspent
// outputs the wallet owns. That sum changes only when one of the
// transaction's outputs becomes spent or unspent (setSpent, clearSpent) or
// when the wallet gains scripts (the script index's add count), so each
// transaction keeps it (walletTx.credit) and a balance of a wallet of
// 100 000 transactions reads 100 000 numbers rather than looking up every
// output's script and spender. Depths, maturity and trust are still worked
// out at each call, since they move with every block.

// setSpent records that by spends op. The caller holds c.mu for writing.
func (c *chainData) setSpent(op wire.OutPoint, by chainhash.Hash) {
	c.spentBy[op] = by
	if wt := c.txs[op.Hash]; wt != nil {
		wt.credGen = 0
	}
}

// clearSpent forgets op's spender. The caller holds c.mu for writing.
func (c *chainData) clearSpent(op wire.OutPoint) {
	delete(c.spentBy, op)
	if wt := c.txs[op.Hash]; wt != nil {
		wt.credGen = 0
	}
}

// scriptGen is the generation of the wallet's scripts: it changes whenever
// a script may have joined the wallet.
func (w *Wallet) scriptGen() uint64 {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.index.adds + 1
}

// unspentCredit returns the value of wt's unspent outputs that the wallet
// owns, from its cache when that was computed at script generation gen.
// The caller holds c.mu for reading and c.credMu.
func (w *Wallet) unspentCredit(wt *walletTx, gen uint64) int64 {
	if wt.credGen == gen {
		return wt.credit
	}
	c := &w.chain
	var credit int64
	w.mu.RLock()
	for i, o := range wt.tx.TxOut {
		if _, spent := c.spentBy[wire.OutPoint{Hash: wt.txid, Index: uint32(i)}]; spent {
			continue
		}
		if len(w.findScript(o.PkScript)) > 0 {
			credit += o.Value
		}
	}
	w.mu.RUnlock()
	wt.credit, wt.credGen = credit, gen
	return credit
}
