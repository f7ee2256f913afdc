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
		Description: "Abandons an unconfirmed wallet transaction that is not in the backend's mempool, with the wallet's " +
			"transactions that spend it, so that the outputs it spent can be spent again. The wallet forgets them.",
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeString, Description: "The transaction id."},
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
			pool := map[chainhash.Hash]bool{}
			if d.Chain != nil && d.Chain.Backend() != nil {
				ids, err := d.Chain.Backend().MempoolTxIDs(ctx)
				if err != nil {
					return nil, backendError(err)
				}
				for _, id := range ids {
					pool[id] = true
				}
			}
			if err := w.AbandonTransaction(ctx, txid, func(h chainhash.Hash) bool { return pool[h] }); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
