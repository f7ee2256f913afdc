package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/coinselect"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// recipientsOf is Core's ParseOutputs with CreateRecipients.
func recipientsOf(d *Deps, members []jsonMember) ([]coinselect.Recipient, error) {
	outs, err := parseOutputs(members, d.Net)
	if err != nil {
		return nil, err
	}
	rs := make([]coinselect.Recipient, len(outs))
	for i, o := range outs {
		rs[i] = coinselect.Recipient{Value: int64(o.Amount), PkScript: o.Script}
	}
	return rs, nil
}

// subtractFeeFrom is Core's InterpretSubtractFeeFromOutputInstructions:
// each element a destination (its position among keys) or a position.
func subtractFeeFrom(raw json.RawMessage, keys []string) (map[int]bool, error) {
	set := map[int]bool{}
	if rpc.IsNull(raw) {
		return set, nil
	}
	// Core reads the instructions with getValues: an array's elements,
	// an object's member values, and for anything else a -1.
	var list []json.RawMessage
	switch rpc.JSONType(raw) {
	case "array":
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, rpc.TypeError(rpc.JSONType(raw), "array")
		}
	case "object":
		members, err := orderedMembers(raw)
		if err != nil {
			return nil, rpc.TypeError(rpc.JSONType(raw), "object")
		}
		for _, m := range members {
			list = append(list, m.Value)
		}
	default:
		return nil, rpc.NewError(rpc.CodeMisc, "JSON value is not an object or array as expected")
	}
	for _, e := range list {
		pos := -1
		switch t := rpc.JSONType(e); t {
		case "string":
			s, _ := rpc.AsString(e)
			for i, k := range keys {
				if k == s {
					pos = i
					break
				}
			}
			if pos < 0 {
				return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter 'subtract fee from output', destination %s not found in tx outputs", s)
			}
		case "number":
			n, err := rpc.AsInt(e)
			if err != nil {
				return nil, err
			}
			pos = n
		default:
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter 'subtract fee from output', invalid value type: %s", t)
		}
		if set[pos] {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter 'subtract fee from output', duplicated position: %d", pos)
		}
		if pos < 0 {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter 'subtract fee from output', negative position: %d", pos)
		}
		if pos >= len(keys) {
			return nil, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid parameter 'subtract fee from output', position too large: %d", pos)
		}
		set[pos] = true
	}
	return set, nil
}

// spendFeeArgs reads replaceable, then conf_target, estimate_mode and
// fee_rate as Core's SetFeeEstimateMode (an explicit rate signals
// replaceability unless replaceable says otherwise).
func spendFeeArgs(req *rpc.Request, rbfIdx, confIdx, modeIdx, rateIdx int) (wallet.FeeRequest, error) {
	var rbf *bool
	if req.Has(rbfIdx) {
		v, err := req.Bool(rbfIdx)
		if err != nil {
			return wallet.FeeRequest{}, err
		}
		rbf = &v
	}
	fee, err := feeArgs(req.Arg(confIdx), req.Arg(modeIdx), req.Arg(rateIdx), maxConfTarget)
	if err != nil {
		return fee, err
	}
	if rbf != nil {
		fee.SignalRBF = rbf
	}
	return fee, nil
}

// feeParams are the fee and replaceability parameters sendtoaddress and
// sendmany share.
func feeParams() []rpc.Param {
	return []rpc.Param{
		{Name: "replaceable", Type: rpc.TypeBool, Optional: true, Default: "wallet default", Description: "Signal that this transaction can be replaced by a transaction (BIP 125)"},
		{Name: "conf_target", Type: rpc.TypeNumber, Optional: true, Default: "wallet -txconfirmtarget", Description: "Confirmation target in blocks"},
		{Name: "estimate_mode", Type: rpc.TypeString, Optional: true, Default: `"unset"`, Description: "The fee estimate mode: unset, economical, conservative"},
	}
}

