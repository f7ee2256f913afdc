package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newLoadWallet returns the loadwallet method.
func newLoadWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "loadwallet",
		Category:    walletCategory,
		Description: "Loads a wallet from the wallets folder (or an absolute path).",
		Params: []rpc.Param{
			{Name: "filename", Type: rpc.TypeString, Description: "The wallet's name."},
			startupParam,
		},
		Result:   "{\n  \"name\" : \"str\",        (string) The wallet's name\n  \"warnings\" : [ \"str\" ]  (json array, optional) Warnings\n}",
		Examples: []string{`"mywallet"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, rpc.NewError(rpc.CodeMethodNotFound, "Method not found")
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			startup, err := optBool(req, 1)
			if err != nil {
				return nil, err
			}
			w, warnings, err := d.Wallets.Load(ctx, name, startup)
			if err != nil {
				return nil, MapError(err)
			}
			if d.Chain != nil {
				d.Chain.Track(w, false)
			}
			return loadResult{Name: w.Name(), Warnings: warnings}, nil
		},
	}
}
