package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

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
			// Core reads max_tx_weight here, before its type table.
			if o.exists("max_tx_weight") {
				if _, err := rpc.AsInt(o.get("max_tx_weight")); err != nil {
					return nil, err
				}
			}
			if err := setOptionsInputWeights(o.get("inputs"), o); err != nil {
				return nil, err
			}
			if err := readFundOptions(d, o, true, fr, false); err != nil {
				return nil, err
			}
			bt, err := fundTransaction(ctx, d, w, tx, fr)
			if err != nil {
				return nil, err
			}
			return finishTransaction(ctx, d, w, o, bt.tx)
		},
	}
}
