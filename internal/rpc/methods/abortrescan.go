package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newAbortRescan returns the abortrescan method.
func newAbortRescan(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "abortrescan",
		Category:    walletCategory,
		Description: "Stops the wallet's running rescan (an import's or rescanblockchain's). Transactions found so far stay.",
		Result:      "true|false    (boolean) whether a rescan was running and was told to stop",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if d.Chain == nil {
				return false, nil
			}
			return d.Chain.Abort(w), nil
		},
	}
}
