package methods

import (
	"context"
	"log/slog"
	"math/rand/v2"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// maxBIP125Sequence signals replaceability; maxNonFinalSequence does not
// (both leave the locktime enforced).
const (
	maxBIP125Sequence   = seqMaxBIP125
	maxNonFinalSequence = seqMaxNonFinal
	// dustRelayFee is -dustrelayfee (sat/kvB).
	dustRelayFee = 3000
)

// feeReasonText is Core's StringForFeeReason for the reasons the wallet
// gives. The backend's estimate does not say which of the estimator's
// horizons gave it: a conservative estimate is reported as Core's
// conservative reason, an economical one as its double-target reason.
func feeReasonText(r wallet.FeeReason, conservative bool) string {
	switch r {
	case wallet.FeeReasonPayTxFee:
		return "PayTxFee set"
	case wallet.FeeReasonFallback:
		return "Fallback fee"
	case wallet.FeeReasonMempoolMin:
		return "Mempool Min Fee"
	case wallet.FeeReasonRequired:
		return "Minimum Required Fee"
	}
	if conservative {
		return "Conservative Double Target longer horizon"
	}
	return "Double Target 95% Threshold"
}

// signWithWallet signs every input of tx with the wallet's keys through
// the PSBT signer (each signature verified against its public key) and
// returns the complete transaction.
func signWithWallet(ctx context.Context, w *wallet.Wallet, tx *wire.MsgTx) (*wire.MsgTx, error) {
	p := psbt.New(tx)
	var scripts [][]byte
	for i, in := range tx.TxIn {
		prev, ok := w.WalletTx(ctx, in.PreviousOutPoint.Hash)
		if !ok || int(in.PreviousOutPoint.Index) >= len(prev.TxOut) {
			return nil, rpc.NewError(rpc.CodeWalletError, "Signing transaction failed")
		}
		out := prev.TxOut[in.PreviousOutPoint.Index]
		p.Inputs[i].NonWitnessUTXO = prev
		p.Inputs[i].WitnessUTXO = out
		scripts = append(scripts, out.PkScript)
	}
	outs, err := w.SigningOutputs(scripts)
	if err != nil {
		return nil, MapError(err)
	}
	ps := &sign.PSBTSigner{Provider: sign.NewProvider(), Origins: sign.NewOrigins()}
	// The provider holds copies of the wallet's private keys: clear them
	// once the transaction is signed.
	defer ps.Provider.Zero()
	for _, o := range outs {
		addOutput(ps, o, true)
	}
	if err := ps.SignPSBT(p, nil, true); err != nil {
		return nil, signPSBTError(err)
	}
	signed := tx.Copy()
	for i := range p.Inputs {
		if !p.Inputs[i].IsFinalized() {
			return nil, rpc.NewError(rpc.CodeWalletError, "Signing transaction failed")
		}
		signed.TxIn[i].SignatureScript = p.Inputs[i].FinalScriptSig
		signed.TxIn[i].Witness = p.Inputs[i].FinalScriptWitness
	}
	return signed, nil
}

// commitTransaction is Core's CommitTransaction: the wallet records its
// transaction at once (its inputs are spent from then on), then the
// backend relays it; as in Core a relay failure is logged and the
// transaction stays in the wallet. From the commit on, the call runs to
// its end whatever its client does (only shutdown stops it): a client
// hanging up after the wallet recorded the transaction must not leave it
// spent in the wallet and never relayed.
func commitTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, tx *wire.MsgTx, comments wallet.TxComments) error {
	ctx, done := rpc.Unwatched(ctx)
	defer done()
	if err := w.CommitTx(ctx, tx, comments); err != nil {
		return MapError(err)
	}
	if afterCommitHook != nil {
		afterCommitHook()
	}
	if !w.Options().WalletBroadcast {
		// Not relayed: kept, inactive, as Core keeps it.
		w.RelayFailed(ctx, tx.TxHash())
		return nil
	}
	if d.Chain == nil || d.Chain.Backend() == nil {
		return nil
	}
	if _, err := d.Chain.Backend().SendRawTransaction(ctx, tx); err != nil {
		slog.Warn("transaction cannot be broadcast immediately", "txid", tx.TxHash().String(), "err", err.Error())
		w.RelayFailed(ctx, tx.TxHash())
	}
	return nil
}

// afterCommitHook, when set (tests only), runs between the wallet's commit
// of a transaction and its relay.
var afterCommitHook func()

// sendMoney is Core's SendMoney for sendtoaddress and sendmany: the
// transaction is recorded with fr.comments.
func sendMoney(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest, verbose bool) (any, error) {
	if err := w.EnsureUnlocked(); err != nil {
		return nil, MapError(err)
	}
	if !w.PrivateKeysEnabled() {
		return nil, rpc.NewError(rpc.CodeWalletError, "Error: Private keys are disabled for this wallet")
	}
	rand.Shuffle(len(fr.recipients), func(i, j int) {
		fr.recipients[i], fr.recipients[j] = fr.recipients[j], fr.recipients[i]
	})
	bt, err := createTransaction(ctx, d, w, fr)
	if err != nil {
		return nil, fundErrorCode(err, rpc.CodeWalletInsufficientFunds)
	}
	signed, err := signWithWallet(ctx, w, bt.tx)
	if err != nil {
		return nil, err
	}
	if err := commitTransaction(ctx, d, w, signed, fr.comments); err != nil {
		return nil, err
	}
	txid := signed.TxHash().String()
	if verbose {
		return &struct {
			TxID      string `json:"txid"`
			FeeReason string `json:"fee_reason"`
		}{txid, feeReasonText(fr.reason, fr.conservative(w))}, nil
	}
	return txid, nil
}
