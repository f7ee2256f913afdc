package wallet

import (
	"github.com/btcsuite/btcd/wire/v2"
)

// The balance calls add up, per transaction, the value of its unspent
// outputs the wallet owns. That sum changes only when one of the
// transaction's outputs becomes spent or unspent (a spender added or
// removed, or a spender's state changed: refreshStates) or
// when the wallet gains scripts (the script index's add count), so each
// transaction keeps it (walletTx.credit) and a balance of a wallet of
// 100 000 transactions reads 100 000 numbers rather than looking up every
// output's script and spender. Depths, maturity and trust are still worked
// out at each call, since they move with every block.

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
		if c.spent(wire.OutPoint{Hash: wt.txid, Index: uint32(i)}) {
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
