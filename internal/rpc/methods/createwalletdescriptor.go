package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

type createWalletDescriptorResult struct {
	Descs []string `json:"descs"`
}

// newCreateWalletDescriptor returns the createwalletdescriptor method.
func newCreateWalletDescriptor(d *Deps) *rpc.Method {
	fields := []rpc.Param{
		{Name: "internal", Type: rpc.TypeBool, Optional: true, Default: "both sides",
			Description: "Make only the change descriptor (true) or only the receive one (false); without it both are made."},
		{Name: "hdkey", Type: rpc.TypeString, Optional: true, Default: "the one key of the active descriptors",
			Description: "The xpub (as gethdkeys lists it) whose private key the wallet holds, to derive the descriptors from."},
	}
	return &rpc.Method{
		Name:     "createwalletdescriptor",
		Category: walletCategory,
		Description: "Adds to the wallet the active descriptors of an address type, derived from one of its HD keys " +
			"along the standard path of that type (BIP 44, 49, 84 or 86). The wallet must not have them already.\n" +
			"An encrypted wallet must be unlocked first (walletpassphrase). The options may also be given as named arguments.",
		Params: []rpc.Param{
			{Name: "type", Type: rpc.TypeString, Description: "The address type: \"legacy\", \"p2sh-segwit\", \"bech32\" or \"bech32m\"."},
			{Name: "options", Type: rpc.TypeObject, Optional: true, NamedOnly: paramNames(fields), Fields: fields, Description: "Which descriptors and which key"},
		},
		Result:   "{\n  \"descs\" : [ \"str\", ... ]  (json array) The public forms of the descriptors added\n}",
		Examples: []string{"bech32m", `bech32 '{"internal": false}'`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			typ, ok := wallet.ParseOutputType(name)
			if !ok {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Unknown address type '"+name+"'")
			}
			opts, err := optionMembers(req.Arg(1))
			if err != nil {
				return nil, err
			}
			var internal *bool
			if v := opts["internal"]; !rpc.IsNull(v) {
				b, err := rpc.AsBool(v)
				if err != nil {
					return nil, err
				}
				internal = &b
			}
			// Core reads hdkey as a string only once the wallet is
			// known to be unlocked.
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			var hdkey *string
			if v := opts["hdkey"]; !rpc.IsNull(v) {
				s, err := rpc.AsString(v)
				if err != nil {
					return nil, err
				}
				hdkey = &s
			}
			descs, err := w.CreateWalletDescriptor(ctx, typ, internal, hdkey)
			if err != nil {
				return nil, MapError(err)
			}
			return createWalletDescriptorResult{Descs: descs}, nil
		},
	}
}
