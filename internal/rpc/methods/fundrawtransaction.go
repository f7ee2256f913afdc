package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

// fundTxFields are the option fields the funding calls share after their
// own (Core's FundTxDoc), for help and for named arguments.
func fundTxFields() []rpc.Param {
	return []rpc.Param{
		{Name: "conf_target", Type: rpc.TypeNumber, Optional: true, Default: "wallet -txconfirmtarget", Description: "Confirmation target in blocks"},
		{Name: "estimate_mode", Type: rpc.TypeString, Optional: true, Default: `"unset"`, Description: "The fee estimate mode: unset, economical, conservative"},
		{Name: "replaceable", Type: rpc.TypeBool, Optional: true, Default: "wallet default", Description: "Marks this transaction as BIP125-replaceable."},
		{Name: "solving_data", Type: rpc.TypeObject, Optional: true, Description: "Keys and scripts needed for producing a final transaction with a dummy signature: {\"pubkeys\": [...], \"scripts\": [...], \"descriptors\": [...]}"},
	}
}

// fundOptionFields are fundrawtransaction's and walletcreatefundedpsbt's
// option fields in Core's order: the call's own add_inputs, the fields both
// share, the call's own subtractFeeFromOutputs, extra, then fundTxFields.
func fundOptionFields(addInputs, subtractFee rpc.Param, extra ...rpc.Param) []rpc.Param {
	fields := []rpc.Param{
		addInputs,
		{Name: "include_unsafe", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Include inputs that are not safe to spend (unconfirmed transactions from outside keys and unconfirmed replacement transactions)."},
		{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "If add_inputs is specified, require inputs with at least this many confirmations."},
		{Name: "maxconf", Type: rpc.TypeNumber, Optional: true, Description: "If add_inputs is specified, require inputs with at most this many confirmations."},
		{Name: "changeAddress", Type: rpc.TypeString, Optional: true, Default: "automatic", Description: "The bitcoin address to receive the change"},
		{Name: "changePosition", Type: rpc.TypeNumber, Optional: true, Default: "random", Description: "The index of the change output"},
		{Name: "change_type", Type: rpc.TypeString, Optional: true, Default: "set by -changetype", Description: "The output type to use. Only valid if changeAddress is not specified."},
		{Name: "includeWatching", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "(DEPRECATED) No longer used"},
		{Name: "lockUnspents", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Lock selected unspent outputs"},
		{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, fall back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
		{Name: "feeRate", Type: rpc.TypeAmount, Optional: true, Default: "not set, fall back to wallet fee estimation", Description: "Specify a fee rate in BTC/kvB."},
		subtractFee,
	}
	fields = append(fields, extra...)
	return append(fields, fundTxFields()...)
}

// paramNames are the names of fields, for an options parameter's
// NamedOnly members.
func paramNames(fields []rpc.Param) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// inputWeightsField documents input_weights.
var inputWeightsField = rpc.Param{Name: "input_weights", Type: rpc.TypeArray, Optional: true,
	Description: "Inputs and their corresponding weights: [{\"txid\", \"vout\", \"weight\"}, ...]"}

// maxTxWeightField documents max_tx_weight.
var maxTxWeightField = rpc.Param{Name: "max_tx_weight", Type: rpc.TypeNumber, Optional: true, Default: "400000",
	Description: "The maximum acceptable transaction weight. Transaction building will fail if this can not be satisfied."}

// fundResult is the reply of fundrawtransaction.
type fundResult struct {
	Hex       string     `json:"hex"`
	Fee       rpc.Amount `json:"fee"`
	ChangePos int        `json:"changepos"`
}

// newFundRawTransaction returns the fundrawtransaction method.
func newFundRawTransaction(d *Deps) *rpc.Method {
	fields := fundOptionFields(
		rpc.Param{Name: "add_inputs", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "For a transaction with existing inputs, automatically include more if they are not enough."},
		rpc.Param{Name: "subtractFeeFromOutputs", Type: rpc.TypeArray, Optional: true, Default: "[]", Description: "The zero-based output indexes the fee is deducted from, equally."},
		inputWeightsField, maxTxWeightField)
	return &rpc.Method{
		Name:     "fundrawtransaction",
		Category: "rawtransactions",
		Description: "If the transaction has no inputs, they will be automatically selected to meet its out value.\n" +
			"It will add at most one change output to the outputs.\n" +
			"No existing outputs will be modified unless \"subtractFeeFromOutputs\" is specified.\n" +
			"The inputs added will not be signed, use signrawtransactionwithkey\n" +
			"or signrawtransactionwithwallet for that.\n" +
			"All existing inputs must either have their previous output transaction be in the wallet\n" +
			"or be in the UTXO set. Solving data must be provided for non-wallet inputs.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeHex, Description: "The hex string of the raw transaction"},
			{Name: "options", Type: rpc.TypeObject, Optional: true, SkipTypeCheck: true, NamedOnly: paramNames(fields), Fields: fields, Description: "Funding options"},
			{Name: "iswitness", Type: rpc.TypeBool, Optional: true, Default: "depends on heuristic tests", Description: "Whether the transaction hex is a serialized witness transaction."},
		},
		Result: "{\n  \"hex\" : \"hex\",       (string) The resulting raw transaction (hex-encoded string)\n" +
			"  \"fee\" : n,           (numeric) Fee in BTC the resulting transaction pays\n" +
			"  \"changepos\" : n      (numeric) The position of the added change output, or -1\n}",
		Examples: []string{`"rawtransactionhex"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			tryWitness, tryNoWitness := true, true
			if req.Has(2) {
				b, err := req.Bool(2)
				if err != nil {
					return nil, err
				}
				tryWitness, tryNoWitness = b, !b
			}
			tx, ok := sign.DecodeHexTx(s, tryNoWitness, tryWitness)
			if !ok {
				return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed")
			}
			o, isObj, err := newFundOpts(req.Arg(1))
			if err != nil {
				return nil, err
			}
			dummy := make([]string, len(tx.TxOut))
			for i := range dummy {
				dummy[i] = "dummy"
			}
			sffo, err := subtractFeeFrom(o.get("subtractFeeFromOutputs"), dummy)
			if err != nil {
				return nil, err
			}
			fr := newFundRequest(w)
			for i, out := range tx.TxOut {
				fr.recipients = append(fr.recipients, coinselect.Recipient{Value: out.Value, PkScript: out.PkScript, SubtractFee: sffo[i]})
			}
			if err := readFundOptions(d, o, isObj, fr, true); err != nil {
				return nil, err
			}
			bt, err := fundTransaction(ctx, d, w, tx, fr)
			if err != nil {
				return nil, err
			}
			return &fundResult{Hex: encodeTxHex(bt.tx), Fee: rpc.Amount(bt.fee), ChangePos: bt.changePos}, nil
		},
	}
}
