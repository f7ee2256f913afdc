package methods

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// maxBIP125Sequence signals replaceability; maxNonFinalSequence does not
// (both leave the locktime enforced).
const (
	maxBIP125Sequence   = 0xfffffffd
	maxNonFinalSequence = 0xfffffffe
	// dustRelayFee is -dustrelayfee (sat/kvB).
	dustRelayFee = 3000
)

// spendRequest is what CreateTransaction needs beyond the wallet.
type spendRequest struct {
	recipients []coinselect.Recipient
	// fee is the call's fee request; rate is the rate settled from it.
	fee  wallet.FeeRequest
	rate int64
	// avoidReuse leaves out coins of addresses already spent from.
	avoidReuse bool
	// changeType is change_type; nil is the wallet's -changetype default.
	changeType *string
}

// feeReasonText is Core's StringForFeeReason for the reasons the wallet
// gives.
func feeReasonText(r wallet.FeeReason) string {
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
	return "Estimate"
}

// settleFee is the fee-rate step of CreateTransaction for the sending
// calls: the wallet's refusals answer RPC_WALLET_INSUFFICIENT_FUNDS, as
// Core's SendMoney answers every CreateTransaction failure.
func settleFee(ctx context.Context, d *Deps, w *wallet.Wallet, sr *spendRequest) error {
	rate, err := w.Options().FeeRateForSpend(ctx, feeSource(d), w.PayTxFee(), sr.fee)
	if err != nil {
		var we *wallet.Error
		if errors.As(err, &we) && errors.Is(err, wallet.ErrWallet) {
			return rpc.NewError(rpc.CodeWalletInsufficientFunds, we.Description)
		}
		return MapError(err)
	}
	sr.rate = rate
	return nil
}

// walletCoinType maps the wallet's address type to selection's.
func walletCoinType(t wallet.OutputType) coinselect.OutputType {
	switch t {
	case wallet.Legacy:
		return coinselect.Legacy
	case wallet.P2SHSegwit:
		return coinselect.P2SHSegwit
	case wallet.Bech32:
		return coinselect.Bech32
	case wallet.Bech32m:
		return coinselect.Bech32m
	}
	return coinselect.UnknownType
}

// selectionCoin is a wallet coin as coin selection weighs it: its input
// weight from the descriptor's maximum satisfaction (0, not a candidate,
// when the wallet cannot size it).
func selectionCoin(c wallet.SpendCoin) coinselect.Coin {
	cc := coinselect.Coin{OutPoint: c.OutPoint, Value: c.Value, PkScript: c.Script,
		Type: walletCoinType(c.Type), Depth: int(c.Depth), FromMe: c.FromMe, Safe: c.Safe}
	if c.Sizable {
		cc.InputWeight = coinselect.InputWeight(c.SatWeight, c.SatElems, c.Segwit)
	}
	if c.Depth == 0 {
		cc.Ancestors, cc.Descendants = 1, 1
	}
	return cc
}

// builtTx is a funded, unsigned transaction and where its change went.
type builtTx struct {
	tx        *wire.MsgTx
	funding   *coinselect.Funding
	changePos int // -1 for none
	coins     map[wire.OutPoint]coinselect.Coin
}

