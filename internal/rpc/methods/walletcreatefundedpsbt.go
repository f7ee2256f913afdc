package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// fundedPSBTResult is the reply of walletcreatefundedpsbt.
type fundedPSBTResult struct {
	PSBT      string     `json:"psbt"`
	Fee       rpc.Amount `json:"fee"`
	ChangePos int        `json:"changepos"`
}

// fundInputFields documents the inputs of walletcreatefundedpsbt and send.
var fundInputFields = []rpc.Param{
	{Name: "txid", Type: rpc.TypeHex, Description: "The transaction id"},
	{Name: "vout", Type: rpc.TypeNumber, Description: "The output number"},
	{Name: "sequence", Type: rpc.TypeNumber, Optional: true, Default: "depends on the value of the 'replaceable' and 'locktime' arguments", Description: "The sequence number"},
	{Name: "weight", Type: rpc.TypeNumber, Optional: true, Default: "Calculated from wallet and solving data", Description: "The maximum weight for this input, including the weight of the outpoint and sequence number."},
}

// replaceableOption reads options.replaceable (Core's get_bool), the
// wallet's -walletrbf when absent.
func replaceableOption(w *wallet.Wallet, o *optionsObject) (bool, error) {
	v := o.get("replaceable")
	if rpc.IsNull(v) {
		return w.Options().WalletRBF, nil
	}
	return rpc.AsBool(v)
}

// recipientsWithSFFO is Core's ParseOutputs with CreateRecipients and
// InterpretSubtractFeeFromOutputInstructions over the outputs' keys.
func recipientsWithSFFO(d *Deps, outputs json.RawMessage, sffo json.RawMessage) ([]coinselect.Recipient, error) {
	members, err := normalizeOutputs(outputs)
	if err != nil {
		return nil, err
	}
	rs, err := recipientsOf(d, members)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.Key
	}
	set, err := subtractFeeFrom(sffo, keys)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		rs[i].SubtractFee = set[i]
	}
	return rs, nil
}

// setOptionsInputWeights is Core's SetOptionsInputWeights: the inputs
// given with a weight become options.input_weights.
func setOptionsInputWeights(inputs json.RawMessage, o *optionsObject) error {
	if o.exists("input_weights") {
		return rpc.NewError(rpc.CodeInvalidParameter, "Input weights should be specified in inputs rather than in options.")
	}
	if rpc.JSONType(inputs) != "array" {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(inputs, &list); err != nil || len(list) == 0 {
		return nil
	}
	weights := []json.RawMessage{}
	for _, in := range list {
		if rpc.JSONType(in) != "object" {
			continue
		}
		members, err := orderedMembers(in)
		if err != nil {
			continue
		}
		for _, m := range members {
			if m.Key == "weight" {
				weights = append(weights, in)
				break
			}
		}
	}
	raw, _ := json.Marshal(weights)
	o.set("input_weights", raw)
	return nil
}

// newWalletCreateFundedPSBT returns the walletcreatefundedpsbt method.
func newWalletCreateFundedPSBT(d *Deps) *rpc.Method {
	fields := fundOptionFields(
		rpc.Param{Name: "add_inputs", Type: rpc.TypeBool, Optional: true, Default: "false when \"inputs\" are specified, true otherwise", Description: "Automatically include coins from the wallet to cover the target amount."},
		rpc.Param{Name: "subtractFeeFromOutputs", Type: rpc.TypeArray, Optional: true, Default: "[]", Description: "The outputs to subtract the fee from, equally."},
		maxTxWeightField)
	return &rpc.Method{
		Name:     walletCreateFundedPSBTName,
		Category: walletCategory,
		Description: "Creates and funds a transaction in the Partially Signed Transaction format.\n" +
			"Implements the Creator and Updater roles.\n" +
			"All existing inputs must either have their previous output transaction be in the wallet\n" +
			"or be in the UTXO set. Solving data must be provided for non-wallet inputs.",
		Params: []rpc.Param{
			{Name: "inputs", Type: rpc.TypeArray, Optional: true, Fields: fundInputFields, Description: "Leave empty to add inputs automatically. See add_inputs option."},
			{Name: "outputs", Type: rpc.TypeArray, SkipTypeCheck: true, Description: "The outputs specified as key-value pairs: [{\"address\": amount}, {\"data\": \"hex\"}, ...]; one object holding them all is accepted as well."},
			{Name: "locktime", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "Raw locktime. Non-0 value also locktime-activates inputs"},
			{Name: "options", Type: rpc.TypeObject, Optional: true, NamedOnly: paramNames(fields), Fields: fields, Description: "Funding options"},
			{Name: "bip32derivs", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Include BIP 32 derivation paths for public keys if we know them"},
			{Name: "version", Type: rpc.TypeNumber, Optional: true, Default: "2", Description: "Transaction version"},
		},
		Result: "{\n  \"psbt\" : \"str\",      (string) The resulting raw transaction (base64-encoded string)\n" +
			"  \"fee\" : n,           (numeric) Fee in BTC the resulting transaction pays\n" +
			"  \"changepos\" : n      (numeric) The position of the added change output, or -1\n}",
		Examples: []string{`"[]" "[{\"bcrt1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl\":0.5}]" 0 "{\"add_inputs\":true,\"fee_rate\":2}"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			o, isObj, err := newFundOpts(req.Arg(3))
			if err != nil {
				return nil, err
			}
			version, err := txVersionArg(req, 5)
			if err != nil {
				return nil, err
			}
			rbf, err := replaceableOption(w, o)
			if err != nil {
				return nil, err
			}
			tx, err := constructTransaction(d.Net, req.Arg(0), req.Arg(1), req.Arg(2), &rbf, version)
			if err != nil {
				return nil, err
			}
			fr := newFundRequest(w)
			if fr.recipients, err = recipientsWithSFFO(d, req.Arg(1), o.get("subtractFeeFromOutputs")); err != nil {
				return nil, err
			}
			fr.allowOther = len(tx.TxIn) == 0
			if err := setOptionsInputWeights(req.Arg(0), o); err != nil {
				return nil, err
			}
			if err := readFundOptions(d, o, isObj, fr, true); err != nil {
				return nil, err
			}
			bt, err := fundTransaction(ctx, d, w, tx, fr)
			if err != nil {
				return nil, err
			}
			bip32derivs, err := boolOr(req, 4, true)
			if err != nil {
				return nil, err
			}
			p := psbt.New(bt.tx)
			if err := fillWalletPSBT(ctx, w, p, nil, false, bip32derivs, true); err != nil {
				return nil, err
			}
			return &fundedPSBTResult{PSBT: p.Base64(), Fee: rpc.Amount(bt.fee), ChangePos: bt.changePos}, nil
		},
	}
}

// walletCreateFundedPSBTName is the method's name.
const walletCreateFundedPSBTName = "walletcreatefundedpsbt"
