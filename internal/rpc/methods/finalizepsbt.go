package methods

import (
	"bytes"
	"context"
	"encoding/hex"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
)

// finalizeResult is finalizepsbt's reply: psbt or hex, then complete.
type finalizeResult struct {
	PSBT     string `json:"psbt,omitempty"`
	Hex      string `json:"hex,omitempty"`
	Complete bool   `json:"complete"`
}

// newFinalizePSBT returns the finalizepsbt method (Core's Finalizer and
// Extractor roles).
func newFinalizePSBT(_ *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "finalizepsbt",
		Category: "rawtransactions",
		Description: "Finalizes the inputs of a PSBT whose partial data suffices (the Finalizer role). When every input is\n" +
			"final and extract is true, the network transaction is returned (the Extractor role); otherwise the PSBT.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The PSBT, base64."},
			{Name: "extract", Type: rpc.TypeBool, Optional: true, Default: "true",
				Description: "Return the transaction hex when complete, instead of the PSBT."},
		},
		Result: "{                             (json object)\n" +
			"  \"psbt\" : \"str\",              (string, optional) The PSBT, base64, when not extracted\n" +
			"  \"hex\" : \"hex\",               (string, optional) The transaction, when extracted\n" +
			"  \"complete\" : true|false      (boolean) Whether every input is final\n" +
			"}",
		Examples: []string{`"psbt"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			p, err := decodePSBTArg(s)
			if err != nil {
				return nil, err
			}
			extract := true
			if req.Has(1) {
				if extract, err = req.Bool(1); err != nil {
					return nil, err
				}
			}
			tx, complete := sign.FinalizeAndExtract(p)
			if complete && extract {
				var buf bytes.Buffer
				_ = tx.Serialize(&buf)
				return &finalizeResult{Hex: hex.EncodeToString(buf.Bytes()), Complete: true}, nil
			}
			return &finalizeResult{PSBT: p.Base64(), Complete: complete}, nil
		},
	}
}
