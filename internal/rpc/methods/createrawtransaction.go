package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// createTxParams are the parameters shared by createrawtransaction and
// createpsbt (Core's CreateTxDoc).
func createTxParams() []rpc.Param {
	return []rpc.Param{
		{Name: "inputs", Type: rpc.TypeArray, Description: "The inputs to spend.",
			Fields: []rpc.Param{
				{Name: "txid", Type: rpc.TypeHex, Description: "The id of the transaction holding the output."},
				{Name: "vout", Type: rpc.TypeNumber, Description: "The output's index."},
				{Name: "sequence", Type: rpc.TypeNumber, Optional: true,
					Default:     "from replaceable and locktime",
					Description: "The input's sequence number."},
			}},
		{Name: "outputs", Type: rpc.TypeArray, SkipTypeCheck: true,
			Description: "The outputs, as objects of one key each: an address with its amount in BTC, or \"data\" with hex\n" +
				"that becomes an OP_RETURN output. An address may appear once, data once. One object holding\n" +
				"all the pairs is accepted as well."},
		{Name: "locktime", Type: rpc.TypeNumber, Optional: true, Default: "0",
			Description: "The lock time; when not zero, inputs without a sequence become lock-time enabled."},
		{Name: "replaceable", Type: rpc.TypeBool, Optional: true, Default: "true",
			Description: "Signal BIP 125 replaceability; when given, explicit sequence numbers must agree with it."},
		{Name: "version", Type: rpc.TypeNumber, Optional: true, Default: "2",
			Description: "The transaction version (1 to 3)."},
	}
}

// newCreateRawTransaction returns the createrawtransaction method.
func newCreateRawTransaction(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "createrawtransaction",
		Category: "rawtransactions",
		Description: "Builds an unsigned transaction spending the given inputs to the given outputs and returns it\n" +
			"hex-encoded. Nothing is signed, stored or sent.",
		Params: createTxParams(),
		Result: "\"hex\"    (string) The serialized transaction, hex-encoded",
		Examples: []string{
			`"[{\"txid\":\"myid\",\"vout\":0}]" "[{\"address\":0.01}]"`,
			`"[{\"txid\":\"myid\",\"vout\":0}]" "[{\"data\":\"00010203\"}]"`,
		},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			rbf, err := optBool(req, 3)
			if err != nil {
				return nil, err
			}
			version, err := txVersionArg(req, 4)
			if err != nil {
				return nil, err
			}
			tx, err := constructTransaction(d.Net, req.Arg(0), req.Arg(1), req.Arg(2), rbf, version)
			if err != nil {
				return nil, err
			}
			return encodeTxHex(tx), nil
		},
	}
}