// createTransaction is Core's CreateTransactionInternal for the wallet's
// own coins: candidates, a change address of the internal descriptor,
// coin selection, then the transaction with shuffled inputs, change at a
// random position, anti-fee-sniping locktime and sequences.
func createTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, sr *spendRequest) (*builtTx, error) {
	opt := w.Options()
	coins, err := w.SpendCoins(ctx, func(op wire.OutPoint, spk []byte) bool {
		return w.IsLockedCoin(op) || (sr.avoidReuse && w.IsSpentKey(spk))
	})
	if err != nil {
		return nil, MapError(err)
	}
	avail := make([]coinselect.Coin, 0, len(coins))
	byOP := make(map[wire.OutPoint]coinselect.Coin, len(coins))
	for _, c := range coins {
		sc := selectionCoin(c)
		avail = append(avail, sc)
		byOP[sc.OutPoint] = sc
	}
	// Core reserves a change address and, when it cannot, goes on with
	// none: only a transaction that needs change fails then.
	var changeScript []byte
	var changeErr string
	if changeAddr, err := w.NewAddressOfType(ctx, true, sr.changeType, nil); err != nil {
		changeErr = "Transaction needs a change address, but we can't generate it. " + MapError(err).Error()
	} else if changeScript, err = address.Decode(changeAddr, d.Net); err != nil {
		return nil, MapError(err)
	}
	changeSpend := 0
	if sc, ok := w.ScriptSpendSize(changeScript); ok {
		changeSpend = (coinselect.InputWeight(sc.SatWeight, sc.SatElems, sc.Segwit) + 3) / 4
	}
	opts := coinselect.DefaultOptions()
	opts.SpendZeroConfChange = opt.SpendZeroConfChange
	opts.AvoidPartialSpends = opt.AvoidPartialSpends || sr.avoidReuse
	// Core's GetDiscardRate: -discardfee capped by the longest-target
	// estimate when there is one, never below the dust relay rate.
	discard := opt.DiscardFee
	if est, err := feeSource(d).EstimateFee(ctx, maxConfTarget, false); err == nil && est > 0 {
		discard = min(discard, est)
	}
	discard = max(discard, dustRelayFee)
	freq := &coinselect.Request{
		Options:          opts,
		Recipients:       sr.recipients,
		ChangeScript:     changeScript,
		ChangeSpendSize:  changeSpend,
		FeeRate:          coinselect.FeeRate(sr.rate),
		LongTermFeeRate:  coinselect.FeeRate(opt.ConsolidateFeeRate),
		DiscardFeeRate:   coinselect.FeeRate(discard),
		DustRelayFeeRate: dustRelayFee,
		MaxTxFee:         opt.MaxTxFee,
		Available:        avail,
		AllowOtherInputs: true,
	}
	f, err := coinselect.Fund(freq)
	if err != nil {
		return nil, fundError(err)
	}
	if f.Change > 0 && len(changeScript) == 0 {
		return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, changeErr)
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	tx := wire.NewMsgTx(2)
	for i, r := range sr.recipients {
		tx.AddTxOut(wire.NewTxOut(f.Amounts[i], r.PkScript))
	}
	changePos := -1
	if f.Change > 0 {
		changePos = rng.IntN(len(tx.TxOut) + 1)
		out := wire.NewTxOut(f.Change, changeScript)
		tx.TxOut = append(tx.TxOut, nil)
		copy(tx.TxOut[changePos+1:], tx.TxOut[changePos:])
		tx.TxOut[changePos] = out
	}
	rbf := opt.WalletRBF
	if sr.fee.SignalRBF != nil {
		rbf = *sr.fee.SignalRBF
	}
	seq := uint32(maxNonFinalSequence)
	if rbf {
		seq = maxBIP125Sequence
	}
	ins := append([]coinselect.Coin(nil), f.Coins...)
	rng.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
	for _, c := range ins {
		in := wire.NewTxIn(&c.OutPoint, nil, nil)
		in.Sequence = seq
		tx.AddTxIn(in)
	}
	// Core's DiscourageFeeSniping: the tip height, now and then up to 99
	// blocks earlier.
	if h := w.TipHeight(ctx); h > 0 {
		lt := int64(h)
		if rng.IntN(10) == 0 {
			lt = max(0, lt-int64(rng.IntN(100)))
		}
		tx.LockTime = uint32(lt)
	}
	return &builtTx{tx: tx, funding: f, changePos: changePos, coins: byOP}, nil
}

// fundError maps a coin selection failure to Core's reply of the sending
// calls: RPC_WALLET_INSUFFICIENT_FUNDS with the selection's message.
func fundError(err error) error {
	var ce *coinselect.Error
	if errors.As(err, &ce) {
		return rpc.NewError(rpc.CodeWalletInsufficientFunds, ce.Error())
	}
	return MapError(err)
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
// transaction stays in the wallet.
func commitTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, tx *wire.MsgTx) error {
	if err := w.CommitTx(ctx, tx); err != nil {
		return MapError(err)
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

// sendMoney is Core's SendMoney for sendtoaddress and sendmany.
func sendMoney(ctx context.Context, d *Deps, w *wallet.Wallet, sr *spendRequest, verbose bool) (any, error) {
	if err := w.EnsureUnlocked(); err != nil {
		return nil, MapError(err)
	}
	if !w.PrivateKeysEnabled() {
		return nil, rpc.NewError(rpc.CodeWalletError, "Error: Private keys are disabled for this wallet")
	}
	rand.Shuffle(len(sr.recipients), func(i, j int) {
		sr.recipients[i], sr.recipients[j] = sr.recipients[j], sr.recipients[i]
	})
	// CreateTransaction's first checks, before the fee rate.
	if len(sr.recipients) == 0 {
		return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Transaction must have at least one recipient")
	}
	for _, r := range sr.recipients {
		if r.Value < coinselect.DustThreshold(r.PkScript, dustRelayFee) {
			return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Transaction amount too small")
		}
	}
	if err := settleFee(ctx, d, w, sr); err != nil {
		return nil, err
	}
	bt, err := createTransaction(ctx, d, w, sr)
	if err != nil {
		return nil, err
	}
	signed, err := signWithWallet(ctx, w, bt.tx)
	if err != nil {
		return nil, err
	}
	if err := commitTransaction(ctx, d, w, signed); err != nil {
		return nil, err
	}
	txid := signed.TxHash().String()
	if verbose {
		_, reason, err := w.Options().MinimumFeeRate(ctx, feeSource(d), w.PayTxFee(), sr.fee)
		if err != nil {
			return nil, MapError(err)
		}
		return &struct {
			TxID      string `json:"txid"`
			FeeReason string `json:"fee_reason"`
		}{txid, feeReasonText(reason)}, nil
	}
	return txid, nil
}
