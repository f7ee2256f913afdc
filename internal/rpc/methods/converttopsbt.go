package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// newConvertToPSBT returns the converttopsbt method.
func newConvertToPSBT(_ *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "converttopsbt",
		Category: "rawtransactions",
		Description: "Converts a network-serialized transaction to a PSBT with empty maps.\n" +
			"Use it only with createrawtransaction and fundrawtransaction; createpsbt and walletcreatefundedpsbt are preferred.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeHex, Description: "The hex of a raw transaction."},
			{Name: "permitsigdata", Type: rpc.TypeBool, Optional: true, Default: "false",
				Description: "When true, scriptSigs and witnesses are dropped; when false, an input holding one is an error."},
			{Name: "iswitness", Type: rpc.TypeBool, Optional: true, Default: "depends on heuristic tests",
				Description: "Whether the transaction hex is a serialized witness transaction; without it both forms are tried."},
		},
		Result:   "\"str\"    (string) The PSBT, base64",
		Examples: []string{`"rawtransaction"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			permit := false
			if req.Has(1) {
				if permit, err = req.Bool(1); err != nil {
					return nil, err
				}
			}
			tryWitness, tryNoWitness := true, true
			if req.Has(2) {
				w, err := req.Bool(2)
				if err != nil {
					return nil, err
				}
				tryWitness, tryNoWitness = w, !w
			}
			tx, ok := sign.DecodeHexTx(s, tryNoWitness, tryWitness)
			if !ok {
				return nil, rpc.NewError(rpc.CodeDeserialization, "TX decode failed")
			}
			for _, in := range tx.TxIn {
				if (len(in.SignatureScript) > 0 || len(in.Witness) > 0) && !permit {
					return nil, rpc.NewError(rpc.CodeDeserialization, "Inputs must not have scriptSigs and scriptWitnesses")
				}
				in.SignatureScript, in.Witness = nil, nil
			}
			return psbt.New(tx).Base64(), nil
		},
	}
}
