package methods

import (
	"bytes"
	"context"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
)

// errNoPrivateKey is Core's SigningResult PRIVATE_KEY_NOT_AVAILABLE.
var errNoPrivateKey = rpc.NewError(rpc.CodeWalletError, "Private key not available")

// newSignMessage returns the signmessage method.
func newSignMessage(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "signmessage",
		Category: walletCategory,
		Description: "Sign a message with the private key of an address\n" +
			"Requires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.",
		Params: []rpc.Param{
			{Name: "address", Type: rpc.TypeString, Description: "The bitcoin address to use for the private key."},
			{Name: "message", Type: rpc.TypeString, Description: "The message to create a signature of."},
		},
		Result:   "\"str\"    (string) The signature of the message encoded in base 64",
		Examples: []string{`"1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX" "my message"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			addr, err := req.String(0)
			if err != nil {
				return nil, err
			}
			msg, err := req.String(1)
			if err != nil {
				return nil, err
			}
			spk, keyID, err := messageAddress(addr, d)
			if err != nil {
				return nil, err
			}
			key, err := walletMessageKey(w, spk, keyID)
			if err != nil {
				return nil, err
			}
			defer key.Zero()
			sig, err := sign.SignMessage(key, msg)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey, "Sign failed")
			}
			return sig, nil
		},
	}
}

// walletMessageKey is the wallet's private key whose HASH160 is keyID,
// among the keys of the descriptors that give spk (Core's
// DescriptorScriptPubKeyMan::SignMessage); Core's -4 "Private key not
// available" when the wallet has no such key. The caller zeroes the key.
func walletMessageKey(w *wallet.Wallet, spk, keyID []byte) (*sign.Key, error) {
	outs, err := w.SigningOutputs([][]byte{spk})
	if err != nil {
		return nil, MapError(err)
	}
	for _, o := range outs {
		for _, k := range o.Keys {
			id := script.Hash160(k.PubKey)
			if k.PrivKey == nil || !bytes.Equal(id[:], keyID) {
				continue
			}
			priv := secp256k1.PrivKeyFromBytes(k.PrivKey)
			if key := sign.NewKeyWithPubKey(priv, k.PubKey); key != nil {
				return key, nil
			}
			priv.Zero()
		}
	}
	return nil, errNoPrivateKey
}
