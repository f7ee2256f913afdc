package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newAbandonTransaction returns the abandontransaction method.
func newAbandonTransaction(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "abandontransaction",
		Category: walletCategory,
		Description: "Marks an unconfirmed wallet transaction that is neither in the backend's mempool nor conflicted " +
			"by a block as abandoned, with the wallet's transactions that spend it, so that the outputs it spent can be " +
			"spent again. They stay listed with \"abandoned\": true until seen in the mempool or in a block again.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeHex, Description: "The transaction id."},
		},
		Result:   "null",
		Examples: []string{"\"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d\""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			s, err := rpc.AsString(req.Arg(0))
			if err != nil {
				return nil, err
			}
			txid, err := parseHash(s, "txid")
			if err != nil {
				return nil, err
			}
			// A fresh read of the backend's mempool decides; offline,
			// the wallet's own view does.
			var inMempool func(chainhash.Hash) bool
			if d.Chain != nil && d.Chain.Backend() != nil {
				ids, err := d.Chain.Backend().MempoolTxIDs(ctx)
				if err != nil {
					return nil, backendError(err)
				}
				pool := make(map[chainhash.Hash]bool, len(ids))
				for _, id := range ids {
					pool[id] = true
				}
				inMempool = func(h chainhash.Hash) bool { return pool[h] }
			}
			if err := w.AbandonTransaction(ctx, txid, inMempool); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
