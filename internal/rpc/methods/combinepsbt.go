package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/psbt"
)

// newCombinePSBT returns the combinepsbt method (Core's Combiner role).
func newCombinePSBT(_ *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "combinepsbt",
		Category:    "rawtransactions",
		Description: "Combines PSBTs of the same transaction into one, keeping every signature and field (the Combiner role).",
		Params: []rpc.Param{
			{Name: "txs", Type: rpc.TypeArray, Description: "The PSBTs, base64.",
				Fields: []rpc.Param{{Name: "psbt", Type: rpc.TypeString, Optional: true, Description: "A PSBT, base64."}}},
		},
		Result:   "\"str\"    (string) The combined PSBT, base64",
		Examples: []string{`'["mybase64_1", "mybase64_2", "mybase64_3"]'`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			strs, err := psbtStrings(req, 0)
			if err != nil {
				return nil, err
			}
			if len(strs) == 0 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Parameter 'txs' cannot be empty")
			}
			packets := make([]*psbt.Packet, len(strs))
			for i, s := range strs {
				if packets[i], err = decodePSBTArg(s); err != nil {
					return nil, err
				}
			}
			out, err := psbt.Combine(packets)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "PSBTs not compatible (different transactions)")
			}
			return out.Base64(), nil
		},
	}
}
