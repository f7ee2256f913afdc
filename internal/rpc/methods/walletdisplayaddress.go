package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
)

// newWalletDisplayAddress returns the walletdisplayaddress method. A
// descwallet wallet never has an external signer, so a valid address gets
// Core's answer for a wallet without one.
func newWalletDisplayAddress(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "walletdisplayaddress",
		Category: walletCategory,
		Description: "Shows an address on the wallet's external signer for checking. descwallet has no external signers, " +
			"so a valid address always gets Core's answer for a wallet without one (-1 \"There is no ScriptPubKeyManager for this address\").",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The address to show."},
		},
		Result:   "{\n  \"address\" : \"str\"   (string) The address as the signer confirmed it\n}",
		Examples: []string{`"bcrt1q..."`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if _, err := requestWallet(d, req); err != nil {
				return nil, err
			}
			a, err := req.String(0)
			if err != nil {
				return nil, err
			}
			if _, err := address.Decode(a, d.Net); err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid address")
			}
			return nil, rpc.NewError(rpc.CodeMisc, "There is no ScriptPubKeyManager for this address")
		},
	}
}
