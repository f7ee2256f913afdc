package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
)

// newSignMessageWithPrivKey returns the signmessagewithprivkey method.
func newSignMessageWithPrivKey(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "signmessagewithprivkey",
		Category:    "util",
		Description: "Signs a message with a private key, in the form verifymessage checks.",
		Params: []rpc.Param{
			{Name: "privkey", Type: rpc.TypeString, Description: "The private key, in WIF."},
			{Name: "message", Type: rpc.TypeString, Description: "The message to sign."},
		},
		Result:   "\"str\"    (string) The signature, base64-encoded",
		Examples: []string{`"privkey" "my message"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			wif, err := req.String(0)
			if err != nil {
				return nil, err
			}
			msg, err := req.String(1)
			if err != nil {
				return nil, err
			}
			key, err := sign.DecodeWIF(wif, d.Net)
			if err != nil {
				return nil, err
			}
			defer key.Zero()
			return sign.SignMessage(key, msg)
		},
	}
}

// newVerifyMessage returns the verifymessage method.
func newVerifyMessage(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "verifymessage",
		Category:    "util",
		Description: "Checks a message signature made with the key of a P2PKH address.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The P2PKH address whose key signed."},
			{Name: "signature", Type: rpc.TypeString, Description: "The signature, base64-encoded (as signmessage gives it)."},
			{Name: "message", Type: rpc.TypeString, Description: "The message that was signed."},
		},
		Result:   "true|false    (boolean) Whether the signature is valid",
		Examples: []string{`"mz3YsrsQM9Rdd4JCeGFs1NL9z3iXkY18mg" "signature" "my message"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			addr, err := req.String(0)
			if err != nil {
				return nil, err
			}
			sig, err := req.String(1)
			if err != nil {
				return nil, err
			}
			msg, err := req.String(2)
			if err != nil {
				return nil, err
			}
			_, keyID, err := messageAddress(addr, d)
			if err != nil {
				return nil, err
			}
			switch sign.VerifyMessage(keyID, sig, msg) {
			case sign.MessageOK:
				return true, nil
			case sign.MessageMalformed:
				return nil, rpc.NewError(rpc.CodeTypeError, "Malformed base64 encoding")
			}
			return false, nil
		},
	}
}

// messageAddress decodes the address of a message signature, which must be
// P2PKH, to its script and key hash: Core's -5 "Invalid address" when it
// does not decode, -3 "Address does not refer to key" for another kind.
func messageAddress(addr string, d *Deps) (spk, keyID []byte, err error) {
	spk, err = address.Decode(addr, d.Net)
	if err != nil {
		return nil, nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Invalid address")
	}
	class, sol := script.Solve(spk)
	if class != script.PubKeyHash {
		return nil, nil, rpc.NewError(rpc.CodeTypeError, "Address does not refer to key")
	}
	return spk, sol[0], nil
}
