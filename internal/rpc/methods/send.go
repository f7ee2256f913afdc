package methods

import (
	"context"
	"encoding/json"
	"math/rand/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// sendResult is the reply of send: psbt when one is returned, txid when
// complete, hex when complete and not added to the wallet, complete.
type sendResult struct {
	PSBT     string `json:"psbt,omitempty"`
	TxID     string `json:"txid,omitempty"`
	Hex      string `json:"hex,omitempty"`
	Complete bool   `json:"complete"`
}

// interpretFeeArgs is Core's InterpretFeeEstimationInstructions: the fee
// arguments of send go into its options, given once.
func interpretFeeArgs(req *rpc.Request, o *fundOpts, confIdx, modeIdx, rateIdx int) error {
	if o.has("conf_target") || o.has("estimate_mode") {
		if req.Has(confIdx) || req.Has(modeIdx) {
			return rpc.NewError(rpc.CodeInvalidParameter, "Pass conf_target and estimate_mode either as arguments or in the options object, but not both")
		}
	} else {
		o.add("conf_target", nullOr(req.Arg(confIdx)))
		o.add("estimate_mode", nullOr(req.Arg(modeIdx)))
	}
	if o.has("fee_rate") {
		if req.Has(rateIdx) {
			return rpc.NewError(rpc.CodeInvalidParameter, "Pass the fee_rate either as an argument, or in the options object, but not both")
		}
	} else {
		o.add("fee_rate", nullOr(req.Arg(rateIdx)))
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

// nullOr is raw, or JSON null when absent.
func nullOr(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// preventOutdatedOptions is Core's PreventOutdatedOptions.
func preventOutdatedOptions(o *fundOpts) error {
	for _, r := range [][2]string{
		{"feeRate", "Use fee_rate (sat/vB) instead of feeRate"},
		{"changeAddress", "Use change_address instead of changeAddress"},
		{"changePosition", "Use change_position instead of changePosition"},
		{"lockUnspents", "Use lock_unspents instead of lockUnspents"},
		{"subtractFeeFromOutputs", "Use subtract_fee_from_outputs instead of subtractFeeFromOutputs"},
	} {
		if o.has(r[0]) {
			return rpc.NewError(rpc.CodeInvalidParameter, r[1])
		}
	}
	return nil
}

// optionBool reads a bool option, def when absent (Core's get_bool).
func optionBool(o *fundOpts, key string, def bool) (bool, error) {
	v := o.get(key)
	if rpc.IsNull(v) {
		if o.has(key) {
			return false, rpc.TypeError("null", "bool")
		}
		return def, nil
	}
	return rpc.AsBool(v)
}

// newSend returns the send method.
func newSend(d *Deps) *rpc.Method {
	fields := []rpc.Param{
		{Name: "add_inputs", Type: rpc.TypeBool, Optional: true, Default: "false when \"inputs\" are specified, true otherwise", Description: "Automatically include coins from the wallet to cover the target amount."},
		{Name: "include_unsafe", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Include inputs that are not safe to spend (unconfirmed transactions from outside keys and unconfirmed replacement transactions)."},
		{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "If add_inputs is specified, require inputs with at least this many confirmations."},
		{Name: "maxconf", Type: rpc.TypeNumber, Optional: true, Description: "If add_inputs is specified, require inputs with at most this many confirmations."},
		{Name: "add_to_wallet", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "When false, returns a serialized transaction which will not be added to the wallet or broadcast"},
		{Name: "change_address", Type: rpc.TypeString, Optional: true, Default: "automatic", Description: "The bitcoin address to receive the change"},
		{Name: "change_position", Type: rpc.TypeNumber, Optional: true, Default: "random", Description: "The index of the change output"},
		{Name: "change_type", Type: rpc.TypeString, Optional: true, Default: "set by -changetype", Description: "The output type to use. Only valid if change_address is not specified."},
		{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, fall back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
		{Name: "include_watching", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "(DEPRECATED) No longer used"},
		{Name: "inputs", Type: rpc.TypeArray, Optional: true, Default: "[]", Fields: fundInputFields, Description: "Specify inputs instead of adding them automatically."},
		{Name: "locktime", Type: rpc.TypeNumber, Optional: true, Default: "locktime close to block height to prevent fee sniping", Description: "Raw locktime. Non-0 value also locktime-activates inputs"},
		{Name: "lock_unspents", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Lock selected unspent outputs"},
		{Name: "psbt", Type: rpc.TypeBool, Optional: true, Default: "automatic", Description: "Always return a PSBT, implies add_to_wallet=false."},
		{Name: "subtract_fee_from_outputs", Type: rpc.TypeArray, Optional: true, Default: "[]", Description: "Outputs to subtract the fee from, specified as integer indices."},
		maxTxWeightField,
	}
	fields = append(fields, fundTxFields()...)
	return &rpc.Method{
		Name:        "send",
		Category:    walletCategory,
		Description: "EXPERIMENTAL warning: this call may be changed in future releases.\n\nSend a transaction.",
		Params: []rpc.Param{
			{Name: "outputs", Type: rpc.TypeArray, SkipTypeCheck: true, Description: "The outputs specified as key-value pairs: [{\"address\": amount}, {\"data\": \"hex\"}, ...]; one object holding them all is accepted as well."},
			{Name: "conf_target", Type: rpc.TypeNumber, Optional: true, Default: "wallet -txconfirmtarget", Description: "Confirmation target in blocks"},
			{Name: "estimate_mode", Type: rpc.TypeString, Optional: true, Default: `"unset"`, Description: "The fee estimate mode: unset, economical, conservative"},
			{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, fall back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
			{Name: "options", Type: rpc.TypeObject, Optional: true, NamedOnly: paramNames(fields), Fields: fields, Description: "Funding and sending options"},
			{Name: "version", Type: rpc.TypeNumber, Optional: true, Default: "2", Description: "Transaction version"},
		},
		Result: "{\n  \"complete\" : true|false,   (boolean) If the transaction has a complete set of signatures\n" +
			"  \"txid\" : \"hex\",            (string, optional) The transaction id for the send.\n" +
			"  \"hex\" : \"hex\",             (string, optional) If add_to_wallet is false, the hex-encoded raw transaction with signature(s)\n" +
			"  \"psbt\" : \"str\"             (string, optional) If more signatures are needed, or if add_to_wallet is false, the base64-encoded (partially) signed transaction\n}",
		Examples: []string{`'{"bcrt1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl": 0.1}' 6 economical`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			o, err := newFundOpts(req.Arg(4))
			if err != nil {
				return nil, err
			}
			o.isObj = true
			if err := interpretFeeArgs(req, o, 1, 2, 3); err != nil {
				return nil, err
			}
			if err := preventOutdatedOptions(o); err != nil {
				return nil, err
			}
			rbf, err := replaceableOption(w, o)
			if err != nil {
				return nil, err
			}
			fr := newFundRequest(w)
			if fr.recipients, err = recipientsWithSFFO(d, req.Arg(0), o.get("subtract_fee_from_outputs")); err != nil {
				return nil, err
			}
			version, err := txVersionArg(req, 5)
			if err != nil {
				return nil, err
			}
			tx, err := constructTransaction(d.Net, o.get("inputs"), req.Arg(0), o.get("locktime"), &rbf, version)
			if err != nil {
				return nil, err
			}
			fr.allowOther = len(tx.TxIn) == 0
			if err := setOptionsInputWeights(o.get("inputs"), o); err != nil {
				return nil, err
			}
			if err := readFundOptions(d, o, fr, false); err != nil {
				return nil, err
			}
			bt, err := fundTransaction(ctx, d, w, tx, fr)
			if err != nil {
				return nil, err
			}
			return finishTransaction(ctx, d, w, o, bt)
		},
	}
}

// finishTransaction is Core's FinishTransaction for send: the
// anti-fee-sniping locktime unless a locktime or a sequence of another
// kind was given, the wallet's data and signatures, then either the
// transaction committed (recorded and relayed) or returned.
func finishTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, o *fundOpts, bt *builtTx) (any, error) {
	tx := bt.tx
	antiSnipe := !o.has("locktime")
	for _, in := range tx.TxIn {
		antiSnipe = antiSnipe && (in.Sequence == seqMaxNonFinal || in.Sequence == seqMaxBIP125)
	}
	if antiSnipe {
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		discourageFeeSniping(ctx, d, w, tx, rng)
	}
	psbtOptIn, err := optionBool(o, "psbt", false)
	if err != nil {
		return nil, err
	}
	addToWallet, err := optionBool(o, "add_to_wallet", true)
	if err != nil {
		return nil, err
	}
	p := psbt.New(tx)
	if err := fillWalletPSBT(ctx, w, p, nil, true, true, true); err != nil {
		return nil, err
	}
	res := &sendResult{Complete: true}
	for i := range p.Inputs {
		res.Complete = res.Complete && p.Inputs[i].IsFinalized()
	}
	if psbtOptIn || !res.Complete || !addToWallet {
		res.PSBT = p.Base64()
	}
	if res.Complete {
		signed := tx.Copy()
		for i := range p.Inputs {
			signed.TxIn[i].SignatureScript = p.Inputs[i].FinalScriptSig
			signed.TxIn[i].Witness = p.Inputs[i].FinalScriptWitness
		}
		res.TxID = signed.TxHash().String()
		if addToWallet && !psbtOptIn {
			if err := commitTransaction(ctx, d, w, signed); err != nil {
				return nil, err
			}
		} else {
			res.Hex = encodeTxHex(signed)
		}
	}
	return res, nil
}
