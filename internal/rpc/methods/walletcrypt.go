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
			if err := w.Encrypt(ctx, pass); err != nil {
				return nil, MapError(err)
			}
			return encryptResult, nil
		},
	}
}

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
			if err := w.Lock(); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
