package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/psbt"
)

// newWalletProcessPSBT returns the walletprocesspsbt method.
func newWalletProcessPSBT(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "walletprocesspsbt",
		Category: walletCategory,
		Description: "Update a PSBT with input information from our wallet and then sign inputs\n" +
			"that we can sign for.\n" +
			"Requires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The transaction base64 string"},
			{Name: "sign", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Also sign the transaction when updating (requires wallet to be unlocked)"},
			{Name: "sighashtype", Type: rpc.TypeString, Optional: true, Default: `"DEFAULT for Taproot, ALL otherwise"`,
				Description: "The signature hash type to sign with if not specified by the PSBT. Must be one of\n" +
					"\"DEFAULT\"\n\"ALL\"\n\"NONE\"\n\"SINGLE\"\n\"ALL|ANYONECANPAY\"\n\"NONE|ANYONECANPAY\"\n\"SINGLE|ANYONECANPAY\""},
			{Name: "bip32derivs", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Include BIP 32 derivation paths for public keys if we know them"},
			{Name: "finalize", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Also finalize inputs if possible"},
		},
		Result: "{                             (json object)\n" +
			"  \"psbt\" : \"str\",              (string) The base64-encoded partially signed transaction\n" +
			"  \"complete\" : true|false,     (boolean) If the transaction has a complete set of signatures\n" +
			"  \"hex\" : \"hex\"                (string, optional) The hex-encoded network transaction if complete\n" +
			"}",
		Examples: []string{`"psbt"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			p, err := decodePSBTArg(s)
			if err != nil {
				return nil, err
			}
			sighash, err := parsePSBTSighash(req, 2)
			if err != nil {
				return nil, err
			}
			signing, err := boolOr(req, 1, true)
			if err != nil {
				return nil, err
			}
			bip32derivs, err := boolOr(req, 3, true)
			if err != nil {
				return nil, err
			}
			finalize, err := boolOr(req, 4, true)
			if err != nil {
				return nil, err
			}
			if signing {
				if err := w.EnsureUnlocked(); err != nil {
					return nil, MapError(err)
				}
			}

			if err := fillWalletPSBT(ctx, w, p, sighash, signing, bip32derivs, finalize); err != nil {
				return nil, err
			}
			return processReply(p), nil
		},
	}
}

// fillWalletPSBT is Core's CWallet::FillPSBT: the previous transaction of
// every input not yet signed when the wallet holds it, what the wallet's
// descriptors know of the inputs' and outputs' scripts and of the keys the
// inputs' BIP 32 derivations list, and signatures with the wallet's keys
// when signing.
func fillWalletPSBT(ctx context.Context, w *wallet.Wallet, p *psbt.Packet, sighash *uint32, signing, bip32derivs, finalize bool) error {
	for i, in := range p.UnsignedTx.TxIn {
		pin := &p.Inputs[i]
		if pin.IsFinalized() || pin.NonWitnessUTXO != nil {
			continue
		}
		if prev, ok := w.WalletTx(ctx, in.PreviousOutPoint.Hash); ok {
			pin.NonWitnessUTXO = prev.Copy()
		}
	}
	// What the wallet's descriptors know of the inputs' and outputs'
	// scripts; keys only when signing.
	var scripts [][]byte
	for i, in := range p.UnsignedTx.TxIn {
		if spk := psbtInputScript(p, i, in.PreviousOutPoint.Index); spk != nil {
			scripts = append(scripts, spk)
		}
	}
	for _, out := range p.UnsignedTx.TxOut {
		scripts = append(scripts, out.PkScript)
	}
	ps := &sign.PSBTSigner{Provider: sign.NewProvider(), Origins: sign.NewOrigins()}
	defer ps.Provider.Zero()
	for _, o := range w.ScriptOutputs(scripts) {
		addOutput(ps, o, signing)
	}
	// The keys the inputs list in their BIP 32 derivations, when the
	// wallet derives them.
	var keys [][]byte
	var paths [][]uint32
	for i := range p.Inputs {
		for k, o := range p.Inputs[i].BIP32Derivs {
			keys, paths = append(keys, []byte(k)), append(paths, o.Path)
		}
		for k, o := range p.Inputs[i].TapBIP32Derivs {
			keys, paths = append(keys, append([]byte(nil), k[:]...)), append(paths, o.Origin.Path)
		}
	}
	for _, o := range w.KeyOutputs(keys, paths) {
		addOutput(ps, o, signing)
	}
	ps.HideOrigins = !bip32derivs
	if err := ps.SignPSBT(p, sighash, finalize); err != nil {
		return signPSBTError(err)
	}
	return nil
}

// psbtInputScript is the script an input spends, from its witness UTXO or
// its previous transaction; nil when the PSBT has neither.
func psbtInputScript(p *psbt.Packet, i int, vout uint32) []byte {
	in := &p.Inputs[i]
	if in.WitnessUTXO != nil {
		return in.WitnessUTXO.PkScript
	}
	if in.NonWitnessUTXO != nil && int(vout) < len(in.NonWitnessUTXO.TxOut) {
		return in.NonWitnessUTXO.TxOut[vout].PkScript
	}
	return nil
}