// newSendToAddress returns the sendtoaddress method.
func newSendToAddress(d *Deps) *rpc.Method {
	params := []rpc.Param{
		{Name: "address", Type: rpc.TypeString, Description: "The bitcoin address to send to."},
		{Name: "amount", Type: rpc.TypeAmount, Description: "The amount in BTC to send. eg 0.1"},
		{Name: "comment", Type: rpc.TypeString, Optional: true, Description: "A comment used to store what the transaction is for."},
		{Name: "comment_to", Type: rpc.TypeString, Optional: true, Description: "A comment to store the name of the person or organization to which you're sending the transaction."},
		{Name: "subtractfeefromamount", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "The fee will be deducted from the amount being sent."},
	}
	params = append(params, feeParams()...)
	params = append(params,
		rpc.Param{Name: "avoid_reuse", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "(only available if avoid_reuse wallet flag is set) Avoid spending from dirty addresses."},
		rpc.Param{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, falls back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
		rpc.Param{Name: "verbose", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "If true, return extra information about the transaction."},
	)
	return &rpc.Method{
		Name:        "sendtoaddress",
		Category:    walletCategory,
		Description: "Send an amount to a given address.\nRequires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.",
		Params:      params,
		Result:      `"hex"    (string) The transaction id. Or, when verbose: { "txid", "fee_reason" }`,
		Examples:    []string{`"bcrt1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl" 0.1`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			var comments wallet.TxComments
			for i, c := range []*string{&comments.Comment, &comments.To} {
				if req.Has(2 + i) {
					if *c, err = req.String(2 + i); err != nil {
						return nil, err
					}
				}
			}
			fee, err := spendFeeArgs(req, 5, 6, 7, 9)
			if err != nil {
				return nil, err
			}
			avoidReuse, err := avoidReuseArg(w, req, 8)
			if err != nil {
				return nil, err
			}
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			addr, err := req.String(0)
			if err != nil {
				return nil, err
			}
			rs, err := recipientsOf(d, []jsonMember{{Key: addr, Value: req.Arg(1)}})
			if err != nil {
				return nil, err
			}
			subtract, err := boolOr(req, 4, false)
			if err != nil {
				return nil, err
			}
			rs[0].SubtractFee = subtract
			verbose, err := boolOr(req, 10, false)
			if err != nil {
				return nil, err
			}
			fr := newFundRequest(w)
			fr.recipients, fr.fee, fr.avoidReuse, fr.comments = rs[:1], fee, avoidReuse, comments
			return sendMoney(ctx, d, w, fr, verbose)
		},
	}
}

// newSendMany returns the sendmany method.
func newSendMany(d *Deps) *rpc.Method {
	params := []rpc.Param{
		{Name: "dummy", Type: rpc.TypeString, Optional: true, Default: `""`, Description: "Must be set to \"\" for backwards compatibility."},
		{Name: "amounts", Type: rpc.TypeObject, Description: "The addresses and amounts: {\"address\": amount, ...}"},
		{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Description: "Ignored dummy value"},
		{Name: "comment", Type: rpc.TypeString, Optional: true, Description: "A comment"},
		{Name: "subtractfeefrom", Type: rpc.TypeArray, Optional: true, Description: "The addresses the fee is subtracted from, equally."},
	}
	params = append(params, feeParams()...)
	params = append(params,
		rpc.Param{Name: "fee_rate", Type: rpc.TypeAmount, Optional: true, Default: "not set, falls back to wallet fee estimation", Description: "Specify a fee rate in sat/vB."},
		rpc.Param{Name: "verbose", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "If true, return extra information about the transaction."},
	)
	return &rpc.Method{
		Name:        "sendmany",
		Category:    walletCategory,
		Description: "Send multiple times. Amounts are double-precision floating point numbers.\nRequires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.",
		Params:      params,
		Result:      `"hex"    (string) The transaction id. Or, when verbose: { "txid", "fee_reason" }`,
		Examples:    []string{`"" "{\"bcrt1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl\":0.01}"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if req.Has(0) {
				if s, err := req.String(0); err != nil || s != "" {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, `Dummy value must be set to ""`)
				}
			}
			if t := rpc.JSONType(req.Arg(1)); t != "object" {
				return nil, rpc.TypeError(t, "object")
			}
			members, err := orderedMembers(req.Arg(1))
			if err != nil {
				return nil, rpc.TypeError(rpc.JSONType(req.Arg(1)), "object")
			}
			var comments wallet.TxComments
			if req.Has(3) {
				if comments.Comment, err = req.String(3); err != nil {
					return nil, err
				}
			}
			fee, err := spendFeeArgs(req, 5, 6, 7, 8)
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
			sffo, err := subtractFeeFrom(req.Arg(4), keys)
			if err != nil {
				return nil, err
			}
			for i := range rs {
				rs[i].SubtractFee = sffo[i]
			}
			verbose, err := boolOr(req, 9, false)
			if err != nil {
				return nil, err
			}
			// sendmany honours avoid_reuse through the wallet flag.
			fr := newFundRequest(w)
			fr.recipients, fr.fee, fr.avoidReuse = rs, fee, w.FlagSet(wallet.FlagAvoidReuse)
			fr.comments = comments
			return sendMoney(ctx, d, w, fr, verbose)
		},
	}
}
