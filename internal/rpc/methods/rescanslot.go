package methods

import (
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletscan"
)

// defaultRescans serves Deps without a reservation registry (tests).
var defaultRescans = walletscan.NewRescans()

// rescans returns the node's rescan reservations.
func (d *Deps) rescans() RescanReserver {
	if d.Rescans != nil {
		return d.Rescans
	}
	return defaultRescans
}

// reserveRescan takes w's rescan slot (see walletscan.Rescans), or fails
// with Core's -4 when it is taken. The caller calls release when its call
// ends.
func reserveRescan(d *Deps, w *wallet.Wallet, withPassphrase bool) (release func(), err error) {
	release, err = d.rescans().Reserve(w, withPassphrase)
	if err != nil {
		return nil, MapError(err)
	}
	return release, nil
}

// scanningWithPassphrase reports whether an import or rescanblockchain
// call holds w's rescan slot (Core's IsScanningWithPassphrase).
func scanningWithPassphrase(d *Deps, w *wallet.Wallet) bool {
	return d.rescans().ScanningWithPassphrase(w)
}

// errScanningWallet is Core's answer of walletlock, walletpassphrasechange
// and encryptwallet while a rescan holds the wallet unlocked; action ends
// the message ("locking the wallet", "changing the passphrase",
// "encrypting the wallet").
func errScanningWallet(action string) error {
	return rpc.NewError(rpc.CodeWalletError, "Error: the wallet is currently being used to rescan the blockchain "+
		"for related transactions. Please call `abortrescan` before "+action+".")
}
