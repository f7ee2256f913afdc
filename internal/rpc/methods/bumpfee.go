package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// This file holds bumpfee and psbtbumpfee, Core v30's fee bumper
// (src/wallet/feebumper.cpp and bumpfee_helper in rpc/spend.cpp): the
// replacement spends every input of the original (no BIP 125 signal is
// needed: v30 relays full RBF), keeps or reduces its change, adds
// confirmed inputs when needed, and pays at least the original fee plus
// the incremental relay fee.

const (
	// walletIncrementalRelayFee is Core's WALLET_INCREMENTAL_RELAY_FEE
	// (sat/kvB), the least a bump raises the original's rate by.
	walletIncrementalRelayFee = 5000
	// coreIncrementalRelayFee is bitcoind v30's -incrementalrelayfee
	// default; btcd asks a replacement for its minimum relay fee.
	coreIncrementalRelayFee = 100
)

// bumpOptions are bumpfee's options.
type bumpOptions struct {
	fee         wallet.FeeRequest
	outputs     []*wire.TxOut
	changeIndex *int
}

// bumpError is a feebumper::Result with its first error.
func bumpError(code rpc.Code, format string, args ...any) error {
	return rpc.NewError(code, fmt.Sprintf(format, args...))
}

// formatMoney is Core's FormatMoney: 8 decimals, trailing zeros trimmed
// down to two.
func formatMoney(n int64) string {
	abs := n
	if abs < 0 {
		abs = -abs
	}
	s := fmt.Sprintf("%d.%08d", abs/1e8, abs%1e8)
	for len(s) > 2 && s[len(s)-1] == '0' && s[len(s)-3] >= '0' && s[len(s)-3] <= '9' {
		s = s[:len(s)-1]
	}
	if n < 0 {
		s = "-" + s
	}
	return s
}

// readBumpOptions reads the options object as Core's bumpfee_helper:
// RPCTypeCheckObj (keys in sorted order, null allowed, unknown keys
// refused), then the fee settings, outputs and original_change_index.
// bumpOptionTypes is Core's type table of bumpfee's options.
var bumpOptionTypes = map[string]string{
	"confTarget": "number", "conf_target": "number", "estimate_mode": "string",
	"fee_rate": "", "original_change_index": "number", "outputs": "", "replaceable": "bool",
}

func readBumpOptions(d *Deps, raw json.RawMessage) (bumpOptions, error) {
	var o bumpOptions
	t := true
	o.fee.SignalRBF = &t
	if rpc.IsNull(raw) {
		return o, nil
	}
	members, err := orderedMembers(raw)
	if err != nil {
		return o, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	get := func(k string) json.RawMessage { return firstValue(members, k) }
	if err := typeCheckObj(members, bumpOptionTypes, true); err != nil {
		return o, err
	}
	has := func(k string) bool {
		for _, m := range members {
			if m.Key == k {
				return true
			}
		}
		return false
	}
	if has("confTarget") && has("conf_target") {
		return o, rpc.NewError(rpc.CodeInvalidParameter,
			"confTarget and conf_target options should not both be set. Use conf_target (confTarget is deprecated).")
	}
	confTarget := get("conf_target")
	if has("confTarget") {
		confTarget = get("confTarget")
	}
	if has("replaceable") {
		b, err := rpc.AsBool(get("replaceable"))
		if err != nil {
			return o, err
		}
		o.fee.SignalRBF = &b
	}
	rbf := o.fee.SignalRBF
	fee, err := feeArgs(confTarget, get("estimate_mode"), get("fee_rate"), maxConfTarget)
	if err != nil {
		return o, err
	}
	fee.SignalRBF = rbf
	o.fee = fee
	if outs := get("outputs"); !rpc.IsNull(outs) {
		if rpc.JSONType(outs) == "array" && string(compactJSON(outs)) == "[]" {
			return o, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, output argument cannot be an empty array")
		}
		tmp := wire.NewMsgTx(2)
		if err := addOutputs(tmp, outs, d.Net); err != nil {
			return o, err
		}
		o.outputs = tmp.TxOut
	}
	if has("original_change_index") {
		n, err := rpc.AsInt64(get("original_change_index"))
		if err != nil {
			return o, err
		}
		if n < 0 || n > 0xffffffff {
			return o, rpc.NewError(rpc.CodeMisc, "JSON integer out of range")
		}
		i := int(n)
		o.changeIndex = &i
	}
	return o, nil
}

// compactJSON drops the blanks of a JSON text.
func compactJSON(raw json.RawMessage) []byte {
	out := make([]byte, 0, len(raw))
	for _, b := range raw {
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			out = append(out, b)
		}
	}
	return out
}

