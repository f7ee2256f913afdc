package methods

import (
	"context"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/wallet"
)

// newSignRawTransactionWithWallet returns the signrawtransactionwithwallet
// method.
func newSignRawTransactionWithWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "signrawtransactionwithwallet",
		Category: walletCategory,
		Description: "Sign inputs for raw transaction (serialized, hex-encoded).\n" +
			"The second optional argument (may be null) is an array of previous transaction outputs that\n" +
			"this transaction depends on but may not yet be in the block chain.\n" +
			"Requires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.",
		Params: []rpc.Param{
			{Name: "hexstring", Type: rpc.TypeString, Description: "The transaction hex string"},
			{Name: "prevtxs", Type: rpc.TypeArray, Optional: true,
				Description: "The previous dependent transaction outputs",
				Fields: []rpc.Param{{Name: "", Type: rpc.TypeObject, Fields: []rpc.Param{
					{Name: "txid", Type: rpc.TypeHex, Description: "The transaction id"},
					{Name: "vout", Type: rpc.TypeNumber, Description: "The output number"},
					{Name: "scriptPubKey", Type: rpc.TypeHex, Description: "The output script"},
					{Name: "redeemScript", Type: rpc.TypeHex, Optional: true, Description: "(required for P2SH) redeem script"},
					{Name: "witnessScript", Type: rpc.TypeHex, Optional: true, Description: "(required for P2WSH or P2SH-P2WSH) witness script"},
					{Name: "amount", Type: rpc.TypeAmount, Optional: true, Description: "(required for Segwit inputs) the amount spent"},
				}}}},
			{Name: "sighashtype", Type: rpc.TypeString, Optional: true, Default: `"DEFAULT for Taproot, ALL otherwise"`,
				Description: "The signature hash type. Must be one of\n" +
					"\"DEFAULT\"\n\"ALL\"\n\"NONE\"\n\"SINGLE\"\n\"ALL|ANYONECANPAY\"\n\"NONE|ANYONECANPAY\"\n\"SINGLE|ANYONECANPAY\""},
		},
		Result: "{\n  \"hex\" : \"hex\",        (string) The hex-encoded raw transaction with signature(s)\n" +
			"  \"complete\" : true|false,  (boolean) If the transaction has a complete set of signatures\n" +
			"  \"errors\" : [ {           (json array, optional) Script verification errors (if there are any)\n" +
			"      \"txid\", \"vout\", \"witness\", \"scriptSig\", \"sequence\", \"error\" } ]\n}",
		Examples: []string{`"myhex"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			return signRawTransactionWithWallet(ctx, d, w, req)
		},
	}
}

// signRawTransactionWithWallet is Core's handler after the wallet is
// found: the transaction, the wallet's lock, the coins the chain knows,
// prevtxs (their scripts are not read: the wallet's are used), the
// sighash type; then every input is signed with what the wallet's
// descriptors give for the coin's script.
func signRawTransactionWithWallet(ctx context.Context, d *Deps, w *wallet.Wallet, req *rpc.Request) (any, error) {
	hexTx, err := req.String(0)
	if err != nil {
		return nil, err
	}
	tx, err := sign.DecodeTx(hexTx)
	if err != nil {
		return nil, err
	}
	if err := w.EnsureUnlocked(); err != nil {
		return nil, MapError(err)
	}

	coins := make(sign.Coins, len(tx.TxIn))
	if find := backendCoins(ctx, d); find != nil {
		if err := find(tx, coins); err != nil {
			return nil, err
		}
	}
	if err := readPrevTxs(req, 1, nil, coins); err != nil {
		return nil, err
	}
	hashType, err := parseSighash(req, 2)
	if err != nil {
		return nil, err
	}

	scripts := make([][]byte, 0, len(coins))
	for _, in := range tx.TxIn {
		if c := coins[in.PreviousOutPoint]; c != nil {
			scripts = append(scripts, c.PkScript)
		}
	}
	outs, err := w.SigningOutputs(scripts)
	if err != nil {
		return nil, MapError(err)
	}
	provider := walletProvider(outs)
	defer provider.Zero()
	inputErrs, err := sign.SignTransactionContext(ctx, tx, coins, provider, hashType)
	if err != nil {
		return nil, err
	}
	return buildSignResult(tx, inputErrs), nil
}

// walletProvider is a signing provider with what the wallet's expanded
// outputs know: private keys, public keys, scripts and taproot spend data
// (Core's merged signing providers of the descriptors involved). The
// caller zeroes it once done.
func walletProvider(outs []descriptor.Output) *sign.Provider {
	p := sign.NewProvider()
	for _, o := range outs {
		for _, k := range o.Keys {
			if k.PrivKey != nil {
				priv := secp256k1.PrivKeyFromBytes(k.PrivKey)
				if key := sign.NewKeyWithPubKey(priv, k.PubKey); key != nil {
					p.AddKey(key)
				}
			}
			p.AddPubKey(k.PubKey)
		}
		for _, s := range o.Scripts {
			p.AddScript(s)
		}
		if o.RedeemScript != nil {
			p.AddScript(o.RedeemScript)
		}
		if o.WitnessScript != nil {
			p.AddScript(o.WitnessScript)
		}
		trees := map[[32]byte]*descriptor.Taproot{}
		for k, t := range o.Trees {
			trees[k] = t
		}
		if o.Taproot != nil {
			trees[o.Taproot.OutputKey] = o.Taproot
		}
		for outputKey, t := range trees {
			sd := sign.TaprootSpendData{InternalKey: t.InternalKey, MerkleRoot: t.MerkleRoot}
			for _, l := range t.Leaves {
				sd.Leaves = append(sd.Leaves, sign.TapLeaf{LeafVersion: l.LeafVersion,
					Script: l.Script, ControlBlock: l.ControlBlock})
			}
			p.AddTaprootSpendData(outputKey, sd)
		}
	}
	return p
}
