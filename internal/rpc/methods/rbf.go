package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/wallet"
)

// maxRBFAncestors bounds the mempool ancestors read for one answer (Core's
// mempool limits keep real chains of unconfirmed transactions far shorter).
const maxRBFAncestors = 1000

// rbfCheck answers bip125-replaceable for the unconfirmed transactions of
// one reply as Core's IsRBFOptIn (src/policy/rbf.cpp) does: "yes" when the
// transaction or one of its unconfirmed ancestors signals replaceability
// (signalsRBF: an input sequence below 0xfffffffe), "no" for a transaction in the
// mempool that does not, "unknown" for one outside the mempool (or when
// the mempool cannot be read: offline, backend down). The mempool is read
// once per reply, at first need.
type rbfCheck struct {
	ctx     context.Context
	backend chain.Backend
	read    bool
	pool    map[chainhash.Hash]struct{} // nil: unknown
	txs     map[chainhash.Hash]*wire.MsgTx
}

func newRBFCheck(ctx context.Context, d *Deps) *rbfCheck {
	r := &rbfCheck{ctx: ctx}
	if d.Chain != nil {
		r.backend = d.Chain.Backend()
	}
	return r
}

// status returns the bip125-replaceable text of an unconfirmed wallet
// transaction.
func (r *rbfCheck) status(in wallet.TxInfo) string {
	if in.Tx == nil {
		return "unknown"
	}
	if signalsRBF(in.Tx) {
		return "yes"
	}
	r.readPool()
	if r.pool == nil {
		return "unknown"
	}
	if _, ok := r.pool[in.TxID]; !ok {
		return "unknown"
	}
	// Walk the unconfirmed ancestors, a generation at a time.
	seen := map[chainhash.Hash]bool{in.TxID: true}
	front := []*wire.MsgTx{in.Tx}
	for len(front) > 0 {
		var ids []chainhash.Hash
		for _, tx := range front {
			for _, txin := range tx.TxIn {
				id := txin.PreviousOutPoint.Hash
				if _, inPool := r.pool[id]; inPool && !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		if len(seen) > maxRBFAncestors {
			return "unknown"
		}
		parents, ok := r.fetch(ids)
		if !ok {
			return "unknown"
		}
		for _, p := range parents {
			if signalsRBF(p) {
				return "yes"
			}
		}
		front = parents
	}
	return "no"
}

// readPool reads the mempool's ids once.
func (r *rbfCheck) readPool() {
	if r.read {
		return
	}
	r.read = true
	if r.backend == nil {
		return
	}
	ids, err := r.backend.MempoolTxIDs(r.ctx)
	if err != nil {
		return
	}
	r.pool = make(map[chainhash.Hash]struct{}, len(ids))
	for _, id := range ids {
		r.pool[id] = struct{}{}
	}
	r.txs = map[chainhash.Hash]*wire.MsgTx{}
}

// fetch returns the mempool transactions ids, read once each; those the
// backend no longer knows (mined or evicted since the read) are left out.
func (r *rbfCheck) fetch(ids []chainhash.Hash) ([]*wire.MsgTx, bool) {
	var missing []chainhash.Hash
	for _, id := range ids {
		if _, ok := r.txs[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		got, err := r.backend.MempoolTxs(r.ctx, missing)
		if err != nil || len(got) != len(missing) {
			return nil, false
		}
		for i, tx := range got {
			r.txs[missing[i]] = tx
		}
	}
	out := make([]*wire.MsgTx, 0, len(ids))
	for _, id := range ids {
		if tx := r.txs[id]; tx != nil {
			out = append(out, tx)
		}
	}
	return out, true
}
