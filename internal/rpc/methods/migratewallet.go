package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newMigrateWallet returns the migratewallet method. descwallet's wallets
// are all descriptor wallets, so the call only ever answers Core's errors
// for a descriptor wallet, a wallet that does not exist, or a missing or
// conflicting name.
func newMigrateWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "migratewallet",
		Category: walletCategory,
		Description: "Migrates a legacy wallet to a descriptor wallet. Every descwallet wallet is a descriptor wallet " +
			"already, so this always fails: with Core's \"already a descriptor wallet\" error for a wallet that exists " +
			"(loaded or not) and \"Wallet does not exist\" otherwise. Bitcoin Core migrates its own legacy wallets.",
		Params: []rpc.Param{
			{Name: "wallet_name", Type: rpc.TypeString, Optional: true, Default: "the wallet of the RPC endpoint",
				Description: "The wallet to migrate; when the endpoint names a wallet too, both must be the same."},
			{Name: "passphrase", Type: rpc.TypeString, Optional: true, Description: "The wallet passphrase (unused)."},
		},
		Result: "{\n  \"wallet_name\" : \"str\",     (string) The migrated wallet\n" +
			"  \"watchonly_name\" : \"str\",  (string, optional) The wallet of the watch-only scripts\n" +
			"  \"solvables_name\" : \"str\",  (string, optional) The wallet of the solvable scripts\n" +
			"  \"backup_path\" : \"str\"      (string) The backup of the legacy wallet\n}",
		Examples: []string{"", `"mywallet"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, errNoWalletSupport
			}
			name, err := optString(req, 0)
			if err != nil {
				return nil, err
			}
			// Core's EnsureUniqueWalletName.
			if req.WalletURI {
				if name != nil && *name != req.Wallet {
					return nil, rpc.NewError(rpc.CodeInvalidParameter,
						"The RPC endpoint wallet and the wallet name parameter specify different wallets")
				}
				name = &req.Wallet
			} else if name == nil {
				return nil, rpc.NewError(rpc.CodeInvalidParameter,
					"Either the RPC endpoint wallet or the wallet name parameter must be provided")
			}
			if _, err := optString(req, 1); err != nil {
				return nil, err
			}
			if err := d.Wallets.Migrate(ctx, *name); err != nil {
				return nil, MapError(err)
			}
			return nil, rpc.NewError(rpc.CodeWalletError, "Error: This wallet is already a descriptor wallet")
		},
	}
}
