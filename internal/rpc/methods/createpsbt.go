package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/psbt"
)

// newCreatePSBT returns the createpsbt method (Core's Creator role): the
// transaction createrawtransaction would build, as a PSBT with empty maps.
func newCreatePSBT(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "createpsbt",
		Category: "rawtransactions",
		Description: "Creates a PSBT spending the given inputs to the given outputs (the Creator role).\n" +
			"The transaction is built as createrawtransaction builds it; the input and output maps are empty.",
		Params:   createTxParams(),
		Result:   "\"str\"    (string) The PSBT, base64",
		Examples: []string{`"[{\"txid\":\"myid\",\"vout\":0}]" "[{\"data\":\"00010203\"}]"`},
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
			return psbt.New(tx).Base64(), nil
		},
	}
}
