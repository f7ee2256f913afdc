package methods

import (
	"sync"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// rescanSlots holds each wallet's rescan reservation, as Core's
// WalletRescanReserver: importdescriptors and rescanblockchain take it for
// their whole call (with the passphrase, which keeps the wallet from being
// locked, encrypted or given a new passphrase meanwhile), unloadwallet
// takes it for a moment. A wallet whose background rescan runs (a resumed
// or catch-up rescan of the chain service) counts as reserved too.
var rescanSlots = struct {
	mu sync.Mutex
	m  map[*wallet.Wallet]bool // the value tells "with passphrase"
}{m: map[*wallet.Wallet]bool{}}

// reserveRescan takes w's rescan slot, or fails with Core's -4 when it is
// taken. The caller calls release when its call ends.
func reserveRescan(d *Deps, w *wallet.Wallet, withPassphrase bool) (release func(), err error) {
	rescanSlots.mu.Lock()
	defer rescanSlots.mu.Unlock()
	if _, taken := rescanSlots.m[w]; taken {
		return nil, errRescanBusy
	}
	if d.Chain != nil && d.Chain.Busy(w) {
		return nil, errRescanBusy
	}
	rescanSlots.m[w] = withPassphrase
	var once sync.Once
	return func() {
		once.Do(func() {
			rescanSlots.mu.Lock()
			delete(rescanSlots.m, w)
			rescanSlots.mu.Unlock()
		})
	}, nil
}

// scanningWithPassphrase reports whether an import or rescanblockchain
// call holds w's rescan slot (Core's IsScanningWithPassphrase).
func scanningWithPassphrase(w *wallet.Wallet) bool {
	rescanSlots.mu.Lock()
	defer rescanSlots.mu.Unlock()
	return rescanSlots.m[w]
}

// errScanningWallet is Core's answer of walletlock, walletpassphrasechange
// and encryptwallet while a rescan holds the wallet unlocked; action ends
// the message ("locking the wallet", "changing the passphrase",
// "encrypting the wallet").
func errScanningWallet(action string) error {
	return rpc.NewError(rpc.CodeWalletError, "Error: the wallet is currently being used to rescan the blockchain "+
		"for related transactions. Please call `abortrescan` before "+action+".")
}
