package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// encryptResult is encryptwallet's reply, Core's text.
const encryptResult = wallet.EncryptResult

// newEncryptWallet returns the encryptwallet method.
func newEncryptWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "encryptwallet",
		Category: walletCategory,
		Description: "Encrypts the wallet's private keys with a passphrase, for the first time. The wallet is locked " +
			"afterwards: calls that use private keys then need walletpassphrase first. A wallet that is not blank " +
			"gets new active descriptors from a new seed, so make a new backup.",
		Params: []rpc.Param{
			{Name: "passphrase", Type: rpc.TypeString, Description: "The passphrase; at least one character, better long."},
		},
		Result:   "\"str\"    (string) What to do next",
		Examples: []string{`"my pass phrase"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			pass, err := req.String(0)
			if err != nil {
				return nil, err
			}
			if w.PrivateKeysEnabled() && !w.IsEncrypted() && scanningWithPassphrase(d, w) {
				return nil, errScanningWallet("encrypting the wallet")
			}
			if err := w.Encrypt(ctx, pass); err != nil {
				return nil, MapError(err)
			}
			return encryptResult, nil
		},
	}
}
