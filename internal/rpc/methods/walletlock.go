package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newWalletLock returns the walletlock method.
func newWalletLock(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "walletlock",
		Category:    walletCategory,
		Description: "Locks an encrypted wallet now: its private keys leave memory until the next walletpassphrase.",
		Result:      "null",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if w.IsEncrypted() && scanningWithPassphrase(d, w) {
				return nil, errScanningWallet("locking the wallet")
			}
			if err := w.Lock(); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