// bumpPlan is a replacement built but not signed.
type bumpPlan struct {
	tx             *wire.MsgTx
	oldFee, newFee int64
	prevs          []*wire.TxOut
}

// incrementalRelayFee is the backend's incremental relay fee (sat/kvB).
func incrementalRelayFee(d *Deps) int64 {
	if d.Chain != nil && d.Chain.Backend() != nil && d.Chain.Backend().Kind() != chain.KindBitcoind {
		return btcdRelayFee
	}
	return coreIncrementalRelayFee
}

// bumpPreconditions is Core's PreconditionChecks.
func bumpPreconditions(ctx context.Context, d *Deps, w *wallet.Wallet, txid chainhash.Hash, bc *wallet.BumpCandidate, requireMine bool) error {
	if bc.HasWalletSpend {
		return rpc.NewError(rpc.CodeInvalidParameter, "Transaction has descendants in the wallet")
	}
	if d.Chain != nil && d.Chain.Backend() != nil {
		if entries, err := d.Chain.Backend().MempoolEntries(ctx); err == nil {
			for _, e := range entries {
				for _, dep := range e.Depends {
					if dep == txid {
						return rpc.NewError(rpc.CodeInvalidParameter, "Transaction has descendants in the mempool")
					}
				}
			}
		}
	}
	if bc.Depth != 0 {
		return rpc.NewError(rpc.CodeWalletError, "Transaction has been mined, or is conflicted with a mined transaction")
	}
	if bc.ReplacedBy != nil {
		return bumpError(rpc.CodeWalletError, "Cannot bump transaction %s which was already bumped by transaction %s", txid, *bc.ReplacedBy)
	}
	if requireMine {
		for _, p := range bc.Prevs {
			if p == nil || !w.IsMine(p.PkScript) {
				return rpc.NewError(rpc.CodeWalletError, "Transaction contains inputs that don't belong to this wallet")
			}
		}
	}
	return nil
}

// inputWeightOf is the weight of a preset input: from the wallet's
// descriptor when it derives the script, else the signed input of the
// original as it stands (Core measures the signatures too; ours may come
// short by a byte of signature per key).
func inputWeightOf(w *wallet.Wallet, spk []byte, in *wire.TxIn) (int, coinselect.OutputType) {
	if sc, ok := w.ScriptSpendSize(spk); ok {
		return coinselect.InputWeight(sc.SatWeight, sc.SatElems, sc.Segwit), walletCoinType(sc.Type)
	}
	base := (32 + 4 + 4 + wire.VarIntSerializeSize(uint64(len(in.SignatureScript))) + len(in.SignatureScript)) * 4
	wit := wire.VarIntSerializeSize(uint64(len(in.Witness)))
	for _, item := range in.Witness {
		wit += wire.VarIntSerializeSize(uint64(len(item))) + len(item)
	}
	typ := coinselect.Legacy
	if len(in.Witness) > 0 {
		typ = coinselect.Bech32
	}
	return base + wit, typ
}

// maxSignedVSize is Core's CalculateMaximumSignedTxSize for inputs of the
// given weights and outputs.
func maxSignedVSize(weights []int, segwit bool, outs []*wire.TxOut) int {
	base := 4 + 4 + wire.VarIntSerializeSize(uint64(len(weights))) + wire.VarIntSerializeSize(uint64(len(outs)))
	for _, o := range outs {
		base += o.SerializeSize()
	}
	wt := base * 4
	if segwit {
		wt += 2
	}
	for _, x := range weights {
		wt += x
		if !segwit {
			wt--
		}
	}
	return (wt + 3) / 4
}

