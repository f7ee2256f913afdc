package methods

import (
	"context"
	"encoding/json"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

// lockedEntry is one listlockunspent entry.
type lockedEntry struct {
	TxID string `json:"txid"`
	Vout uint32 `json:"vout"`
}

// newLockUnspent returns the lockunspent method.
func newLockUnspent(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "lockunspent",
		Category: walletCategory,
		Description: "Locks (unlock false) or unlocks (unlock true) the given unspent outputs, so that automatic coin selection leaves them out. " +
			"Without outputs, unlock true unlocks every output. Locks live in memory unless persistent is true, which keeps them " +
			"in the wallet file until they are unlocked or spent.",
		Params: []rpc.Param{
			{Name: "unlock", Type: rpc.TypeBool, Description: "true to unlock, false to lock."},
			{Name: "transactions", Type: rpc.TypeArray, Optional: true, Default: "[]", Description: "The outputs.",
				Fields: []rpc.Param{
					{Name: "txid", Type: rpc.TypeString, Description: "The transaction id."},
					{Name: "vout", Type: rpc.TypeNumber, Description: "The output number."},
				}},
			{Name: "persistent", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Keep the locks in the wallet file."},
		},
		Result:   "true|false (whether the command succeeded)",
		Examples: []string{"false \"[{\\\"txid\\\":\\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0\\\",\\\"vout\\\":1}]\"", "true"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			unlock, err := rpc.AsBool(req.Arg(0))
			if err != nil {
				return nil, err
			}
			persistent, err := boolOr(req, 2, false)
			if err != nil {
				return nil, err
			}
			if !req.Has(1) {
				if unlock {
					if err := w.UnlockAllCoins(ctx); err != nil {
						return nil, MapError(err)
					}
				}
				return true, nil
			}
			var elems []json.RawMessage
			if err := json.Unmarshal(req.Arg(1), &elems); err != nil {
				return nil, rpc.TypeError(rpc.JSONType(req.Arg(1)), "array")
			}
			ops := make([]wire.OutPoint, 0, len(elems))
			for _, e := range elems {
				op, err := parseLockOutput(e)
				if err != nil {
					return nil, err
				}
				ops = append(ops, op)
			}
			if err := w.LockCoins(ctx, unlock, persistent, ops); err != nil {
				return nil, MapError(err)
			}
			return true, nil
		},
	}
}

// parseLockOutput reads one {txid, vout} object of lockunspent with
// Core's checks in Core's order: the object, the member types
// (RPCTypeCheckObj), the txid, then a negative vout.
func parseLockOutput(raw json.RawMessage) (wire.OutPoint, error) {
	var op wire.OutPoint
	if rpc.JSONType(raw) != "object" {
		return op, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil {
		return op, rpc.TypeError(rpc.JSONType(raw), "object")
	}
	for _, f := range []struct{ name, typ string }{{"txid", "string"}, {"vout", "number"}} {
		v := o[f.name]
		if rpc.IsNull(v) {
			return op, rpc.NewError(rpc.CodeTypeError, "Missing "+f.name)
		}
		if t := rpc.JSONType(v); t != f.typ {
			return op, rpc.Errorf(rpc.CodeTypeError, "JSON value of type %s for field %s is not of expected type %s", t, f.name, f.typ)
		}
	}
	s, err := rpc.AsString(o["txid"])
	if err != nil {
		return op, err
	}
	h, err := parseHash(s, "txid")
	if err != nil {
		return op, err
	}
	n, err := rpc.AsInt(o["vout"])
	if err != nil {
		return op, err
	}
	if n < 0 {
		return op, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, vout cannot be negative")
	}
	return wire.OutPoint{Hash: h, Index: uint32(n)}, nil
}

// newListLockUnspent returns the listlockunspent method.
func newListLockUnspent(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listlockunspent",
		Category:    walletCategory,
		Description: "Lists the outputs locked with lockunspent.",
		Result:      "[ { \"txid\", \"vout\" }, ... ]",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			locked := w.LockedCoins()
			out := make([]lockedEntry, 0, len(locked))
			for _, op := range locked {
				out = append(out, lockedEntry{TxID: op.Hash.String(), Vout: op.Index})
			}
			return out, nil
		},
	}
}
