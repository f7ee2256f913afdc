package methods

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

// newCombineRawTransaction returns the combinerawtransaction method. The
// previous outputs come from the chain backend (UTXO set and mempool), as
// Core reads its own; a node without a backend knows none, so every input
// is "not found".
func newCombineRawTransaction(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "combinerawtransaction",
		Category: "rawtransactions",
		Description: "Combines versions of one transaction signed by different parties into one transaction\n" +
			"holding all their signatures. The result may still be partially signed. The spent outputs\n" +
			"are looked up in the chain backend's UTXO set and mempool.",
		Params: []rpc.Param{
			{Name: "txs", Type: rpc.TypeArray, Description: "The versions of the transaction, hex-encoded."},
		},
		Result:   "\"hex\"    (string) The combined transaction, hex-encoded",
		Examples: []string{`'["myhex1", "myhex2", "myhex3"]'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			var raws []json.RawMessage
			if err := req.Decode(0, &raws); err != nil {
				return nil, err
			}
			versions := make([]*wire.MsgTx, len(raws))
			for i, raw := range raws {
				s, err := rpc.AsString(raw)
				if err != nil {
					return nil, err
				}
				tx, ok := sign.DecodeHexTx(s, true, true)
				if !ok {
					return nil, rpc.NewError(rpc.CodeDeserialization,
						fmt.Sprintf("TX decode failed for tx %d. Make sure the tx has at least one input.", i))
				}
				versions[i] = tx
			}
			if len(versions) == 0 {
				return nil, rpc.NewError(rpc.CodeDeserialization, "Missing transactions")
			}
			coins := make(sign.Coins, len(versions[0].TxIn))
			if find := backendCoins(ctx, d); find != nil {
				if err := find(versions[0], coins); err != nil {
					return nil, err
				}
			}
			for _, in := range versions[0].TxIn {
				if coins[in.PreviousOutPoint] == nil {
					return nil, rpc.NewError(rpc.CodeVerifyError, "Input not found or already spent")
				}
			}
			return encodeTxHex(sign.CombineTransaction(versions, coins)), nil
		},
	}
}