// createRateBump is Core's CreateRateBumpTransaction.
func createRateBump(ctx context.Context, d *Deps, w *wallet.Wallet, txid chainhash.Hash, o bumpOptions, requireMine bool) (*bumpPlan, error) {
	if len(o.outputs) > 0 && o.changeIndex != nil {
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "The options 'outputs' and 'original_change_index' are incompatible. "+
			"You can only either specify a new set of outputs, or designate a change output to be recycled.")
	}
	bc, ok := w.BumpCandidate(ctx, txid)
	if !ok {
		return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid or non-wallet transaction id")
	}
	orig := bc.Tx
	if o.changeIndex != nil && *o.changeIndex >= len(orig.TxOut) {
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "Change position is out of range")
	}
	// The coins the original spends: the wallet's, else the backend's.
	prevs := make([]*wire.TxOut, len(orig.TxIn))
	for i, in := range orig.TxIn {
		prev := bc.Prevs[i]
		if prev == nil && d.Chain != nil && d.Chain.Backend() != nil {
			if ptx, _, err := d.Chain.Backend().RawTransaction(ctx, in.PreviousOutPoint.Hash); err == nil &&
				ptx != nil && int(in.PreviousOutPoint.Index) < len(ptx.TxOut) {
				prev = ptx.TxOut[in.PreviousOutPoint.Index]
			}
		}
		if prev == nil || bc.InBlockSpent[i] {
			return nil, bumpError(rpc.CodeMisc, "%s:%d is already spent", in.PreviousOutPoint.Hash, in.PreviousOutPoint.Index)
		}
		prevs[i] = prev
	}
	if err := bumpPreconditions(ctx, d, w, txid, bc, requireMine); err != nil {
		return nil, err
	}
	var inValue, outValue int64
	for _, p := range prevs {
		inValue += p.Value
	}
	for _, out := range orig.TxOut {
		outValue += out.Value
	}
	oldFee := inValue - outValue

	// Recipients, keeping the original's change destination.
	txouts := orig.TxOut
	if len(o.outputs) > 0 {
		txouts = o.outputs
	}
	var recipients []coinselect.Recipient
	var changeScript []byte
	var newOutValue int64
	for i, out := range txouts {
		isChange := w.IsChange(out.PkScript)
		if o.changeIndex != nil {
			isChange = *o.changeIndex == i
		}
		if isChange {
			changeScript = out.PkScript
		} else {
			recipients = append(recipients, coinselect.Recipient{Value: out.Value, PkScript: out.PkScript})
		}
		newOutValue += out.Value
	}
	if len(recipients) == 0 {
		if changeScript == nil {
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Unable to create transaction. Transaction must have at least one recipient")
		}
		recipients = append(recipients, coinselect.Recipient{Value: newOutValue, PkScript: changeScript, SubtractFee: true})
		changeScript = nil
	}

	// Preset inputs: every input of the original.
	preset := make([]coinselect.Coin, len(orig.TxIn))
	weights := make([]int, len(orig.TxIn))
	segwit := false
	for i, in := range orig.TxIn {
		wgt, typ := inputWeightOf(w, prevs[i].PkScript, in)
		// Depth 0 as Core's FetchSelectedInputs sets it: an input of
		// an unconfirmed parent may owe the parent's bump fee.
		preset[i] = coinselect.Coin{OutPoint: in.PreviousOutPoint, Value: prevs[i].Value, PkScript: prevs[i].PkScript,
			Type: typ, InputWeight: wgt, Safe: true}
		weights[i] = wgt
		segwit = segwit || typ == coinselect.P2SHSegwit || typ == coinselect.Bech32 || typ == coinselect.Bech32m
	}

	opt := w.Options()
	src := feeSource(d)
	var rate int64
	if o.fee.FeeRate != nil {
		rate = *o.fee.FeeRate
	} else {
		vsize := int64(txVSize(orig))
		est := oldFee*1000/vsize + 1 + max(incrementalRelayFee(d), walletIncrementalRelayFee)
		min, _, err := opt.MinimumFeeRate(ctx, src, w.PayTxFee(), o.fee)
		if err != nil {
			return nil, MapError(err)
		}
		rate = max(est, min)
	}
	// The original's unconfirmed parents must reach the new rate without
	// the original (Core's bump fees with the original to be replaced).
	bumpFees := setBumpFees(ctx, d, w, coinselect.FeeRate(rate), []chainhash.Hash{txid}, preset, nil)
	if o.fee.FeeRate != nil {
		var bump int64
		if bumpFees != nil {
			ops := make([]wire.OutPoint, len(preset))
			for i, c := range preset {
				ops[i] = c.OutPoint
			}
			v, ok := bumpFees(ops)
			if !ok {
				return nil, rpc.NewError(rpc.CodeWalletError, "Failed to calculate bump fees, because unconfirmed UTXOs depend on an enormous cluster of unconfirmed transactions.")
			}
			bump = v
		}
		size := maxSignedVSize(weights, segwit, txouts)
		if err := checkBumpFeeRate(ctx, d, w, rate, size, oldFee, bump); err != nil {
			return nil, err
		}
	}

	// Further inputs: confirmed wallet coins only (BIP 125 rule 2).
	coins, err := w.SpendCoins(ctx, func(op wire.OutPoint, spk []byte) bool { return w.IsLockedCoin(op) })
	if err != nil {
		return nil, MapError(err)
	}
	presetOP := map[wire.OutPoint]bool{}
	for _, c := range preset {
		presetOP[c.OutPoint] = true
	}
	var avail []coinselect.Coin
	for _, c := range coins {
		if c.Depth >= 1 && !presetOP[c.OutPoint] {
			avail = append(avail, selectionCoin(c))
		}
	}
	var changeErr string
	if changeScript == nil {
		// A new change output takes Core's TransactionChangeType of the
		// recipients (CreateTransaction's), not -changetype alone.
		scripts := make([][]byte, len(recipients))
		for i, r := range recipients {
			scripts[i] = r.PkScript
		}
		t := string(w.ChangeOutputType(nil, scripts))
		if addr, err := w.NewAddressOfType(ctx, true, &t, nil); err != nil {
			changeErr = "Transaction needs a change address, but we can't generate it. " + MapError(err).Error()
		} else if changeScript, err = address.Decode(addr, d.Net); err != nil {
			return nil, MapError(err)
		}
	}
	changeSpend := 0
	if sc, ok := w.ScriptSpendSize(changeScript); ok {
		changeSpend = (coinselect.InputWeight(sc.SatWeight, sc.SatElems, sc.Segwit) + 3) / 4
	}
	copts := coinselect.DefaultOptions()
	copts.SpendZeroConfChange = opt.SpendZeroConfChange
	copts.AvoidPartialSpends = opt.AvoidPartialSpends
	copts.CombinedBumpFee = bumpFees
	discard := opt.DiscardFee
	if est, err := src.EstimateFee(ctx, maxConfTarget, false); err == nil && est > 0 {
		discard = min(discard, est)
	}
	discard = max(discard, dustRelayFee)
	f, err := coinselect.Fund(&coinselect.Request{
		Options: copts, Recipients: recipients, ChangeScript: changeScript, ChangeSpendSize: changeSpend,
		FeeRate: coinselect.FeeRate(rate), LongTermFeeRate: coinselect.FeeRate(opt.ConsolidateFeeRate),
		DiscardFeeRate: coinselect.FeeRate(discard), DustRelayFeeRate: dustRelayFee, MaxTxFee: opt.MaxTxFee,
		Available: avail, Preset: preset, AllowOtherInputs: true,
	})
	if err != nil {
		var ce *coinselect.Error
		if errors.As(err, &ce) {
			return nil, rpc.NewError(rpc.CodeWalletError, "Unable to create transaction. "+ce.Error())
		}
		return nil, MapError(err)
	}
	if f.Change > 0 && len(changeScript) == 0 {
		return nil, rpc.NewError(rpc.CodeWalletError, "Unable to create transaction. "+changeErr)
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	tx := wire.NewMsgTx(defaultWalletTxVersion)
	for i, r := range recipients {
		tx.AddTxOut(wire.NewTxOut(f.Amounts[i], r.PkScript))
	}
	if f.Change > 0 {
		pos := rng.IntN(len(tx.TxOut) + 1)
		tx.TxOut = append(tx.TxOut, nil)
		copy(tx.TxOut[pos+1:], tx.TxOut[pos:])
		tx.TxOut[pos] = wire.NewTxOut(f.Change, changeScript)
	}
	seq := uint32(maxNonFinalSequence)
	if o.fee.SignalRBF == nil || *o.fee.SignalRBF {
		seq = maxBIP125Sequence
	}
	ins := append([]coinselect.Coin(nil), f.Coins...)
	rng.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
	prevOf := map[wire.OutPoint]*wire.TxOut{}
	for i, in := range orig.TxIn {
		prevOf[in.PreviousOutPoint] = prevs[i]
	}
	var newPrevs []*wire.TxOut
	for _, c := range ins {
		in := wire.NewTxIn(&c.OutPoint, nil, nil)
		in.Sequence = seq
		tx.AddTxIn(in)
		p := prevOf[c.OutPoint]
		if p == nil {
			p = wire.NewTxOut(c.Value, c.PkScript)
		}
		newPrevs = append(newPrevs, p)
	}
	if h := w.TipHeight(ctx); h > 0 {
		lt := int64(h)
		if rng.IntN(10) == 0 {
			lt = max(0, lt-int64(rng.IntN(100)))
		}
		tx.LockTime = uint32(lt)
	}
	return &bumpPlan{tx: tx, oldFee: oldFee, newFee: f.Fee, prevs: newPrevs}, nil
}

