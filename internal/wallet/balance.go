package wallet

import (
	"context"
	"slices"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// The balance calls add up the wallet's unspent outputs of every
// transaction. Three things make that cheap in a wallet of 100 000
// transactions:
//
//   - which outputs of a transaction pay the wallet depends only on the
//     wallet's scripts, which only grow: each transaction keeps the list
//     (walletTx.own) with the script generation it was worked out at, so
//     the script index is not searched again until the wallet gains
//     scripts;
//   - a balance depends only on the chain data and the scripts: it is kept
//     per (chain data generation, script generation, minimum depth,
//     avoid-reuse), and chainData.mu starts a new generation at every
//     write lock, so any change to the wallet's transactions, their blocks,
//     their spenders or the tip makes the next call work it out again;
//   - the value of a transaction's unspent outputs paying the wallet
//     (walletTx.credit) changes only when one of them becomes spent or
//     unspent, or when more of its outputs turn out to be the wallet's:
//     each transaction keeps it until creditChanged says otherwise, so a
//     balance after a new block reads 100 000 numbers rather than looking
//     up 100 000 outputs' spenders.
//
// Depths, maturity and trust are worked out at each computation.

// creditChanged tells that whether some output of txid counts as spent
// may have changed: a spender added or removed, or a spender's state
// changed (refreshStates). The caller holds c.mu for writing.
func (c *chainData) creditChanged(txid chainhash.Hash) {
	if wt := c.txs[txid]; wt != nil {
		wt.credOK = false
	}
}

// balanceKey names one computed balance.
type balanceKey struct {
	chainGen, scriptGen uint64
	minDepth            int64
	avoidReuse          bool
}

// scriptGen is the generation of the wallet's scripts: it changes whenever
// a script may have joined the wallet.
func (w *Wallet) scriptGen() uint64 {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.index.generation() + 1
}

// foreignOut is an output not paying the wallet, with its script's
// digest in the script index.
type foreignOut struct {
	index  uint32
	digest uint64
}

// ownOutputs returns the indexes of wt's outputs that pay the wallet, from
// its memo when that was worked out at script generation gen. Scripts only
// join a wallet, never leave it, so after a change only the outputs not
// yet the wallet's are looked at again, first by their digest alone. The
// caller holds c.mu for reading and c.credMu.
func (w *Wallet) ownOutputs(wt *walletTx, gen uint64) []uint32 {
	if wt.ownGen == gen {
		return wt.own
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if wt.ownGen == 0 {
		for i, o := range wt.tx.TxOut {
			if len(w.findScript(o.PkScript)) > 0 {
				wt.own = append(wt.own, uint32(i))
			} else {
				wt.foreign = append(wt.foreign, foreignOut{uint32(i), scriptDigest(o.PkScript)})
			}
		}
		wt.ownGen = gen
		return wt.own
	}
	kept := wt.foreign[:0]
	grown := false
	for _, f := range wt.foreign {
		if w.index.may(f.digest) && len(w.findScript(wt.tx.TxOut[f.index].PkScript)) > 0 {
			wt.own = append(wt.own, f.index)
			grown = true
			continue
		}
		kept = append(kept, f)
	}
	wt.foreign = kept
	if grown {
		slices.Sort(wt.own)
		wt.credOK = false
	}
	wt.ownGen = gen
	return wt.own
}

// prefetchOwn asks a database-backed script index, in one batch, about
// every output of txs that ownOutputs will look at for generation gen. The
// caller holds c.mu for reading and c.credMu.
func (w *Wallet) prefetchOwn(ctx context.Context, txs []*walletTx, gen uint64) error {
	if _, ok := w.index.(*dbIndex); !ok {
		return nil
	}
	var scripts [][]byte
	for _, wt := range txs {
		switch {
		case wt.ownGen == gen:
		case wt.ownGen == 0:
			for _, o := range wt.tx.TxOut {
				scripts = append(scripts, o.PkScript)
			}
		default:
			for _, f := range wt.foreign {
				scripts = append(scripts, wt.tx.TxOut[f.index].PkScript)
			}
		}
	}
	return w.prefetchScripts(ctx, scripts)
}

// unspentCredit is the value of wt's unspent outputs paying the wallet;
// with skipUsed, outputs to scripts marked used are left out. The caller
// holds c.mu for reading and c.credMu.
func (w *Wallet) unspentCredit(wt *walletTx, gen uint64, skipUsed bool) int64 {
	c := &w.chain
	own := w.ownOutputs(wt, gen)
	if wt.credOK && !skipUsed {
		return wt.credit
	}
	var credit int64
	for _, i := range own {
		if c.spent(wire.OutPoint{Hash: wt.txid, Index: i}) {
			continue
		}
		o := wt.tx.TxOut[i]
		if skipUsed && w.IsSpentKey(o.PkScript) {
			continue
		}
		credit += o.Value
	}
	if !skipUsed {
		wt.credit, wt.credOK = credit, true
	}
	return credit
}
