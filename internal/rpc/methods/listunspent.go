package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
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
	// The ancestor fields are set for an output of a transaction in the
	// backend's mempool (ancestorfees in satoshis, as Core).
	AncestorCount *int64   `json:"ancestorcount,omitempty"`
	AncestorSize  *int64   `json:"ancestorsize,omitempty"`
	AncestorFees  *int64   `json:"ancestorfees,omitempty"`
	Spendable     bool     `json:"spendable"`
	Solvable      bool     `json:"solvable"`
	Desc          string   `json:"desc,omitempty"`
	ParentDescs   []string `json:"parent_descs"`
	Reused        *bool    `json:"reused,omitempty"`
	Safe          bool     `json:"safe"`
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
			{Name: "query_options", Type: rpc.TypeObject, Optional: true, Description: "Further filters (minimumAmount, maximumAmount, maximumCount, minimumSumAmount, include_immature_coinbase); " +
				"a named call may give these as top-level arguments.",
				NamedOnly: []string{"minimumAmount", "maximumAmount", "maximumCount", "minimumSumAmount", "include_immature_coinbase"}},
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
			minAmount, maxAmount, minSum := rpc.Amount(0), rpc.MaxMoney, rpc.MaxMoney
			var maxCount int64
			includeImmature := false
			if req.Has(4) {
				members, err := orderedMembers(req.Arg(4))
				if err != nil {
					return nil, rpc.TypeError(rpc.JSONType(req.Arg(4)), "object")
				}
				if err := typeCheckObj(members, unspentQueryTypes, true); err != nil {
					return nil, err
				}
				// Core's options.exists(k): a member given as null
				// is read (and refused) all the same.
				amount := func(k string, v *rpc.Amount) error {
					if raw := firstValue(members, k); raw != nil {
						a, err := rpc.AsAmount(raw)
						if err != nil {
							return err
						}
						*v = a
					}
					return nil
				}
				if err := amount("minimumAmount", &minAmount); err != nil {
					return nil, err
				}
				if err := amount("maximumAmount", &maxAmount); err != nil {
					return nil, err
				}
				if err := amount("minimumSumAmount", &minSum); err != nil {
					return nil, err
				}
				if raw := firstValue(members, "maximumCount"); raw != nil {
					if maxCount, err = rpc.AsInt64(raw); err != nil {
						return nil, err
					}
				}
				if raw := firstValue(members, "include_immature_coinbase"); raw != nil {
					if includeImmature, err = rpc.AsBool(raw); err != nil {
						return nil, err
					}
				}
			}
			var list []wallet.Unspent
			if includeImmature {
				list, err = w.ListUnspentWithImmature(ctx, minConf, maxConf, scripts)
			} else {
				list, err = w.ListUnspent(ctx, minConf, maxConf, scripts)
			}
			if err != nil {
				return nil, MapError(err)
			}
			out := make([]unspentEntry, 0, len(list))
			var mempool []*chainhash.Hash
			var sum rpc.Amount
			for i, u := range list {
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
				if u.Confirmations == 0 {
					mempool = append(mempool, &list[i].TxID)
				} else {
					mempool = append(mempool, nil)
				}
				sum += a
				if maxCount > 0 && int64(len(out)) >= maxCount {
					break
				}
				if sum >= minSum {
					break
				}
			}
			addAncestry(ctx, d, out, mempool)
			return rpc.CanonicalJSON(appendUnspent(make([]byte, 0, 768*len(out)+2), out)), nil
		},
	}
}

