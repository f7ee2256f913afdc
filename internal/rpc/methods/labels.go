package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
)

// newSetLabel returns the setlabel method.
func newSetLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "setlabel",
		Category:    walletCategory,
		Description: "Gives an address a label.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address."},
			{Name: "label", Type: rpc.TypeString, Description: "The label."},
		},
		Result:   "null    (json null)",
		Examples: []string{`"bcrt1q..." "tabby"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			a, err := req.String(0)
			if err != nil {
				return nil, err
			}
			spk, err := address.Decode(a, d.Net)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid Bitcoin address")
			}
			label, err := req.String(1)
			if err != nil {
				return nil, err
			}
			if err := w.SetLabel(ctx, spk, label); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}

// newListLabels returns the listlabels method.
func newListLabels(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listlabels",
		Category:    walletCategory,
		Description: "Lists the labels in use, optionally only those of one purpose.",
		Params: []rpc.Param{
			{Name: "purpose", Type: rpc.TypeString, Optional: true, Description: `"send" or "receive".`},
		},
		Result:   "[ \"str\", ... ]",
		Examples: []string{"", `"receive"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			purpose := ""
			if req.Has(0) {
				if purpose, err = req.String(0); err != nil {
					return nil, err
				}
			}
			return w.Labels(purpose), nil
		},
	}
}

type purposeEntry struct {
	Purpose string `json:"purpose"`
}

// newGetAddressesByLabel returns the getaddressesbylabel method.
func newGetAddressesByLabel(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getaddressesbylabel",
		Category:    walletCategory,
		Description: "Lists the addresses that carry a label, with their purposes.",
		Params: []rpc.Param{
			{Name: "label", Type: rpc.TypeString, Description: "The label."},
		},
		Result:   "{ \"address\" : { \"purpose\" : \"str\" }, ... }",
		Examples: []string{`"tabby"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			label, err := req.String(0)
			if err != nil {
				return nil, err
			}
			if label == "*" {
				return nil, rpc.NewError(rpc.CodeWalletInvalidLabelName, "Invalid label name")
			}
			res := map[string]purposeEntry{}
			for spk, purpose := range w.AddressesByLabel(label) {
				if a, ok := address.Encode([]byte(spk), d.Net); ok {
					res[a] = purposeEntry{Purpose: purpose}
				}
			}
			if len(res) == 0 {
				return nil, rpc.NewError(rpc.CodeWalletInvalidLabelName, "No addresses with label "+label)
			}
			return res, nil
		},
	}
}

// newKeypoolRefill returns the keypoolrefill method.
func newKeypoolRefill(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "keypoolrefill",
		Category:    walletCategory,
		Description: "Derives addresses ahead of the next index of every active descriptor.",
		Params: []rpc.Param{
			{Name: "newsize", Type: rpc.TypeNumber, Optional: true, Default: "the -keypool setting", Description: "How many addresses to keep derived ahead."},
		},
		Result:   "null    (json null)",
		Examples: []string{"", "100"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			var size int64
			if req.Has(0) {
				n, err := req.Int(0)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid parameter, expected valid size.")
				}
				size = int64(n)
			}
			if err := w.KeypoolRefill(ctx, size); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
