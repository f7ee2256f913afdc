package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
)

// unspentEntry is one listunspent entry in Core's field order.
type unspentEntry struct {
	TxID          string     `json:"txid"`
	Vout          uint32     `json:"vout"`
	Address       string     `json:"address,omitempty"`
	Label         *string    `json:"label,omitempty"`
	RedeemScript  string     `json:"redeemScript,omitempty"`
	WitnessScript string     `json:"witnessScript,omitempty"`
	ScriptPubKey  string     `json:"scriptPubKey"`
	Amount        rpc.Amount `json:"amount"`
	Confirmations int64      `json:"confirmations"`
	Spendable     bool       `json:"spendable"`
	Solvable      bool       `json:"solvable"`
	Desc          string     `json:"desc,omitempty"`
	ParentDescs   []string   `json:"parent_descs"`
	Reused        *bool      `json:"reused,omitempty"`
	Safe          bool       `json:"safe"`
}

// newListUnspent returns the listunspent method.
func newListUnspent(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listunspent",
		Category:    walletCategory,
		Description: "Lists the wallet's unspent outputs with between minconf and maxconf confirmations, optionally only those paying the given addresses.",
		Params: []rpc.Param{
			{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "1", Description: "The least confirmations."},
			{Name: "maxconf", Type: rpc.TypeNumber, Optional: true, Default: "9999999", Description: "The most confirmations."},
			{Name: "addresses", Type: rpc.TypeArray, Optional: true, Default: "[]", Description: "Only outputs paying these addresses."},
			{Name: "include_unsafe", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Include unconfirmed outputs of others' transactions."},
			{Name: "query_options", Type: rpc.TypeObject, Optional: true, Description: "Further filters (minimumAmount, maximumAmount, maximumCount, minimumSumAmount)."},
		},
		Result:   "[ { \"txid\", \"vout\", \"address\", \"label\", \"scriptPubKey\", \"amount\", \"confirmations\", \"spendable\", \"solvable\", \"desc\", \"parent_descs\", \"safe\" }, ... ]",
		Examples: []string{"", "6 9999999"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			minConf, maxConf := int64(1), int64(9999999)
			if req.Has(0) {
				if minConf, err = req.Int64(0); err != nil {
					return nil, err
				}
			}
			if req.Has(1) {
				if maxConf, err = req.Int64(1); err != nil {
					return nil, err
				}
			}
			var scripts [][]byte
			if req.Has(2) {
				var addrs []json.RawMessage
				if err := json.Unmarshal(req.Arg(2), &addrs); err != nil {
					return nil, rpc.TypeError(rpc.JSONType(req.Arg(2)), "array")
				}
				seen := map[string]bool{}
				for _, raw := range addrs {
					s, err := rpc.AsString(raw)
					if err != nil {
						return nil, err
					}
					spk, derr := address.Decode(s, d.Net)
					if derr != nil {
						return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid Bitcoin address: "+s)
					}
					if seen[s] {
						return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, duplicated address: "+s)
					}
					seen[s] = true
					scripts = append(scripts, spk)
				}
				if len(scripts) == 0 {
					scripts = nil
				}
			}
			includeUnsafe, err := boolOr(req, 3, true)
			if err != nil {
				return nil, err
			}
			var q struct {
				MinimumAmount    json.RawMessage `json:"minimumAmount"`
				MaximumAmount    json.RawMessage `json:"maximumAmount"`
				MaximumCount     *int64          `json:"maximumCount"`
				MinimumSumAmount json.RawMessage `json:"minimumSumAmount"`
			}
			minAmount, maxAmount, minSum := rpc.Amount(0), rpc.MaxMoney, rpc.MaxMoney
			if req.Has(4) {
				if err := req.Decode(4, &q); err != nil {
					return nil, err
				}
				if len(q.MinimumAmount) > 0 {
					if minAmount, err = rpc.AsAmount(q.MinimumAmount); err != nil {
						return nil, err
					}
				}
				if len(q.MaximumAmount) > 0 {
					if maxAmount, err = rpc.AsAmount(q.MaximumAmount); err != nil {
						return nil, err
					}
				}
				if len(q.MinimumSumAmount) > 0 {
					if minSum, err = rpc.AsAmount(q.MinimumSumAmount); err != nil {
						return nil, err
					}
				}
			}
			list, err := w.ListUnspent(ctx, minConf, maxConf, scripts)
			if err != nil {
				return nil, MapError(err)
			}
			out := []unspentEntry{}
			var sum rpc.Amount
			for _, u := range list {
				if !includeUnsafe && !u.Safe {
					continue
				}
				a := rpc.Amount(u.Amount)
				if a < minAmount || a > maxAmount {
					continue
				}
				out = append(out, unspentEntry{TxID: u.TxID.String(), Vout: u.Vout, Address: u.Address,
					Label: u.Label, RedeemScript: u.RedeemScript, WitnessScript: u.WitnessScript,
					ScriptPubKey: hex.EncodeToString(u.Script), Amount: a, Confirmations: u.Confirmations,
					Spendable: true, Solvable: u.Solvable, Desc: u.Desc, ParentDescs: nonNil(u.ParentDescs),
					Reused: u.Reused, Safe: u.Safe})
				sum += a
				if q.MaximumCount != nil && *q.MaximumCount > 0 && int64(len(out)) >= *q.MaximumCount {
					break
				}
				if sum >= minSum {
					break
				}
			}
			return out, nil
		},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