// txVSize is a transaction's virtual size.
func txVSize(tx *wire.MsgTx) int { return (txWeight(tx) + 3) / 4 }

// checkBumpFeeRate is Core's CheckFeeRate for an explicit fee_rate; bump
// is the combined bump fee of the inputs' unconfirmed ancestors.
func checkBumpFeeRate(ctx context.Context, d *Deps, w *wallet.Wallet, rate int64, size int, oldFee, bump int64) error {
	minPool, err := feeSource(d).MempoolMinFee(ctx)
	if err != nil {
		return backendError(err)
	}
	if rate < minPool {
		return bumpError(rpc.CodeWalletError, "New fee rate (%s) is lower than the minimum fee rate (%s) to get into the mempool -- ",
			formatMoney(rate), formatMoney(minPool))
	}
	newTotal := coinselect.FeeRate(rate).Fee(size) + bump
	incremental := coinselect.FeeRate(incrementalRelayFee(d)).Fee(size)
	if minTotal := oldFee + incremental; newTotal < minTotal {
		return bumpError(rpc.CodeInvalidParameter, "Insufficient total fee %s, must be at least %s (oldFee %s + incrementalFee %s)",
			formatMoney(newTotal), formatMoney(minTotal), formatMoney(oldFee), formatMoney(incremental))
	}
	opt := w.Options()
	if required := coinselect.FeeRate(opt.RequiredFeeRate()).Fee(size); newTotal < required {
		return bumpError(rpc.CodeInvalidParameter, "Insufficient total fee (cannot be less than required fee %s)", formatMoney(required))
	}
	maxFee := opt.MaxTxFee
	if maxFee == 0 {
		maxFee = coinselect.DefaultMaxTxFee
	}
	if newTotal > maxFee {
		return bumpError(rpc.CodeWalletError, "Specified or calculated fee %s is too high (cannot be higher than -maxtxfee %s)",
			formatMoney(newTotal), formatMoney(maxFee))
	}
	return nil
}

