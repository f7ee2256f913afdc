package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newRestoreWallet returns the restorewallet method.
func newRestoreWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "restorewallet",
		Category:    walletCategory,
		Description: "Makes a new wallet from a backup file written by backupwallet and loads it.",
		Params: []rpc.Param{
			{Name: "wallet_name", Type: rpc.TypeString, Description: "Name of the new wallet."},
			{Name: "backup_file", Type: rpc.TypeString, Description: "The backup file."},
			startupParam,
		},
		Result:   walletLoadResult,
		Examples: []string{`"restored" "backup.sqlite"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, errNoWalletSupport
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			file, err := req.String(1)
			if err != nil {
				return nil, err
			}
			startup, err := optBool(req, 2)
			if err != nil {
				return nil, err
			}
			w, warnings, err := d.Wallets.Restore(ctx, name, file, startup)
			if err != nil {
				return nil, MapError(err)
			}
			if err := attachLoaded(ctx, d, w, startup); err != nil {
				return nil, err
			}
			return loadResult{Name: w.Name(), Warnings: warnings}, nil
		},
	}
}
