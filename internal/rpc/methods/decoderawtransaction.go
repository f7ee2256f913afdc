package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

// decodedTxHelp describes the decoded transaction object (txToJSON).
const decodedTxHelp = "{                           (json object)\n" +
	"  \"txid\" : \"hex\",            (string) The transaction id\n" +
	"  \"hash\" : \"hex\",            (string) The transaction id including witness data (wtxid)\n" +
	"  \"version\" : n,             (numeric) The version\n" +
	"  \"size\" : n,                (numeric) Serialized size in bytes\n" +
	"  \"vsize\" : n,               (numeric) Virtual size: weight divided by four, rounded up\n" +
	"  \"weight\" : n,              (numeric) Weight (BIP 141)\n" +
	"  \"locktime\" : xxx,          (numeric) The lock time\n" +
	"  \"vin\" : [ {                (json array) The inputs: txid, vout, scriptSig {asm, hex}, txinwitness, sequence;\n" +
	"                              a coinbase input shows coinbase (hex) instead of txid, vout and scriptSig\n" +
	"  } ],\n" +
	"  \"vout\" : [ {               (json array) The outputs: value (BTC), n, scriptPubKey {asm, desc, hex, address, type}\n" +
	"  } ]\n" +
	"}"

// newDecodeRawTransaction returns the decoderawtransaction method.
func newDecodeRawTransaction(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "decoderawtransaction",
		Category:    "rawtransactions",
		Description: "Shows a hex-encoded serialized transaction as a JSON object.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeHex, Description: "The serialized transaction, hex-encoded."},
			{Name: "iswitness", Type: rpc.TypeBool, Optional: true, Default: "depends on heuristic tests",
				Description: "true reads the hex only with the witness serialization, false only without;\n" +
					"when absent both are tried and the reading whose scripts make sense wins."},
		},
		Result:   decodedTxHelp,
		Examples: []string{`"hexstring"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			tryWitness, tryNoWitness := true, true
			if req.Has(1) {
				w, err := req.Bool(1)
				if err != nil {
					return nil, err
				}
				tryWitness, tryNoWitness = w, !w
			}
			tx, ok := sign.DecodeHexTx(s, tryNoWitness, tryWitness)
			if !ok {
				return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed")
			}
			return txToJSON(tx, d.Net, txOptions{}), nil
		},
	}
}
