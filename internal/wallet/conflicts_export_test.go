package wallet

import (
	"fmt"
	"slices"
)

// StateMismatch derives every transaction's conflict state from scratch
// and describes the first one whose state differs from what the wallet's
// updates left (empty: none), the reference the incremental derivation is
// checked against.
func StateMismatch(w *Wallet) string {
	c := &w.chain
	c.mu.Lock()
	defer c.mu.Unlock()
	type state struct {
		height    int32
		pool      []string
		inMempool bool
		spending  bool
	}
	get := func(wt *walletTx) state {
		s := state{height: wt.conflictHeight, inMempool: wt.inMempool, spending: wt.spending}
		for _, h := range wt.mempoolConflicts {
			s.pool = append(s.pool, h.String())
		}
		return s
	}
	before := make([]state, len(c.order))
	for i, wt := range c.order {
		before[i] = get(wt)
	}
	c.refreshStates()
	for i, wt := range c.order {
		a, b := before[i], get(wt)
		if a.height != b.height || a.inMempool != b.inMempool || a.spending != b.spending || !slices.Equal(a.pool, b.pool) {
			return fmt.Sprintf("transaction %s (seq %d): kept %+v, derived from scratch %+v", wt.txid, wt.rec.Seq, a, b)
		}
	}
	return ""
}
