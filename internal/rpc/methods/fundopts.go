package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/wallet"
)

// This file reads the options object of fundrawtransaction,
// walletcreatefundedpsbt and send (Core's FundTransaction in
// wallet/rpc/spend.cpp) into a fundRequest, and funds a transaction the
// way Core's wallet FundTransaction does.

// fundOptionTypes are the option keys and their JSON types (Core's
// RPCTypeCheckObj table; "" accepts any type).
var fundOptionTypes = map[string]string{
	"add_inputs": "bool", "include_unsafe": "bool", "add_to_wallet": "bool",
	"changeAddress": "string", "change_address": "string",
	"changePosition": "number", "change_position": "number", "change_type": "string",
	"includeWatching": "bool", "include_watching": "bool", "inputs": "array",
	"lockUnspents": "bool", "lock_unspents": "bool", "locktime": "number",
	"fee_rate": "", "feeRate": "", "psbt": "bool", "solving_data": "object",
	"subtractFeeFromOutputs": "array", "subtract_fee_from_outputs": "array",
	"replaceable": "bool", "conf_target": "number", "estimate_mode": "string",
	"minconf": "number", "maxconf": "number", "input_weights": "array", "max_tx_weight": "number",
}

// fundOptionNames are fundOptionTypes' keys in Core's std::map order.
var fundOptionNames = func() []string {
	names := make([]string, 0, len(fundOptionTypes))
	for k := range fundOptionTypes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}()

