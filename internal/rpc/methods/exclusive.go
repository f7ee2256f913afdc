package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// exclusiveMethods are the calls that choose, lock or spend a wallet's
// coins. For a wallet several nodes serve (PostgreSQL, -walletdbshared)
// each runs under the wallet's exclusive-operation lock in the database
// (wallet.Exclusive: one holder among all the nodes, which then reads the
// others' changes), so that two nodes never select the same coins: the
// second one's call sees the first one's transaction, recorded before the
// lock is released. For a wallet only this node serves the lock is
// nothing.
var exclusiveMethods = map[string]bool{
	"sendtoaddress": true, "sendmany": true, "send": true, "sendall": true,
	"bumpfee": true, "fundrawtransaction": true, "walletcreatefundedpsbt": true,
	"lockunspent": true,
}

// serializeSpending wraps the handlers of exclusiveMethods.
func serializeSpending(d *Deps, list []*rpc.Method) {
	for _, m := range list {
		if exclusiveMethods[m.Name] {
			m.Handler = exclusiveHandler(d, m.Handler)
		}
	}
}

// exclusiveHandler runs h under the exclusive-operation lock of the
// request's wallet. When the wallet cannot be resolved h runs as it is
// and gives Core's answer.
func exclusiveHandler(d *Deps, h rpc.Handler) rpc.Handler {
	return func(ctx context.Context, req *rpc.Request) (any, error) {
		if d.Wallets == nil {
			return h(ctx, req)
		}
		w, err := d.Wallets.Resolve(req.Wallet, req.WalletURI)
		if err != nil {
			return h(ctx, req)
		}
		release, err := w.Exclusive(ctx)
		if err != nil {
			return nil, MapError(err)
		}
		defer release()
		return h(ctx, req)
	}
}
