package methods

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// This file is the funding core every spending call shares (Core's
// CreateTransaction and the wallet's FundTransaction): candidates, preset
// inputs (the wallet's, or external ones sized from solving data or given
// weights), the change output, coin selection, the unsigned transaction
// with Core's input order, sequences and locktime, and the locks taken.

// Limits of Core's funding.
const (
	// maxDepthDefault is Core's DEFAULT_MAX_DEPTH (maxconf unset).
	maxDepthDefault = 9999999
	// trucMaxWeight caps a version 3 transaction (TRUC_MAX_WEIGHT).
	trucMaxWeight = 40000
	// minInputWeight is the weight of an empty input (outpoint,
	// sequence, empty scriptSig, empty witness).
	minInputWeight = 165
	// antiFeeSnipingMaxTipAge is Core's MAX_ANTI_FEE_SNIPING_TIP_AGE.
	antiFeeSnipingMaxTipAge = 8 * 60 * 60
)

// presetInput is an input the caller chose: its outpoint, and what the
// transaction already gave it (Core's PreselectedInput).
type presetInput struct {
	op        wire.OutPoint
	sequence  *uint32
	scriptSig []byte
	witness   wire.TxWitness
	// weight is a weight given with input_weights, 0 for none.
	weight int
	// out is the output spent, known for external inputs found in the
	// UTXO set.
	out *wire.TxOut
}

// fundRequest is what the funding core needs beyond the wallet (Core's
// recipients with a CCoinControl).
type fundRequest struct {
	recipients []coinselect.Recipient
	// fee is the call's fee request; rate and reason are settled from it.
	fee    wallet.FeeRequest
	rate   int64
	reason wallet.FeeReason
	// avoidReuse leaves out coins of addresses already spent from.
	avoidReuse bool
	// changeType is change_type; changeScript is change_address.
	changeType   *wallet.OutputType
	changeScript []byte
	// changePos is change_position, nil for a random one.
	changePos *int
	// preset are the chosen inputs, in order; allowOther is add_inputs.
	preset     []presetInput
	allowOther bool
	// includeUnsafe, minConf and maxConf filter the wallet's candidates.
	includeUnsafe    bool
	minConf, maxConf int
	lockUnspents     bool
	// maxTxWeight is max_tx_weight, 0 for the standard limit.
	maxTxWeight int
	// locktime is the transaction's locktime; nil asks for Core's
	// anti-fee-sniping locktime.
	locktime *uint32
	version  int32
	// solving is the solving_data provider, nil when none was given.
	solving *descriptor.FlatProvider
	// avoidPartialSpends forces grouping by address (Core's coin
	// control flag; the wallet option and avoid_reuse also set it).
	avoidPartialSpends bool
	// comments are sendtoaddress's and sendmany's, kept with the
	// transaction.
	comments wallet.TxComments
}

// newFundRequest is a request with Core's CCoinControl defaults.
func newFundRequest(w *wallet.Wallet) *fundRequest {
	return &fundRequest{maxConf: maxDepthDefault, version: defaultTxVersion, allowOther: true,
		avoidPartialSpends: w.Options().AvoidPartialSpends}
}

// conservative reports whether the fee estimate is asked in conservative
// mode (Core's GetMinimumFeeRate: unless the transaction signals
// replaceability, or the mode says otherwise).
func (fr *fundRequest) conservative(w *wallet.Wallet) bool {
	switch fr.fee.Mode {
	case wallet.FeeModeConservative:
		return true
	case wallet.FeeModeEconomical:
		return false
	}
	rbf := w.Options().WalletRBF
	if fr.fee.SignalRBF != nil {
		rbf = *fr.fee.SignalRBF
	}
	return !rbf
}

// builtTx is a funded, unsigned transaction.
type builtTx struct {
	tx        *wire.MsgTx
	fee       int64
	changePos int // -1 for none
}

// fundFail is a funding failure with Core's message: CreateTransaction's
// callers give it their own code (-6 for sendtoaddress and sendmany, -4
// for the funding calls).
type fundFail struct{ msg string }

func (e *fundFail) Error() string { return e.msg }

// fundErrorCode turns a funding failure into the caller's RPC error.
func fundErrorCode(err error, code rpc.Code) error {
	var ff *fundFail
	if errors.As(err, &ff) {
		return rpc.NewError(code, ff.msg)
	}
	var ce *coinselect.Error
	if errors.As(err, &ce) {
		return rpc.NewError(code, ce.Error())
	}
	return MapError(err)
}

