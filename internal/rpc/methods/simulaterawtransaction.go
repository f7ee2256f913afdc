package methods

import (
	"context"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

type simulateResult struct {
	BalanceChange rpc.Amount `json:"balance_change"`
}

// newSimulateRawTransaction returns the simulaterawtransaction method.
func newSimulateRawTransaction(d *Deps) *rpc.Method {
	fields := []rpc.Param{
		{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Deprecated, ignored (every descwallet wallet counts all its scripts)."},
	}
	return &rpc.Method{
		Name:     "simulaterawtransaction",
		Category: walletCategory,
		Description: "Works out how the wallet's balance would change if the given transactions, in that order, were signed and broadcast: " +
			"minus the wallet's coins they spend, plus their outputs paying the wallet. A transaction may spend outputs of those before it in the array; " +
			"every other input must be an unspent output known to the chain backend (its UTXO set or mempool), so an offline node finds none.",
		Params: []rpc.Param{
			{Name: "rawtxs", Type: rpc.TypeArray, Optional: true, Description: "The transactions, as hex strings.",
				Fields: []rpc.Param{{Name: "rawtx", Type: rpc.TypeHex, Optional: true}}},
			{Name: "options", Type: rpc.TypeObject, Optional: true, NamedOnly: paramNames(fields), Fields: fields},
		},
		Result:   "{\n  \"balance_change\" : n    (numeric) The change of the wallet's balance in BTC (negative: a decrease)\n}",
		Examples: []string{`'["rawtxhex"]'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			raw := req.Arg(0)
			if t := rpc.JSONType(raw); t != "array" {
				return nil, rpc.TypeError(t, "array")
			}
			elems, ok := rpc.Elements(raw)
			if !ok {
				return nil, rpc.TypeError("null", "array")
			}
			coins := chainCoins{d: d, known: map[wire.OutPoint]bool{}}
			var change int64
			// The outputs the transactions so far create, with the
			// value each adds to the wallet (0 when not the wallet's).
			created := map[wire.OutPoint]int64{}
			spent := map[wire.OutPoint]bool{}
			for _, e := range elems {
				s, err := rpc.AsString(e)
				if err != nil {
					return nil, err
				}
				tx, ok := sign.DecodeHexTx(s, true, true)
				if !ok {
					return nil, rpc.NewError(rpc.CodeDeserialization, "Transaction hex string decoding failure.")
				}
				for _, in := range tx.TxIn {
					op := in.PreviousOutPoint
					if spent[op] {
						return nil, rpc.NewError(rpc.CodeInvalidParameter, "Transaction(s) are spending the same output more than once")
					}
					if v, ok := created[op]; ok {
						change -= v
						delete(created, op)
					} else {
						avail, err := coins.available(ctx, op)
						if err != nil {
							return nil, err
						}
						if !avail {
							return nil, rpc.NewError(rpc.CodeInvalidParameter, "One or more transaction inputs are missing or have been spent already")
						}
						if c, ok := w.OwnOutput(ctx, op); ok {
							change -= c.Value
						}
					}
					spent[op] = true
				}
				txid := tx.TxHash()
				for i, out := range tx.TxOut {
					v := int64(0)
					if w.IsMine(out.PkScript) {
						v = out.Value
					}
					created[wire.OutPoint{Hash: txid, Index: uint32(i)}] = v
					change += v
				}
			}
			return simulateResult{BalanceChange: rpc.Amount(change)}, nil
		},
	}
}

// chainCoins answers whether outputs exist as Core's FindCoins sees them
// through its mempool view: an output of a mempool transaction, or an
// output of the chain's UTXO set (whether or not a mempool transaction
// spends either). Without a backend no output exists.
type chainCoins struct {
	d     *Deps
	known map[wire.OutPoint]bool
}

func (c *chainCoins) available(ctx context.Context, op wire.OutPoint) (bool, error) {
	if v, ok := c.known[op]; ok {
		return v, nil
	}
	v, err := c.lookup(ctx, op)
	if err != nil {
		return false, err
	}
	c.known[op] = v
	return v, nil
}

func (c *chainCoins) lookup(ctx context.Context, op wire.OutPoint) (bool, error) {
	if c.d.Chain == nil || c.d.Chain.Backend() == nil {
		return false, nil
	}
	b := c.d.Chain.Backend()
	// Unspent, in the chain or in the mempool.
	if out, err := b.TxOut(ctx, op, true); err != nil {
		return false, MapError(err)
	} else if out != nil {
		return true, nil
	}
	// Unspent in the chain, spent by a mempool transaction.
	if out, err := b.TxOut(ctx, op, false); err != nil {
		return false, MapError(err)
	} else if out != nil {
		return true, nil
	}
	// An output of a mempool transaction that another one spends.
	txs, places, err := b.RawTransactions(ctx, []chainhash.Hash{op.Hash})
	if err != nil {
		return false, MapError(err)
	}
	if txs[0] != nil && places[0].Block == (chainhash.Hash{}) && int(op.Index) < len(txs[0].TxOut) {
		return true, nil
	}
	return false, nil
}
