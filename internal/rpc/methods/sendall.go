package methods

import (
	"context"
	"encoding/json"
	"math/rand/v2"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// This file holds sendall (Core v30's sendall in src/wallet/rpc/spend.cpp)
// and the pieces of Core's send family it uses: the fee instructions that
// may come as arguments or in the options object, the outdated option
// names, and FinishTransaction.

// defaultWalletTxVersion is Core's DEFAULT_WALLET_TX_VERSION.
const defaultWalletTxVersion = 2

// optionsObject is a call's options object with UniValue's lookups: the
// first member of a key, and whether a key is present at all.
type optionsObject struct{ members []jsonMember }

func readOptionsObject(raw json.RawMessage) (*optionsObject, error) {
	if rpc.IsNull(raw) {
		return &optionsObject{}, nil
	}
	if t := rpc.JSONType(raw); t != "object" {
		return nil, rpc.TypeError(t, "object")
	}
	m, err := orderedMembers(raw)
	if err != nil {
		return nil, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	return &optionsObject{members: m}, nil
}

func (o *optionsObject) get(k string) json.RawMessage { return firstValue(o.members, k) }

func (o *optionsObject) exists(k string) bool {
	for _, m := range o.members {
		if m.Key == k {
			return true
		}
	}
	return false
}

func (o *optionsObject) set(k string, v json.RawMessage) {
	if v == nil {
		v = json.RawMessage("null")
	}
	o.members = append(o.members, jsonMember{Key: k, Value: v})
}

// interpretFeeInstructions is Core's InterpretFeeEstimationInstructions:
// conf_target, estimate_mode and fee_rate come either as arguments or in
// the options object, and a conf_target needs an estimate_mode.
func interpretFeeInstructions(confTarget, estimateMode, feeRate json.RawMessage, o *optionsObject) error {
	if o.exists("conf_target") || o.exists("estimate_mode") {
		if !rpc.IsNull(confTarget) || !rpc.IsNull(estimateMode) {
			return rpc.NewError(rpc.CodeInvalidParameter,
				"Pass conf_target and estimate_mode either as arguments or in the options object, but not both")
		}
	} else {
		o.set("conf_target", confTarget)
		o.set("estimate_mode", estimateMode)
	}
	if o.exists("fee_rate") {
		if !rpc.IsNull(feeRate) {
			return rpc.NewError(rpc.CodeInvalidParameter,
				"Pass the fee_rate either as an argument, or in the options object, but not both")
		}
	} else {
		o.set("fee_rate", feeRate)
	}
	if !rpc.IsNull(o.get("conf_target")) {
		mode := o.get("estimate_mode")
		if rpc.IsNull(mode) {
			return rpc.NewError(rpc.CodeInvalidParameter, "Specify estimate_mode")
		}
		s, err := rpc.AsString(mode)
		if err != nil {
			return err
		}
		if s == "unset" {
			return rpc.NewError(rpc.CodeInvalidParameter, "Specify estimate_mode")
		}
	}
	return nil
}

// preventOutdatedOptions is Core's PreventOutdatedOptions.
func preventOutdatedOptions(o *optionsObject) error {
	for _, p := range [][2]string{
		{"feeRate", "Use fee_rate (sat/vB) instead of feeRate"},
		{"changeAddress", "Use change_address instead of changeAddress"},
		{"changePosition", "Use change_position instead of changePosition"},
		{"lockUnspents", "Use lock_unspents instead of lockUnspents"},
		{"subtractFeeFromOutputs", "Use subtract_fee_from_outputs instead of subtractFeeFromOutputs"},
	} {
		if o.exists(p[0]) {
			return rpc.NewError(rpc.CodeInvalidParameter, p[1])
		}
	}
	return nil
}

// optBoolOption reads a boolean option, def when absent or null.
func (o *optionsObject) boolOr(k string, def bool) (bool, error) {
	v := o.get(k)
	if rpc.IsNull(v) {
		return def, nil
	}
	return rpc.AsBool(v)
}

// walletFillPSBT is Core's FillPSBT over a new PSBT of tx, through
// walletprocesspsbt's fillWalletPSBT: each input's previous transaction
// when the wallet holds it, the scripts, public keys, taproot data and
// (with bip32derivs) key origins the wallet's descriptors know for the
// inputs and outputs, signatures with the wallet's keys when signing (every
// one verified by the signer), and finalization of the complete inputs.
// As in Core, a locked wallet (or one without private keys) signs nothing:
// the PSBT comes back incomplete rather than as an error. complete tells
// whether every input is finalized.
func walletFillPSBT(ctx context.Context, w *wallet.Wallet, tx *wire.MsgTx, signing, bip32derivs bool) (*psbt.Packet, bool, error) {
	p := psbt.New(tx)
	signing = signing && w.PrivateKeysEnabled() && !w.IsLocked()
	if err := fillWalletPSBT(ctx, w, p, nil, signing, bip32derivs, true); err != nil {
		return nil, false, err
	}
	complete := true
	for i := range p.Inputs {
		complete = complete && p.Inputs[i].IsFinalized()
	}
	return p, complete, nil
}

// sendResult is the reply of sendall (and send): psbt, txid, hex,
// complete, each when Core writes it.
type sendResult struct {
	PSBT     string `json:"psbt,omitempty"`
	TxID     string `json:"txid,omitempty"`
	Hex      string `json:"hex,omitempty"`
	Complete bool   `json:"complete"`
}

// finishTransaction is Core's FinishTransaction: anti-fee-sniping
// locktime when no locktime was given and every sequence allows it, the
// wallet's data and signatures, then the transaction committed and relayed
// (add_to_wallet, the default) or returned (hex, and the PSBT when asked
// for, incomplete, or not added).
func finishTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, o *optionsObject, tx *wire.MsgTx) (*sendResult, error) {
	snipe := !o.exists("locktime")
	for _, in := range tx.TxIn {
		snipe = snipe && (in.Sequence == maxNonFinalSequence || in.Sequence == maxBIP125Sequence)
	}
	if snipe {
		discourageFeeSniping(ctx, d, w, tx, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	}
	// Core fills the PSBT with key origins first, then signs (without
	// them, which keeps those already written): one pass with both does
	// the same.
	p, complete, err := walletFillPSBT(ctx, w, tx, true, true)
	if err != nil {
		return nil, err
	}
	psbtOptIn, err := o.boolOr("psbt", false)
	if err != nil {
		return nil, err
	}
	addToWallet, err := o.boolOr("add_to_wallet", true)
	if err != nil {
		return nil, err
	}
	res := &sendResult{Complete: complete}
	if psbtOptIn || !complete || !addToWallet {
		res.PSBT = p.Base64()
	}
	if complete {
		final := tx.Copy()
		for i := range p.Inputs {
			final.TxIn[i].SignatureScript = p.Inputs[i].FinalScriptSig
			final.TxIn[i].Witness = p.Inputs[i].FinalScriptWitness
		}
		res.TxID = final.TxHash().String()
		if addToWallet && !psbtOptIn {
			if err := commitTransaction(ctx, d, w, final, wallet.TxComments{}); err != nil {
				return nil, err
			}
		} else {
			res.Hex = encodeTxHex(final)
		}
	}
	return res, nil
}

// newSendAll returns the sendall method.
func newSendAll(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "sendall",
		Category: walletCategory,
		Description: "EXPERIMENTAL warning: this call may be changed in future releases.\n" +
			"Spends the value of all (or specific) confirmed UTXOs and unconfirmed change in the wallet to one or more recipients.\n" +
			"Unconfirmed inbound UTXOs and locked UTXOs are not spent. With send_max, only UTXOs worth more than the fee to spend them.",
		Params: []rpc.Param{
			{Name: "recipients", Type: rpc.TypeArray, Description: "Addresses that share the value left after the fee and the " +
				"amounts given; {\"address\": amount} elements pay fixed amounts. At least one address without an amount; each address once."},
			{Name: "conf_target", Type: rpc.TypeNumber, Optional: true, Default: "wallet -txconfirmtarget", Description: "Confirmation target in blocks"},
			{Name: "estimate_mode", Type: rpc.TypeString, Optional: true, Default: `"unset"`, Description: "The fee estimate mode: unset, economical, conservative"},
			{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, fall back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
			{Name: "options", Type: rpc.TypeObject, Optional: true, Description: "add_to_wallet (default true), fee_rate, include_watching " +
				"(no longer used), inputs ([{txid, vout, sequence}], exclusive with send_max, minconf and maxconf), locktime, lock_unspents, " +
				"psbt, send_max, minconf (default 0), maxconf, version (default 2), replaceable, conf_target, estimate_mode; " +
				"a named call may give these as top-level arguments",
				NamedOnly: []string{"add_to_wallet", "fee_rate", "include_watching", "inputs", "locktime", "lock_unspents", "psbt",
					"send_max", "minconf", "maxconf", "version", "conf_target", "estimate_mode", "replaceable", "solving_data"}},
		},
		Result:   "{ \"psbt\" (when not added to the wallet or incomplete), \"txid\", \"hex\" (when not added), \"complete\" }",
		Examples: []string{`'["bcrt1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl"]' null "unset" 1.1`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			return sendAll(ctx, d, w, req)
		},
	}
}

// sendAll is sendall's body, Core's checks in Core's order.
func sendAll(ctx context.Context, d *Deps, w *wallet.Wallet, req *rpc.Request) (any, error) {
	o, err := readOptionsObject(req.Arg(4))
	if err != nil {
		return nil, err
	}
	if err := interpretFeeInstructions(req.Arg(1), req.Arg(2), req.Arg(3), o); err != nil {
		return nil, err
	}
	if err := preventOutdatedOptions(o); err != nil {
		return nil, err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(req.Arg(0), &elems); err != nil {
		return nil, rpc.TypeError(rpc.JSONType(req.Arg(0)), "array")
	}
	withoutAmount := map[string]bool{}
	pairs := make([]json.RawMessage, 0, len(elems))
	for _, e := range elems {
		if rpc.JSONType(e) == "string" {
			s, _ := rpc.AsString(e)
			k, _ := json.Marshal(s)
			pairs = append(pairs, json.RawMessage("{"+string(k)+":0}"))
			withoutAmount[s] = true
		} else {
			pairs = append(pairs, e)
		}
	}
	if len(withoutAmount) == 0 {
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "Must provide at least one address without a specified amount")
	}
	fee, err := feeArgs(o.get("conf_target"), o.get("estimate_mode"), o.get("fee_rate"), maxConfTarget)
	if err != nil {
		return nil, err
	}
	minConf, maxConf := int64(0), int64(9999999)
	if o.exists("minconf") {
		n, err := rpc.AsInt64(o.get("minconf"))
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid minconf (minconf cannot be negative): %d", n)
		}
		minConf = n
	}
	if o.exists("maxconf") {
		n, err := rpc.AsInt64(o.get("maxconf"))
		if err != nil {
			return nil, err
		}
		maxConf = n
		if maxConf < minConf {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "maxconf can't be lower than minconf: %d < %d", maxConf, minConf)
		}
	}
	version := int64(defaultWalletTxVersion)
	if o.exists("version") {
		if version, err = rpc.AsInt64(o.get("version")); err != nil {
			return nil, err
		}
	}
	maxWeight := coinselect.MaxStandardTxWeight
	if version == 3 {
		maxWeight = 10000 * 4 // Core's TRUC_MAX_WEIGHT
	}
	opt := w.Options()
	rbf := opt.WalletRBF
	if o.exists("replaceable") {
		if rbf, err = rpc.AsBool(o.get("replaceable")); err != nil {
			return nil, err
		}
	}
	rate, reason, err := opt.MinimumFeeRate(ctx, feeSource(d), w.PayTxFee(), fee)
	if err != nil {
		return nil, MapError(err)
	}
	if fee.FeeRate != nil && rate > *fee.FeeRate {
		return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Fee rate (%s) is lower than the minimum fee rate setting (%s)",
			wallet.FormatSatVB(*fee.FeeRate), wallet.FormatSatVB(rate))
	}
	if reason == wallet.FeeReasonFallback && !opt.AllowFallbackFee() {
		return nil, rpc.NewError(rpc.CodeWalletError, "Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.")
	}
	outputs, _ := json.Marshal(pairs)
	v := uint32(0xffffffff)
	if version >= 0 && version <= 0xffffffff {
		v = uint32(version)
	}
	tx, err := constructTransaction(d.Net, o.get("inputs"), outputs, o.get("locktime"), &rbf, v)
	if err != nil {
		return nil, err
	}

	var total int64
	sendMax, err := o.boolOr("send_max", false)
	if err != nil {
		return nil, err
	}
	switch {
	case o.exists("inputs") && o.exists("send_max"):
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "Cannot combine send_max with specific inputs.")
	case o.exists("inputs") && (o.exists("minconf") || o.exists("maxconf")):
		return nil, rpc.NewError(rpc.CodeInvalidParameter, "Cannot combine minconf or maxconf with specific inputs.")
	case o.exists("inputs"):
		for _, in := range tx.TxIn {
			op := in.PreviousOutPoint
			st := w.Output(ctx, op)
			if st.Spent {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Input not available. UTXO (%s:%d) was already spent.", op.Hash, op.Index)
			}
			if st.Out == nil || !st.Mine {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Input not found. UTXO (%s:%d) is not part of wallet.", op.Hash, op.Index)
			}
			if st.Depth == 0 {
				if st.Version == 3 && version != 3 {
					return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Can't spend unconfirmed version 3 pre-selected input with a version %d tx", version)
				}
				if version == 3 && st.Version != 3 {
					return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Can't spend unconfirmed version %d pre-selected input with a version 3 tx", st.Version)
				}
			}
			total += st.Out.Value
		}
	default:
		coins, err := w.SpendCoins(ctx, func(op wire.OutPoint, _ []byte) bool { return w.IsLockedCoin(op) })
		if err != nil {
			return nil, MapError(err)
		}
		seq := uint32(0xffffffff)
		if rbf {
			seq = maxBIP125Sequence
		}
		for _, c := range coins {
			if !c.Safe || c.Depth < minConf || c.Depth > maxConf {
				continue
			}
			if sendMax {
				sc := selectionCoin(c)
				if sc.InputWeight > 0 && coinselect.FeeRate(rate).Fee((sc.InputWeight+3)/4) > c.Value {
					continue
				}
			}
			if c.Depth == 0 && version == 3 {
				maxWeight = coinselect.TRUCChildMaxWeight
			}
			op := c.OutPoint
			in := wire.NewTxIn(&op, nil, nil)
			in.Sequence = seq
			tx.AddTxIn(in)
			total += c.Value
		}
	}

	// The signed size, from each input's descriptor.
	weights := make([]int, len(tx.TxIn))
	segwit := false
	for i, in := range tx.TxIn {
		st := w.Output(ctx, in.PreviousOutPoint)
		if st.Out == nil {
			return nil, rpc.NewError(rpc.CodeWalletError, "Unable to determine the size of the transaction, the wallet contains unsolvable descriptors")
		}
		sc, ok := w.ScriptSpendSize(st.Out.PkScript)
		if !ok {
			return nil, rpc.NewError(rpc.CodeWalletError, "Unable to determine the size of the transaction, the wallet contains unsolvable descriptors")
		}
		weights[i] = coinselect.InputWeight(sc.SatWeight, sc.SatElems, sc.Segwit)
		segwit = segwit || sc.Segwit
	}
	vsize := maxSignedVSize(weights, segwit, tx.TxOut)
	feeFromSize := coinselect.FeeRate(rate).Fee(vsize)
	// The unconfirmed inputs' ancestors are brought up to the rate
	// together (Core's calculateCombinedBumpFee; 0 when it cannot tell).
	var bumpFees int64
	var unconfirmed []wire.OutPoint
	for _, in := range tx.TxIn {
		if w.Output(ctx, in.PreviousOutPoint).Depth == 0 {
			unconfirmed = append(unconfirmed, in.PreviousOutPoint)
		}
	}
	if len(unconfirmed) > 0 {
		if pool := bumpPool(ctx, d); pool != nil {
			if v, ok := coinselect.CombinedBumpFee(pool, unconfirmed, coinselect.FeeRate(rate), nil); ok {
				bumpFees = v
			}
		}
	}
	effective := total - feeFromSize - bumpFees
	maxFee := opt.MaxTxFee
	if maxFee == 0 {
		maxFee = coinselect.DefaultMaxTxFee
	}
	if feeFromSize > maxFee {
		return nil, rpc.NewError(rpc.CodeWalletError, "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)")
	}
	if effective <= 0 {
		if sendMax {
			return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Total value of UTXO pool too low to pay for transaction, try using lower feerate.")
		}
		return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds,
			"Total value of UTXO pool too low to pay for transaction. Try using lower feerate or excluding uneconomic UTXOs with 'send_max' option.")
	}
	if weight := vsize * 4; weight > maxWeight {
		return nil, rpc.NewError(rpc.CodeWalletError, "Transaction too large.")
	}
	var claimed int64
	for _, out := range tx.TxOut {
		claimed += out.Value
	}
	if claimed > total {
		return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Assigned more value to outputs than available funds.")
	}
	remainder := effective - claimed
	if remainder < 0 {
		return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Insufficient funds for fees after creating specified outputs.")
	}
	// Each address without an amount gets an equal share, the first
	// the rest of the division too. Outputs are matched by their
	// address as Core encodes it.
	per := remainder / int64(len(withoutAmount))
	first := true
	for _, out := range tx.TxOut {
		addr, _ := address.Encode(out.PkScript, d.Net)
		if withoutAmount[addr] {
			out.Value = per
			if first {
				out.Value += remainder % int64(len(withoutAmount))
				first = false
			}
			if out.Value < coinselect.DustThreshold(out.PkScript, dustRelayFee) {
				return nil, rpc.NewError(rpc.CodeWalletInsufficientFunds, "Dynamically assigned remainder results in dust output.")
			}
		} else if out.Value < coinselect.DustThreshold(out.PkScript, dustRelayFee) {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Specified output amount to %s is below dust threshold.", addr)
		}
	}
	lock, err := o.boolOr("lock_unspents", false)
	if err != nil {
		return nil, err
	}
	if lock {
		ops := make([]wire.OutPoint, len(tx.TxIn))
		for i, in := range tx.TxIn {
			ops[i] = in.PreviousOutPoint
		}
		if err := w.LockCoins(ctx, false, false, ops); err != nil {
			return nil, MapError(err)
		}
	}
	return finishTransaction(ctx, d, w, o, tx)
}