// newFundOpts reads an options argument: an object (its members in
// order), or anything else, which funding ignores as Core does
// (fundrawtransaction's old boolean); isObj tells which.
func newFundOpts(raw json.RawMessage) (o *optionsObject, isObj bool, err error) {
	if rpc.JSONType(raw) != "object" {
		return &optionsObject{}, false, nil
	}
	m, err := orderedMembers(raw)
	if err != nil {
		return nil, false, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	return &optionsObject{members: m}, true, nil
}

// either is the value of the first of two names present (Core's
// options.exists(a) ? options[a] : options[b]).
func (o *optionsObject) either(a, b string) (json.RawMessage, bool) {
	if o.exists(a) {
		return o.get(a), true
	}
	if o.exists(b) {
		return o.get(b), true
	}
	return nil, false
}

// typeCheck is Core's RPCTypeCheckObj(options, table, allow null, strict).
func (o *optionsObject) typeCheck() error {
	for _, k := range fundOptionNames {
		want := fundOptionTypes[k]
		v := o.get(k)
		if want == "" || rpc.IsNull(v) {
			continue
		}
		if got := rpc.JSONType(v); got != want {
			return fieldTypeError(got, k, want)
		}
	}
	for _, m := range o.members {
		if _, ok := fundOptionTypes[m.Key]; !ok {
			return rpc.Errorf(rpc.CodeTypeError, "Unexpected key %s", m.Key)
		}
	}
	return nil
}

// readFundOptions is the option handling of Core's RPC-level
// FundTransaction, in its order, up to the wallet's funding.
// overrideMinFee is fundrawtransaction's and walletcreatefundedpsbt's
// fee_rate, which skips the minimum fee checks.
func readFundOptions(d *Deps, o *optionsObject, isObj bool, fr *fundRequest, overrideMinFee bool) error {
	if isObj {
		if err := o.typeCheck(); err != nil {
			return err
		}
		if o.exists("add_inputs") {
			b, err := rpc.AsBool(o.get("add_inputs"))
			if err != nil {
				return err
			}
			fr.allowOther = b
		}
		if v, ok := o.either("change_address", "changeAddress"); ok {
			s, err := rpc.AsString(v)
			if err != nil {
				return err
			}
			spk, err := address.Decode(s, d.Net)
			if err != nil {
				return rpc.NewError(rpc.CodeInvalidAddressOrKey, "Change address must be a valid bitcoin address")
			}
			fr.changeScript = spk
		}
		if v, ok := o.either("change_position", "changePosition"); ok {
			pos, err := rpc.AsInt(v)
			if err != nil {
				return err
			}
			if pos < 0 || pos > len(fr.recipients) {
				return rpc.NewError(rpc.CodeInvalidParameter, "changePosition out of bounds")
			}
			fr.changePos = &pos
		}
		if o.exists("change_type") {
			if o.exists("changeAddress") || o.exists("change_address") {
				return rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both change address and address type options")
			}
			s, err := rpc.AsString(o.get("change_type"))
			if err != nil {
				return err
			}
			t, ok := wallet.ParseOutputType(s)
			if !ok {
				return rpc.Errorf(rpc.CodeInvalidAddressOrKey, "Unknown change type '%s'", s)
			}
			fr.changeType = &t
		}
		if v, ok := o.either("lock_unspents", "lockUnspents"); ok {
			b, err := rpc.AsBool(v)
			if err != nil {
				return err
			}
			fr.lockUnspents = b
		}
		if o.exists("include_unsafe") {
			b, err := rpc.AsBool(o.get("include_unsafe"))
			if err != nil {
				return err
			}
			fr.includeUnsafe = b
		}
		if o.exists("feeRate") {
			if o.exists("fee_rate") {
				return rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both fee_rate (sat/vB) and feeRate (BTC/kvB)")
			}
			if o.exists("conf_target") {
				return rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both conf_target and feeRate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.")
			}
			if o.exists("estimate_mode") {
				return rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both estimate_mode and feeRate")
			}
			a, err := rpc.AsAmount(o.get("feeRate"))
			if err != nil {
				return err
			}
			rate := int64(a)
			fr.fee.FeeRate, fr.fee.Override = &rate, true
		}
		if o.exists("replaceable") {
			b, err := rpc.AsBool(o.get("replaceable"))
			if err != nil {
				return err
			}
			fr.fee.SignalRBF = &b
		}
		if o.exists("minconf") {
			n, err := rpc.AsInt(o.get("minconf"))
			if err != nil {
				return err
			}
			if n < 0 {
				return rpc.NewError(rpc.CodeInvalidParameter, "Negative minconf")
			}
			fr.minConf = n
		}
		if o.exists("maxconf") {
			n, err := rpc.AsInt(o.get("maxconf"))
			if err != nil {
				return err
			}
			if n < fr.minConf {
				return rpc.Errorf(rpc.CodeInvalidParameter, "maxconf can't be lower than minconf: %d < %d", n, fr.minConf)
			}
			fr.maxConf = n
		}
		est, err := feeArgs(o.get("conf_target"), o.get("estimate_mode"), o.get("fee_rate"), maxConfTarget)
		if err != nil {
			return err
		}
		if est.FeeRate != nil {
			fr.fee.FeeRate = est.FeeRate
			fr.fee.Override = overrideMinFee
			if fr.fee.SignalRBF == nil {
				t := true
				fr.fee.SignalRBF = &t
			}
		}
		if est.ConfTarget != nil {
			fr.fee.ConfTarget = est.ConfTarget
		}
		if !rpc.IsNull(o.get("estimate_mode")) && est.FeeRate == nil {
			fr.fee.Mode = est.Mode
		}
	}

	if o.exists("solving_data") {
		if err := readSolvingData(d, o.get("solving_data"), fr); err != nil {
			return err
		}
	}
	if o.exists("input_weights") {
		if err := readInputWeights(o.get("input_weights"), fr); err != nil {
			return err
		}
	}
	if o.exists("max_tx_weight") {
		n, err := rpc.AsInt(o.get("max_tx_weight"))
		if err != nil {
			return err
		}
		fr.maxTxWeight = n
		if n == 0 {
			// 0 is out of Core's range; keep it distinct from unset.
			fr.maxTxWeight = -1
		}
	}
	if len(fr.recipients) == 0 {
		return rpc.NewError(rpc.CodeInvalidParameter, "TX must have at least one output")
	}
	return nil
}

// arrayOf reads a JSON array (Core's get_array).
func arrayOf(raw json.RawMessage) ([]json.RawMessage, error) {
	if t := rpc.JSONType(raw); t != "array" {
		return nil, rpc.TypeError(t, "array")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, rpc.TypeError("null", "array")
	}
	return list, nil
}

// readSolvingData reads solving_data into a provider: public keys (with
// their P2WPKH script, so that P2SH-wrapped keys solve), scripts, and the
// keys and scripts of descriptors expanded at index 0.
func readSolvingData(d *Deps, raw json.RawMessage, fr *fundRequest) error {
	o, isObj, err := newFundOpts(raw)
	if err != nil {
		return err
	}
	if !isObj {
		return rpc.TypeError(rpc.JSONType(raw), "object")
	}
	p := descriptor.NewFlatProvider()
	if o.exists("pubkeys") {
		list, err := arrayOf(o.get("pubkeys"))
		if err != nil {
			return err
		}
		for _, e := range list {
			s, err := rpc.AsString(e)
			if err != nil {
				return err
			}
			pub, err := hexToPubKey(s)
			if err != nil {
				return err
			}
			p.AddPubKey(pub, nil)
			if len(pub) == 33 {
				h := script.Hash160(pub)
				p.AddScript(append([]byte{0x00, 0x14}, h[:]...))
			}
		}
	}
	if o.exists("scripts") {
		list, err := arrayOf(o.get("scripts"))
		if err != nil {
			return err
		}
		for _, e := range list {
			s, err := rpc.AsString(e)
			if err != nil {
				return err
			}
			b, herr := hex.DecodeString(s)
			if herr != nil || len(s) == 0 {
				return rpc.Errorf(rpc.CodeInvalidAddressOrKey, "'%s' is not hex", s)
			}
			p.AddScript(b)
		}
	}
	if o.exists("descriptors") {
		list, err := arrayOf(o.get("descriptors"))
		if err != nil {
			return err
		}
		for _, e := range list {
			s, err := rpc.AsString(e)
			if err != nil {
				return err
			}
			desc, perr := descriptor.Parse(s, d.Net, descriptor.RequireChecksum())
			if perr != nil {
				return rpc.Errorf(rpc.CodeInvalidParameter, "Unable to parse descriptor '%s': %s", s, perr.Error())
			}
			for _, branch := range desc.Multipath() {
				outs, err := branch.Expand(0, nil)
				if err != nil {
					continue
				}
				for _, out := range outs {
					p.AddOutput(out)
				}
			}
		}
	}
	fr.solving = p
	return nil
}

// readInputWeights reads input_weights (Core's SetInputWeight for each):
// an outpoint not among the inputs becomes a preset input of its own.
func readInputWeights(raw json.RawMessage, fr *fundRequest) error {
	list, err := arrayOf(raw)
	if err != nil {
		return err
	}
	for _, e := range list {
		members, err := objectOf(e)
		if err != nil {
			return err
		}
		op, err := outPointOf(members)
		if err != nil {
			return err
		}
		wv := firstValue(members, "weight")
		if rpc.JSONType(wv) != "number" {
			return rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, missing weight key")
		}
		weight, err := rpc.AsInt64(wv)
		if err != nil {
			return err
		}
		if weight < minInputWeight {
			return rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, weight cannot be less than 165 (41 bytes (size of outpoint + sequence + empty scriptSig) * 4 (witness scaling factor)) + 1 (empty witness)")
		}
		if weight > 400000 {
			return rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter, weight cannot be greater than the maximum standard tx weight of %d", 400000)
		}
		found := false
		for i := range fr.preset {
			if fr.preset[i].op == op {
				fr.preset[i].weight, found = int(weight), true
			}
		}
		if !found {
			fr.preset = append(fr.preset, presetInput{op: op, weight: int(weight)})
		}
	}
	return nil
}

// objectOf reads a JSON object's members (Core's get_obj).
func objectOf(raw json.RawMessage) ([]jsonMember, error) {
	if t := rpc.JSONType(raw); t != "object" {
		return nil, rpc.TypeError(t, "object")
	}
	return orderedMembers(raw)
}

// outPointOf reads txid and vout of an input object (Core's ParseHashO and
// the vout checks).
func outPointOf(members []jsonMember) (wire.OutPoint, error) {
	var op wire.OutPoint
	tv := firstValue(members, "txid")
	s, err := rpc.AsString(tv)
	if err != nil {
		return op, err
	}
	h, err := parseHash(s, "txid")
	if err != nil {
		return op, err
	}
	vv := firstValue(members, "vout")
	if rpc.JSONType(vv) != "number" {
		return op, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, missing vout key")
	}
	vout, err := rpc.AsInt(vv)
	if err != nil {
		return op, err
	}
	if vout < 0 {
		return op, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, vout cannot be negative")
	}
	return wire.OutPoint{Hash: h, Index: uint32(vout)}, nil
}

// fundTransaction is the wallet's FundTransaction: the transaction's
// inputs become preset inputs (an input the wallet does not own must be in
// the UTXO set), its locktime and version are kept, then the wallet funds
// it. Failures answer RPC_WALLET_ERROR with Core's message.
func fundTransaction(ctx context.Context, d *Deps, w *wallet.Wallet, tx *wire.MsgTx, fr *fundRequest) (*builtTx, error) {
	lt := tx.LockTime
	fr.locktime = &lt
	fr.version = tx.Version
	weights := fr.preset
	fr.preset = nil
	for _, in := range tx.TxIn {
		p := presetInput{op: in.PreviousOutPoint, scriptSig: in.SignatureScript, witness: in.Witness}
		seq := in.Sequence
		p.sequence = &seq
		for _, wi := range weights {
			if wi.op == p.op {
				p.weight = wi.weight
			}
		}
		if _, mine := w.OwnOutput(ctx, p.op); !mine {
			out := utxoOf(ctx, d, p.op)
			if out == nil {
				return nil, rpc.NewError(rpc.CodeWalletError, "Unable to find UTXO for external input")
			}
			p.out = out
		}
		fr.preset = append(fr.preset, p)
	}
	for _, wi := range weights {
		in := false
		for _, p := range fr.preset {
			in = in || p.op == wi.op
		}
		if !in {
			fr.preset = append(fr.preset, wi)
		}
	}
	bt, err := createTransaction(ctx, d, w, fr)
	if err != nil {
		return nil, fundErrorCode(err, rpc.CodeWalletError)
	}
	return bt, nil
}

// utxoOf is an unspent output of the chain (Core's findCoins, mempool
// included), nil when the backend does not have it or there is none.
func utxoOf(ctx context.Context, d *Deps, op wire.OutPoint) *wire.TxOut {
	if d.Chain == nil || d.Chain.Backend() == nil {
		return nil
	}
	out, err := d.Chain.Backend().TxOut(ctx, op, true)
	if err != nil || out == nil {
		return nil
	}
	return &wire.TxOut{Value: out.Value, PkScript: out.PkScript}
}
