package methods

import (
	"context"
	"encoding/json"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletscan"
)

// ChainService is what the methods need of the node's chain following
// (package walletscan implements it).
type ChainService interface {
	// Backend is the full node.
	Backend() chain.Backend
	// Track starts following a wallet just created (from the current
	// tip) or loaded (catching up when it never processed a block).
	Track(w *wallet.Wallet, created bool)
	// Scanning returns the wallet's running rescan's duration and
	// progress, false when none runs.
	Scanning(w *wallet.Wallet) (walletscan.Scanning, bool)
	// Abort stops the wallet's running rescan, reporting whether one ran.
	Abort(w *wallet.Wallet) bool
	// Rescan scans heights start to stop (stop < 0: the tip) and returns
	// when the scan ends; the caller's cancellation does not stop it.
	Rescan(ctx context.Context, w *wallet.Wallet, start, stop int32) (scan.Result, error)
	// ImportRescan runs an import's rescan for the elements' times and
	// returns when it ends.
	ImportRescan(ctx context.Context, w *wallet.Wallet, times []walletscan.ImportTime) error
}

// RescanReserver holds the wallets' rescan reservations (Core's
// WalletRescanReserver; walletscan.Rescans, which the node gives offline
// too).
type RescanReserver interface {
	// Reserve takes the wallet's rescan slot or fails with an error of
	// kind scan.ErrBusy.
	Reserve(w *wallet.Wallet, withPassphrase bool) (release func(), err error)
	// ScanningWithPassphrase reports whether an import or
	// rescanblockchain call holds the wallet's slot.
	ScanningWithPassphrase(w *wallet.Wallet) bool
}

// errNoChain is the answer of the chain methods of an offline node.
var errNoChain = rpc.NewError(rpc.CodeMisc, "No chain backend configured (-chainbackend, -chainrpcconnect)")

// lastProcessed returns the wallet's last processed block, the genesis
// block when it processed none.
func lastProcessed(d *Deps, w *wallet.Wallet) lastBlock {
	b, ok := w.LastProcessedBlock()
	return lastProcessedAt(d, b, ok)
}

// lastProcessedAt is lastProcessed for a block the wallet reported with
// the rest of a reply (ok false: none yet).
func lastProcessedAt(d *Deps, b wallet.BlockRef, ok bool) lastBlock {
	if ok {
		return lastBlock{Hash: chainhash.Hash(b.Hash).String(), Height: int64(b.Height)}
	}
	if d.Net != nil {
		return lastBlock{Hash: d.Net.GenesisHash.String(), Height: 0}
	}
	return lastBlock{}
}

// scanningInfo is getwalletinfo's "scanning" while a rescan runs.
type scanningInfo struct {
	Duration int64   `json:"duration"`
	Progress float64 `json:"progress"`
}

// scanning returns getwalletinfo's "scanning" value: false, or the running
// rescan's duration and progress.
func scanning(d *Deps, w *wallet.Wallet) any {
	if d.Chain == nil {
		return false
	}
	p, ok := d.Chain.Scanning(w)
	if !ok {
		return false
	}
	return scanningInfo{Duration: p.Duration, Progress: p.Progress}
}

// isNowTimestamp reports whether an importdescriptors element asks for the
// timestamp "now".
func isNowTimestamp(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return false
	}
	s, err := rpc.AsString(obj["timestamp"])
	return err == nil && s == "now"
}

// backendCoins returns signrawtransactionwithkey's lookup of the inputs in
// the backend's UTXO set and mempool (Core's FindCoins), nil when the node
// runs offline. An output the backend does not know or has seen spent is
// left out, so that the signer reports "Input not found or already spent".
func backendCoins(ctx context.Context, d *Deps) func(*wire.MsgTx, sign.Coins) error {
	if d.Chain == nil {
		return nil
	}
	return func(tx *wire.MsgTx, coins sign.Coins) error {
		b := d.Chain.Backend()
		for _, in := range tx.TxIn {
			op := in.PreviousOutPoint
			if _, ok := coins[op]; ok {
				continue
			}
			out, err := b.TxOut(ctx, op, true)
			if err != nil {
				return MapError(err)
			}
			if out != nil {
				coins[op] = &sign.Coin{PkScript: out.PkScript, Amount: out.Value}
			}
		}
		return nil
	}
}