// addAncestry sets the ancestor fields of the entries of transactions in
// the backend's mempool (ids[i] is entry i's txid when it is unconfirmed),
// as Core's getTransactionAncestry: the transaction and its in-mempool
// ancestors, their count, virtual size and fees. Without a backend, or
// when it cannot tell, the fields stay out.
func addAncestry(ctx context.Context, d *Deps, out []unspentEntry, ids []*chainhash.Hash) {
	some := false
	for _, id := range ids {
		some = some || id != nil
	}
	if !some || d.Chain == nil || d.Chain.Backend() == nil {
		return
	}
	entries, err := d.Chain.Backend().MempoolEntries(ctx)
	if err != nil {
		return
	}
	byID := make(map[chainhash.Hash]*chain.MempoolEntry, len(entries))
	for i := range entries {
		byID[entries[i].TxID] = &entries[i]
	}
	type ancestry struct{ count, size, fees int64 }
	memo := map[chainhash.Hash]*ancestry{}
	for i, id := range ids {
		if id == nil || byID[*id] == nil {
			continue
		}
		a := memo[*id]
		if a == nil {
			a = &ancestry{}
			seen := map[chainhash.Hash]bool{*id: true}
			queue := []chainhash.Hash{*id}
			for len(queue) > 0 {
				e := byID[queue[0]]
				queue = queue[1:]
				a.count++
				a.size += e.VSize
				a.fees += e.Fee
				for _, p := range e.Depends {
					if byID[p] != nil && !seen[p] {
						seen[p] = true
						queue = append(queue, p)
					}
				}
			}
			memo[*id] = a
		}
		out[i].AncestorCount, out[i].AncestorSize, out[i].AncestorFees = &a.count, &a.size, &a.fees
	}
}

// appendUnspent writes listunspent's reply in Core's form: the members of
// unspentEntry, in its order and with its omissions, written directly
// (encoding/json and the canonical pass cost several times more on a reply
// of thousands of entries; a test holds the two equal).
func appendUnspent(dst []byte, out []unspentEntry) []byte {
	dst = append(dst, '[')
	for i := range out {
		if i > 0 {
			dst = append(dst, ',')
		}
		e := &out[i]
		dst = append(dst, `{"txid":`...)
		dst = rpc.AppendString(dst, e.TxID)
		dst = append(dst, `,"vout":`...)
		dst = strconv.AppendUint(dst, uint64(e.Vout), 10)
		if e.Address != "" {
			dst = append(dst, `,"address":`...)
			dst = rpc.AppendString(dst, e.Address)
		}
		if e.Label != nil {
			dst = append(dst, `,"label":`...)
			dst = rpc.AppendString(dst, *e.Label)
		}
		if e.RedeemScript != "" {
			dst = append(dst, `,"redeemScript":`...)
			dst = rpc.AppendString(dst, e.RedeemScript)
		}
		if e.WitnessScript != "" {
			dst = append(dst, `,"witnessScript":`...)
			dst = rpc.AppendString(dst, e.WitnessScript)
		}
		dst = append(dst, `,"scriptPubKey":`...)
		dst = rpc.AppendString(dst, e.ScriptPubKey)
		dst = append(dst, `,"amount":`...)
		dst = e.Amount.AppendJSON(dst)
		dst = append(dst, `,"confirmations":`...)
		dst = strconv.AppendInt(dst, e.Confirmations, 10)
		for _, f := range []struct {
			name string
			v    *int64
		}{{`,"ancestorcount":`, e.AncestorCount}, {`,"ancestorsize":`, e.AncestorSize}, {`,"ancestorfees":`, e.AncestorFees}} {
			if f.v != nil {
				dst = append(dst, f.name...)
				dst = strconv.AppendInt(dst, *f.v, 10)
			}
		}
		dst = append(dst, `,"spendable":`...)
		dst = strconv.AppendBool(dst, e.Spendable)
		dst = append(dst, `,"solvable":`...)
		dst = strconv.AppendBool(dst, e.Solvable)
		if e.Desc != "" {
			dst = append(dst, `,"desc":`...)
			dst = rpc.AppendString(dst, e.Desc)
		}
		dst = append(dst, `,"parent_descs":[`...)
		for j, p := range e.ParentDescs {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = rpc.AppendString(dst, p)
		}
		dst = append(dst, ']')
		if e.Reused != nil {
			dst = append(dst, `,"reused":`...)
			dst = strconv.AppendBool(dst, *e.Reused)
		}
		dst = append(dst, `,"safe":`...)
		dst = strconv.AppendBool(dst, e.Safe)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
