package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// unloadResult is the reply of unloadwallet.
type unloadResult struct {
	Warnings []string `json:"warnings,omitempty"`
}

// newUnloadWallet returns the unloadwallet method.
func newUnloadWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "unloadwallet",
		Category: walletCategory,
		Description: "Unloads the wallet named by the request's /wallet/<name> URI, or the one " +
			"named by the argument.",
		Params: []rpc.Param{
			{Name: "wallet_name", Type: rpc.TypeString, Optional: true, Default: "the wallet of the URI",
				Description: "The wallet to unload; when the URI names one too, both must agree."},
			startupParam,
		},
		Result:   "{\n  \"warnings\" : [ \"str\" ]  (json array, optional) Warnings\n}",
		Examples: []string{`"mywallet"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, errNoWalletSupport
			}
			// Core's EnsureUniqueWalletName: the URI's wallet, the
			// argument, or both when they agree.
			name := req.Wallet
			if req.WalletURI {
				if req.Has(0) {
					n, err := req.String(0)
					if err != nil {
						return nil, err
					}
					if n != name {
						return nil, rpc.NewError(rpc.CodeInvalidParameter, "The RPC endpoint wallet and the wallet name parameter specify different wallets")
					}
				}
			} else {
				if !req.Has(0) {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "Either the RPC endpoint wallet or the wallet name parameter must be provided")
				}
				n, err := req.String(0)
				if err != nil {
					return nil, err
				}
				name = n
			}
			startup, err := optBool(req, 1)
			if err != nil {
				return nil, err
			}
			if w, ok := d.Wallets.Get(name); ok {
				release, err := reserveRescan(d, w, false)
				if err != nil {
					return nil, err
				}
				defer release()
			}
			warnings, err := d.Wallets.Unload(ctx, name, startup)
			if err != nil {
				return nil, MapError(err)
			}
			return unloadResult{Warnings: warnings}, nil
		},
	}
}
