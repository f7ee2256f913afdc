package methods

import (
	"context"
	"encoding/json"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
)

// ChainService is what the methods need of the node's chain following
// (package walletscan implements it).
type ChainService interface {
	// Backend is the full node.
	Backend() chain.Backend
	// Track starts following a wallet just created (from the current
	// tip) or loaded (catching up when it never processed a block).
	Track(w *wallet.Wallet, created bool)
	// Busy reports whether a rescan of the wallet runs.
	Busy(w *wallet.Wallet) bool
	// Progress returns the running rescan's progress.
	Progress(w *wallet.Wallet) (scan.Progress, bool)
	// Abort stops the wallet's running rescan, reporting whether one ran.
	Abort(w *wallet.Wallet) bool
	// Rescan scans heights start to stop (stop < 0: the tip) and returns
	// when the scan ends; the caller's cancellation does not stop it.
	Rescan(ctx context.Context, w *wallet.Wallet, start, stop int32) (scan.Result, error)
	// RescanFrom scans from the first block at least timestamp minus two
	// hours old through the tip.
	RescanFrom(ctx context.Context, w *wallet.Wallet, timestamp int64) (scan.Result, error)
}

// errRescanBusy is Core's answer when the wallet's rescan slot is taken.
var errRescanBusy = rpc.NewError(rpc.CodeWalletError,
	"Wallet is currently rescanning. Abort existing rescan or wait.")

// errNoChain is the answer of the chain methods of an offline node.
var errNoChain = rpc.NewError(rpc.CodeMisc, "No chain backend configured (-chainbackend, -chainrpcconnect)")

// lastProcessed returns the wallet's last processed block, the genesis
// block when it processed none.
func lastProcessed(d *Deps, w *wallet.Wallet) lastBlock {
	if b, ok := w.LastProcessedBlock(); ok {
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
	p, ok := d.Chain.Progress(w)
	if !ok {
		return false
	}
	return scanningInfo{Duration: int64(time.Since(p.Started).Seconds()), Progress: p.Fraction()}
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

// rescanAfterImport runs the rescan of an importdescriptors call once its
// elements are stored: from the earliest timestamp minus two hours through
// the tip, unless no element succeeded or every element said "now" (which
// scans nothing, unlike Core). It returns when the rescan ends.
func rescanAfterImport(ctx context.Context, d *Deps, w *wallet.Wallet, raws []json.RawMessage,
	elems []wallet.ImportElement, results []wallet.ImportResult) error {
	if d.Chain == nil {
		return nil
	}
	ok, allNow := false, true
	lowest := int64(-1)
	for i, r := range results {
		if r.Success {
			ok = true
		}
		if !isNowTimestamp(raws[i]) {
			allNow = false
		}
		if lowest < 0 || elems[i].Timestamp < lowest {
			lowest = elems[i].Timestamp
		}
	}
	if !ok || allNow {
		return nil
	}
	if _, err := d.Chain.RescanFrom(ctx, w, lowest); err != nil {
		return MapError(err)
	}
	return nil
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
