package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newWalletPassphraseChange returns the walletpassphrasechange method.
func newWalletPassphraseChange(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "walletpassphrasechange",
		Category:    walletCategory,
		Description: "Changes the passphrase of an encrypted wallet.",
		Params: []rpc.Param{
			{Name: "oldpassphrase", Type: rpc.TypeString, Description: "The current passphrase."},
			{Name: "newpassphrase", Type: rpc.TypeString, Description: "The new passphrase."},
		},
		Result:   "null",
		Examples: []string{`"old one" "new one"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if !w.IsEncrypted() {
				return nil, MapError(w.ChangePassphrase(ctx, "", ""))
			}
			if scanningWithPassphrase(d, w) {
				return nil, errScanningWallet("changing the passphrase")
			}
			oldPass, err := req.String(0)
			if err != nil {
				return nil, err
			}
			newPass, err := req.String(1)
			if err != nil {
				return nil, err
			}
			if err := w.ChangePassphrase(ctx, oldPass, newPass); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
