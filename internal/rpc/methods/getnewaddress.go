package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newGetNewAddress returns the getnewaddress method.
func newGetNewAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getnewaddress",
		Category:    walletCategory,
		Description: "Hands out the next receiving address of the active descriptor of the address type.",
		Params: []rpc.Param{
			{Name: "label", Type: rpc.TypeString, Optional: true, Default: `""`, Description: "Label of the address."},
			{Name: "address_type", Type: rpc.TypeString, Optional: true, Default: `"bech32"`, Description: `"legacy", "p2sh-segwit", "bech32" or "bech32m".`},
		},
		Result:   `"str"    (string) The address`,
		Examples: []string{"", `"" "bech32m"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			label, err := optString(req, 0)
			if err != nil {
				return nil, err
			}
			typ, err := optString(req, 1)
			if err != nil {
				return nil, err
			}
			addr, err := w.NewAddressOfType(ctx, false, typ, label)
			if err != nil {
				return nil, MapError(err)
			}
			return addr, nil
		},
	}
}

// newGetRawChangeAddress returns the getrawchangeaddress method.
func newGetRawChangeAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getrawchangeaddress",
		Category:    walletCategory,
		Description: "Hands out the next change address of the active descriptor of the address type.",
		Params: []rpc.Param{
			{Name: "address_type", Type: rpc.TypeString, Optional: true, Default: `"bech32"`, Description: `"legacy", "p2sh-segwit", "bech32" or "bech32m".`},
		},
		Result:   `"str"    (string) The address`,
		Examples: []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			typ, err := optString(req, 0)
			if err != nil {
				return nil, err
			}
			addr, err := w.NewAddressOfType(ctx, true, typ, nil)
			if err != nil {
				return nil, MapError(err)
			}
			return addr, nil
		},
	}
}
