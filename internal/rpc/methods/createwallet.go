package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// newCreateWallet returns the createwallet method.
func newCreateWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "createwallet",
		Category:    walletCategory,
		Description: "Makes a new descriptor wallet and loads it.",
		Params: []rpc.Param{
			{Name: "wallet_name", Type: rpc.TypeString, Description: "Name of the wallet; its folder under the wallets folder, or an absolute path."},
			{Name: "disable_private_keys", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Make a watch-only wallet that never holds private keys."},
			{Name: "blank", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Make the wallet without its default descriptors."},
			{Name: "passphrase", Type: rpc.TypeString, Optional: true, Description: "Encrypt the wallet with this passphrase; the wallet is created locked."},
			{Name: "avoid_reuse", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Track reused addresses."},
			{Name: "descriptors", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Must be true: only descriptor wallets exist."},
			startupParam,
			{Name: "external_signer", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Use an external signer (not supported)."},
		},
		Result:   walletLoadResult,
		Examples: []string{`"mywallet"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, errNoWalletSupport
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			var opts wallet.CreateOptions
			if opts.DisablePrivateKeys, err = boolOr(req, 1, false); err != nil {
				return nil, err
			}
			if opts.Blank, err = boolOr(req, 2, false); err != nil {
				return nil, err
			}
			if opts.Passphrase, err = optString(req, 3); err != nil {
				return nil, err
			}
			if opts.AvoidReuse, err = boolOr(req, 4, false); err != nil {
				return nil, err
			}
			descriptors, err := boolOr(req, 5, true)
			if err != nil {
				return nil, err
			}
			if opts.LoadOnStartup, err = optBool(req, 6); err != nil {
				return nil, err
			}
			if opts.ExternalSigner, err = boolOr(req, 7, false); err != nil {
				return nil, err
			}
			if !descriptors {
				return nil, rpc.NewError(rpc.CodeWalletError, `descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.`)
			}
			w, warnings, err := d.Wallets.Create(ctx, name, opts)
			if err != nil {
				return nil, MapError(err)
			}
			if d.Chain != nil {
				d.Chain.Track(w, true)
			}
			return loadResult{Name: w.Name(), Warnings: warnings}, nil
		},
	}
}