// outPointString is Core's COutPoint::ToString.
func outPointString(op wire.OutPoint) string {
	return fmt.Sprintf("COutPoint(%s, %d)", op.Hash.String()[:10], op.Index)
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

// applyBumpFees sets the ancestors' bump fee of every unconfirmed coin
// among preset and avail at the call's fee rate (Core's
// calculateIndividualBumpFees over the backend's mempool, Core's
// MiniMiner) and returns the combined calculation the selection makes for
// the coins it picks.
func applyBumpFees(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest, preset, avail []coinselect.Coin) func([]wire.OutPoint) (int64, bool) {
	return setBumpFees(ctx, d, w, coinselect.FeeRate(fr.rate), nil, preset, avail)
}

// setBumpFees is applyBumpFees at rate for a spender replacing the
// mempool transactions replaced (a fee bump's original); it also sets the
// unconfirmed candidates' ancestor and cluster counts from the mempool. With no
// unconfirmed coin, no backend, or a backend that cannot list its mempool,
// it returns nil: bump fees are 0, as Core has them with no mempool.
func setBumpFees(ctx context.Context, d *Deps, w *wallet.Wallet, rate coinselect.FeeRate, replaced []chainhash.Hash, preset, avail []coinselect.Coin) func([]wire.OutPoint) (int64, bool) {
	if d.Chain == nil || d.Chain.Backend() == nil {
		return nil
	}
	var ops []wire.OutPoint
	for _, c := range preset {
		// A preset coin counts unless it is a confirmed wallet coin.
		if own, ok := w.OwnOutput(ctx, c.OutPoint); !ok || own.Depth == 0 {
			ops = append(ops, c.OutPoint)
		}
	}
	for _, c := range avail {
		if c.Depth == 0 {
			ops = append(ops, c.OutPoint)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	pool := bumpPool(ctx, d)
	if pool == nil {
		return nil
	}
	// The unconfirmed candidates' mempool ancestry, for the eligibility
	// filters (Core's getTransactionAncestry: ancestors and cluster size).
	children := coinselect.Children(pool)
	type ancestry struct{ anc, cluster int }
	seen := map[chainhash.Hash]ancestry{}
	for i := range avail {
		c := &avail[i]
		if c.Depth != 0 {
			continue
		}
		a, ok := seen[c.OutPoint.Hash]
		if !ok {
			a.anc, a.cluster = coinselect.MempoolAncestry(pool, children, c.OutPoint.Hash)
			seen[c.OutPoint.Hash] = a
		}
		c.Ancestors, c.Descendants = a.anc, a.cluster
	}
	if fees, ok := coinselect.IndividualBumpFees(pool, ops, rate, replaced); ok {
		for _, coins := range [][]coinselect.Coin{preset, avail} {
			for i := range coins {
				coins[i].BumpFee = fees[coins[i].OutPoint]
			}
		}
	}
	return func(ops []wire.OutPoint) (int64, bool) { return coinselect.CombinedBumpFee(pool, ops, rate, replaced) }
}

// bumpPool is the backend's mempool as the bump-fee calculation reads it;
// nil without a backend or when it cannot list its mempool.
func bumpPool(ctx context.Context, d *Deps) map[chainhash.Hash]*coinselect.MempoolTx {
	if d.Chain == nil || d.Chain.Backend() == nil {
		return nil
	}
	entries, err := d.Chain.Backend().MempoolEntries(ctx)
	if err != nil {
		return nil
	}
	pool := make(map[chainhash.Hash]*coinselect.MempoolTx, len(entries))
	for _, e := range entries {
		pool[e.TxID] = &coinselect.MempoolTx{TxID: e.TxID, VSize: e.VSize, Fee: e.Fee, Parents: e.Depends}
	}
	return pool
}

// settleFee is the fee-rate step of CreateTransaction: Core's
// GetMinimumFeeRate and its two refusals.
func settleFee(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest) error {
	rate, reason, err := w.Options().MinimumFeeRate(ctx, feeSource(d), w.PayTxFee(), fr.fee)
	if err != nil {
		return MapError(err)
	}
	if fr.fee.FeeRate != nil && rate > *fr.fee.FeeRate {
		return &fundFail{fmt.Sprintf("Fee rate (%s) is lower than the minimum fee rate setting (%s)",
			wallet.FormatSatVB(*fr.fee.FeeRate), wallet.FormatSatVB(rate))}
	}
	if reason == wallet.FeeReasonFallback && !w.Options().AllowFallbackFee() {
		return &fundFail{"Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee."}
	}
	fr.rate, fr.reason = rate, reason
	return nil
}

// presetCoin sizes a preset input as Core's FetchSelectedInputs: a wallet
// output from its descriptor (or solving data), an external one from the
// solving data; a weight given by the caller wins.
func presetCoin(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest, in presetInput) (coinselect.Coin, error) {
	c := coinselect.Coin{OutPoint: in.op, Safe: true, Type: coinselect.UnknownType}
	var spk []byte
	if own, ok := w.OwnOutput(ctx, in.op); ok {
		c.Value, spk, c.Type = own.Value, own.Script, walletCoinType(own.Type)
		if own.Sizable {
			c.InputWeight = coinselect.InputWeight(own.SatWeight, own.SatElems, own.Segwit)
		}
	} else {
		if in.out == nil {
			return c, &fundFail{"Not found pre-selected input " + outPointString(in.op)}
		}
		c.Value, spk = in.out.Value, in.out.PkScript
	}
	c.PkScript = spk
	if c.InputWeight <= 0 && fr.solving != nil {
		if desc := descriptor.Infer(spk, fr.solving, d.Net); desc != nil {
			weight, ok := desc.MaxSatisfactionWeight(!w.PrivateKeysEnabled())
			elems, eok := desc.MaxSatisfactionElems()
			if ok && eok {
				t, _ := wallet.ParseOutputType(desc.OutputType())
				segwit := t == wallet.P2SHSegwit || t == wallet.Bech32 || t == wallet.Bech32m
				c.InputWeight = coinselect.InputWeight(weight, elems, segwit)
				if c.Type == coinselect.UnknownType {
					c.Type = walletCoinType(t)
				}
			}
		}
	}
	if in.weight > 0 {
		c.InputWeight = in.weight
	}
	if c.InputWeight <= 0 {
		return c, &fundFail{"Not solvable pre-selected input " + outPointString(in.op)}
	}
	if c.Type == coinselect.UnknownType {
		c.Type = walletCoinType(scriptType(spk))
	}
	return c, nil
}

// scriptType is the address type of a scriptPubKey alone.
func scriptType(spk []byte) wallet.OutputType {
	switch {
	case len(spk) == 22 && spk[0] == 0x00:
		return wallet.Bech32
	case len(spk) == 34 && spk[0] == 0x00:
		return wallet.Bech32
	case len(spk) == 34 && spk[0] == 0x51:
		return wallet.Bech32m
	}
	return wallet.Legacy
}

// changeAddress is the change destination of a funding: change_address,
// or an address of the wallet's internal descriptor reserved for it (Core's
// ReserveDestination): kept once the funding succeeds, whether or not the
// transaction has change (Core's KeepDestination), given back when it
// fails.
type changeAddress struct {
	script   []byte
	reserved bool
	// err is Core's message when no address could be reserved; only a
	// transaction that needs change fails with it.
	err string
}

func reserveChange(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest) (*changeAddress, error) {
	if fr.changeScript != nil {
		return &changeAddress{script: fr.changeScript}, nil
	}
	scripts := make([][]byte, len(fr.recipients))
	for i, r := range fr.recipients {
		scripts[i] = r.PkScript
	}
	t := string(w.ChangeOutputType(fr.changeType, scripts))
	addr, err := w.NewAddressOfType(ctx, true, &t, nil)
	if err != nil {
		msg := MapError(err).Error()
		if msg == "Error: This wallet has no available keys" {
			msg = "Error: No " + t + " addresses available."
		}
		return &changeAddress{err: "Transaction needs a change address, but we can't generate it. " + msg}, nil
	}
	spk, err := address.Decode(addr, d.Net)
	if err != nil {
		return nil, MapError(err)
	}
	return &changeAddress{script: spk, reserved: true}, nil
}

// release gives a reserved change address back.
func (c *changeAddress) release(ctx context.Context, w *wallet.Wallet) {
	if c != nil && c.reserved {
		_ = w.ReturnChangeAddress(ctx, c.script)
		c.reserved = false
	}
}

// checkMaxTxWeight is CreateTransaction's first check.
func checkMaxTxWeight(fr *fundRequest) error {
	if fr.version == 3 && (fr.maxTxWeight == 0 || fr.maxTxWeight > trucMaxWeight) {
		fr.maxTxWeight = trucMaxWeight
	}
	if mw := fr.maxTxWeight; mw != 0 && (mw < coinselect.MinStandardTxNonWitnessSize*coinselect.WitnessScaleFactor || mw > coinselect.MaxStandardTxWeight) {
		return &fundFail{fmt.Sprintf("Maximum transaction weight must be between %d and %d",
			coinselect.MinStandardTxNonWitnessSize*coinselect.WitnessScaleFactor, coinselect.MaxStandardTxWeight)}
	}
	return nil
}

// createTransaction is Core's CreateTransaction (with its second attempt
// avoiding partial spends) for the wallet: the checks in Core's order, the
// fee rate, preset inputs, candidates, change, selection, then the
// unsigned transaction. Failures are *fundFail or *coinselect.Error (or
// RPC errors of the wallet). A reserved change address is kept when the
// funding succeeds, as Core keeps it.
func createTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest) (*builtTx, error) {
	if len(fr.recipients) == 0 {
		return nil, &fundFail{"Transaction must have at least one recipient"}
	}
	for _, r := range fr.recipients {
		if r.Value < 0 {
			return nil, &fundFail{"Transaction amounts must not be negative"}
		}
	}
	if err := checkMaxTxWeight(fr); err != nil {
		return nil, err
	}
	change, err := reserveChange(ctx, d, w, fr)
	if err != nil {
		return nil, err
	}
	bt, err := createTransactionInternal(ctx, d, w, fr, change)
	if err != nil {
		change.release(ctx, w)
		return nil, err
	}
	if fr.lockUnspents {
		ops := make([]wire.OutPoint, len(bt.tx.TxIn))
		for i, in := range bt.tx.TxIn {
			ops[i] = in.PreviousOutPoint
		}
		w.LockFundedCoins(ops)
	}
	return bt, nil
}

func createTransactionInternal(ctx context.Context, d *Deps, w *wallet.Wallet, fr *fundRequest, change *changeAddress) (*builtTx, error) {
	opt := w.Options()
	for _, r := range fr.recipients {
		if r.Value < coinselect.DustThreshold(r.PkScript, dustRelayFee) {
			return nil, &fundFail{"Transaction amount too small"}
		}
	}
	if err := settleFee(ctx, d, w, fr); err != nil {
		return nil, err
	}

	// Preset inputs, then the wallet's candidates.
	preset := make([]coinselect.Coin, 0, len(fr.preset))
	presetIdx := make(map[wire.OutPoint]int, len(fr.preset))
	for i, in := range fr.preset {
		c, err := presetCoin(ctx, d, w, fr, in)
		if err != nil {
			return nil, err
		}
		preset = append(preset, c)
		presetIdx[in.op] = i
	}
	var avail []coinselect.Coin
	if fr.allowOther {
		coins, err := w.SpendCoins(ctx, func(op wire.OutPoint, spk []byte) bool {
			_, chosen := presetIdx[op]
			return chosen || w.IsLockedCoin(op) || (fr.avoidReuse && w.IsSpentKey(spk))
		})
		if err != nil {
			return nil, MapError(err)
		}
		avail = make([]coinselect.Coin, 0, len(coins))
		for _, c := range coins {
			if int(c.Depth) < fr.minConf || int(c.Depth) > fr.maxConf {
				continue
			}
			avail = append(avail, selectionCoin(c))
		}
	}

	bumpFees := applyBumpFees(ctx, d, w, fr, preset, avail)

	changeSpend := 0
	if sc, ok := w.ScriptSpendSize(change.script); ok {
		changeSpend = (coinselect.InputWeight(sc.SatWeight, sc.SatElems, sc.Segwit) + 3) / 4
	}
	opts := coinselect.DefaultOptions()
	opts.SpendZeroConfChange = opt.SpendZeroConfChange
	opts.AvoidPartialSpends = fr.avoidPartialSpends || fr.avoidReuse
	opts.IncludeUnsafe = fr.includeUnsafe
	opts.Version = fr.version
	opts.CombinedBumpFee = bumpFees
	// Core's GetDiscardRate: -discardfee capped by the longest-target
	// estimate when there is one, never below the dust relay rate.
	discard := opt.DiscardFee
	if est, err := feeSource(d).EstimateFee(ctx, maxConfTarget, false); err == nil && est > 0 {
		discard = min(discard, est)
	}
	discard = max(discard, dustRelayFee)
	freq := &coinselect.Request{
		Options:          opts,
		Recipients:       fr.recipients,
		ChangeScript:     change.script,
		ChangeSpendSize:  changeSpend,
		FeeRate:          coinselect.FeeRate(fr.rate),
		LongTermFeeRate:  coinselect.FeeRate(opt.ConsolidateFeeRate),
		DiscardFeeRate:   coinselect.FeeRate(discard),
		DustRelayFeeRate: dustRelayFee,
		MaxTxFee:         opt.MaxTxFee,
		MaxTxWeight:      fr.maxTxWeight,
		Available:        avail,
		Preset:           preset,
		AllowOtherInputs: fr.allowOther,
	}
	f, err := coinselect.Fund(freq)
	if err != nil {
		return nil, err
	}
	// Core's second attempt, grouping coins by address, taken when it
	// costs at most -maxapsfee more.
	if f.Fee > 0 && opt.MaxAPSFee > -1 && !opts.AvoidPartialSpends {
		grouped := *freq
		grouped.Options.AvoidPartialSpends = true
		// Core's second attempt reuses the first one's change address
		// only when that one has change; otherwise it reserves a fresh
		// one, kept if the attempt succeeds (so a changeless payment
		// uses up two change indexes, in Core and here).
		var second *changeAddress
		if f.Change == 0 && change.reserved {
			if second, err = reserveChange(ctx, d, w, fr); err != nil {
				return nil, err
			}
			grouped.ChangeScript = second.script
		}
		g, gerr := coinselect.Fund(&grouped)
		if gerr == nil && second != nil && g.Change > 0 && len(second.script) == 0 {
			gerr = errors.New(second.err)
		}
		switch {
		case gerr != nil:
			second.release(ctx, w)
		case g.Fee <= f.Fee+opt.MaxAPSFee:
			f = g
			if second != nil {
				change = second
			}
		}
	}
	if f.Change > 0 && len(change.script) == 0 {
		return nil, &fundFail{change.err}
	}

	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	tx := wire.NewMsgTx(fr.version)
	for i, r := range fr.recipients {
		tx.AddTxOut(wire.NewTxOut(f.Amounts[i], r.PkScript))
	}
	changePos := -1
	if f.Change > 0 {
		if fr.changePos != nil {
			changePos = *fr.changePos
			if changePos > len(tx.TxOut) {
				return nil, &fundFail{"Transaction change output index out of range"}
			}
		} else {
			changePos = rng.IntN(len(tx.TxOut) + 1)
		}
		out := wire.NewTxOut(f.Change, change.script)
		tx.TxOut = append(tx.TxOut, nil)
		copy(tx.TxOut[changePos+1:], tx.TxOut[changePos:])
		tx.TxOut[changePos] = out
	}

	// Inputs: the preset ones first in the order given, the selected
	// ones after them in random order.
	rbf := opt.WalletRBF
	if fr.fee.SignalRBF != nil {
		rbf = *fr.fee.SignalRBF
	}
	seq := uint32(seqMaxNonFinal)
	if rbf {
		seq = seqMaxBIP125
	}
	ins := append([]coinselect.Coin(nil), f.Coins...)
	rng.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
	ordered := make([]coinselect.Coin, 0, len(ins))
	for _, in := range fr.preset {
		for _, c := range ins {
			if c.OutPoint == in.op {
				ordered = append(ordered, c)
				break
			}
		}
	}
	for _, c := range ins {
		if _, ok := presetIdx[c.OutPoint]; !ok {
			ordered = append(ordered, c)
		}
	}
	antiSnipe := true
	for _, c := range ordered {
		in := wire.NewTxIn(&c.OutPoint, nil, nil)
		in.Sequence = seq
		if i, ok := presetIdx[c.OutPoint]; ok {
			p := fr.preset[i]
			if p.sequence != nil {
				in.Sequence = *p.sequence
				antiSnipe = false
			}
			in.SignatureScript = p.scriptSig
			in.Witness = p.witness
		}
		tx.AddTxIn(in)
	}
	if fr.locktime != nil {
		tx.LockTime = *fr.locktime
	} else if antiSnipe {
		discourageFeeSniping(ctx, d, w, tx, rng)
	}
	return &builtTx{tx: tx, fee: f.Fee, changePos: changePos}, nil
}

// discourageFeeSniping is Core's DiscourageFeeSniping: the locktime is the
// wallet's tip height, now and then up to 99 blocks earlier, when that tip
// is less than 8 hours old; otherwise 0, so a lagging wallet does not
// stand out.
func discourageFeeSniping(ctx context.Context, d *Deps, w *wallet.Wallet, tx *wire.MsgTx, rng *rand.Rand) {
	tx.LockTime = 0
	tip, ok := w.LastProcessedBlock()
	if !ok || d.Chain == nil || d.Chain.Backend() == nil {
		return
	}
	hdrs, err := d.Chain.Backend().Headers(ctx, []chainhash.Hash{chainhash.Hash(tip.Hash)})
	if err != nil || len(hdrs) != 1 || hdrs[0].Timestamp.Unix() < time.Now().Unix()-antiFeeSnipingMaxTipAge {
		return
	}
	lt := int64(tip.Height)
	if rng.IntN(10) == 0 {
		lt = max(0, lt-int64(rng.IntN(100)))
	}
	tx.LockTime = uint32(lt)
}