// bumpResult is bumpfee's reply; psbtbumpfee's has psbt in place of txid.
type bumpResult struct {
	TxID    string     `json:"txid,omitempty"`
	PSBT    string     `json:"psbt,omitempty"`
	OrigFee rpc.Amount `json:"origfee"`
	Fee     rpc.Amount `json:"fee"`
	Errors  []string   `json:"errors"`
}

// newBumpFee returns bumpfee or psbtbumpfee.
func newBumpFee(d *Deps, wantPSBT bool) *rpc.Method {
	name, what := "bumpfee", "txid"
	desc := "Bumps the fee of a wallet transaction T, replacing it with a new transaction B that spends every input of T, " +
		"paying the additional fee by reducing change outputs or adding confirmed inputs, and may add a change output. " +
		"Fails when the wallet or the mempool holds a transaction spending one of T's outputs. The new fee rate is " +
		"estimated unless fee_rate (sat/vB) is given, and is at least T's rate plus the incremental relay fee."
	if wantPSBT {
		name, what = "psbtbumpfee", "psbt"
		desc = "Like bumpfee, but returns the unsigned replacement as a PSBT (filled with what the wallet knows) " +
			"instead of signing and relaying it; T's inputs need not all be the wallet's."
	}
	return &rpc.Method{
		Name:        name,
		Category:    walletCategory,
		Description: desc,
		Params: []rpc.Param{
			{Name: "txid", Type: rpc.TypeHex, Description: "The txid to be bumped"},
			{Name: "options", Type: rpc.TypeObject, Optional: true, Description: "conf_target, fee_rate (sat/vB), replaceable (default true), " +
				"estimate_mode, outputs (new outputs in createrawtransaction's form, replacing T's), original_change_index; " +
				"a named call may give these as top-level arguments",
				NamedOnly: []string{"conf_target", "fee_rate", "replaceable", "estimate_mode", "outputs", "original_change_index"}},
		},
		Result:   "{ \"" + what + "\", \"origfee\", \"fee\", \"errors\": [] }",
		Examples: []string{"<txid>"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if !wantPSBT && !w.PrivateKeysEnabled() {
				return nil, rpc.NewError(rpc.CodeWalletError,
					"bumpfee is not available with wallets that have private keys disabled. Use psbtbumpfee instead.")
			}
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			txid, err := parseTxID(s, "txid")
			if err != nil {
				return nil, err
			}
			o, err := readBumpOptions(d, req.Arg(1))
			if err != nil {
				return nil, err
			}
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			plan, err := createRateBump(ctx, d, w, txid, o, !wantPSBT)
			if err != nil {
				return nil, err
			}
			res := bumpResult{OrigFee: rpc.Amount(plan.oldFee), Fee: rpc.Amount(plan.newFee), Errors: []string{}}
			if wantPSBT {
				p, _, err := walletFillPSBT(ctx, w, plan.tx, false, true)
				if err != nil {
					return nil, err
				}
				res.PSBT = p.Base64()
				return res, nil
			}
			signed, err := signWithWallet(ctx, w, plan.tx)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeWalletError, "Can't sign transaction.")
			}
			// CommitTransaction checks the preconditions again.
			bc, ok := w.BumpCandidate(ctx, txid)
			if !ok {
				return nil, rpc.NewError(rpc.CodeWalletError, "Invalid or non-wallet transaction id")
			}
			if err := bumpPreconditions(ctx, d, w, txid, bc, false); err != nil {
				var re *rpc.Error
				if errors.As(err, &re) {
					return nil, rpc.NewError(rpc.CodeWalletError, re.Message)
				}
				return nil, err
			}
			// The original is marked replaced even when the client hangs
			// up once the replacement is committed.
			ctx, done := rpc.Unwatched(ctx)
			defer done()
			if err := commitTransaction(ctx, d, w, signed, wallet.TxComments{}); err != nil {
				return nil, err
			}
			newID := signed.TxHash()
			if err := w.MarkReplaced(ctx, txid, newID); err != nil {
				res.Errors = append(res.Errors, "Created new bumpfee transaction but could not mark the original transaction as replaced")
			}
			res.TxID = newID.String()
			return res, nil
		},
	}
}
