package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newWalletPassphrase returns the walletpassphrase method.
func newWalletPassphrase(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "walletpassphrase",
		Category: walletCategory,
		Description: "Unlocks an encrypted wallet for a number of seconds, after which it locks itself. Calling it " +
			"again while unlocked sets a new timeout.",
		Params: []rpc.Param{
			{Name: "passphrase", Type: rpc.TypeString, Description: "The wallet's passphrase."},
			{Name: "timeout", Type: rpc.TypeNumber, Description: "Seconds to stay unlocked; at most 100000000."},
		},
		Result:   "null",
		Examples: []string{`"my pass phrase" 60`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if !w.IsEncrypted() {
				return nil, MapError(w.Unlock(ctx, "", 0))
			}
			pass, err := req.String(0)
			if err != nil {
				return nil, err
			}
			timeout, err := req.Int64(1)
			if err != nil {
				return nil, err
			}
			if err := w.Unlock(ctx, pass, timeout); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
