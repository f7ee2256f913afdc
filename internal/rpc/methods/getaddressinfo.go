package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
)

// newGetAddressInfo returns the getaddressinfo method.
func newGetAddressInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getaddressinfo",
		Category:    walletCategory,
		Description: "Tells what the wallet knows of an address: whether it is the wallet's, the descriptor that derives it, its key, labels and change status.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address."},
		},
		Result:   "{ \"address\", \"scriptPubKey\", \"ismine\", \"solvable\", \"desc\", \"parent_desc\", ... \"labels\" }",
		Examples: []string{`"bcrt1q..."`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, a, err := walletAndString(d, req)
			if err != nil {
				return nil, err
			}
			spk, err := address.Decode(a, d.Net)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, err.Error())
			}
			b, err := w.AddressInfoJSON(spk, canonicalJSON)
			if err != nil {
				return nil, err
			}
			return rpc.CanonicalJSON(b), nil
		},
	}
}

// canonicalJSON puts a reply in Core's output form once, before the wallet
// keeps it.
func canonicalJSON(b []byte) ([]byte, error) { return rpc.RawJSON(b).MarshalJSON() }
