package methods

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/txscript/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// processResult is descriptorprocesspsbt's reply.
type processResult struct {
	PSBT     string `json:"psbt"`
	Complete bool   `json:"complete"`
	Hex      string `json:"hex,omitempty"`
}

// processReply is the reply of walletprocesspsbt and descriptorprocesspsbt
// for the processed packet: complete when every input is final, with the
// network transaction then.
func processReply(p *psbt.Packet) *processResult {
	res := &processResult{PSBT: p.Base64(), Complete: true}
	for i := range p.Inputs {
		res.Complete = res.Complete && p.Inputs[i].IsFinalized()
	}
	if res.Complete {
		res.Hex = extractHex(p)
	}
	return res
}

// parseSighash is Core's ParseSighashString for argument i: SIGHASH_DEFAULT
// when the argument is absent or null.
func parseSighash(req *rpc.Request, i int) (txscript.SigHashType, error) {
	if !req.Has(i) {
		return sign.SigHashDefault, nil
	}
	s, err := req.String(i)
	if err != nil {
		return 0, err
	}
	ht, ok := sighashTypes[s]
	if !ok {
		return 0, rpc.NewError(rpc.CodeInvalidParameter, fmt.Sprintf("'%s' is not a valid sighash parameter.", s))
	}
	return ht, nil
}

// parsePSBTSighash is parseSighash for the PSBT calls: null is none given.
func parsePSBTSighash(req *rpc.Request, i int) (*uint32, error) {
	if !req.Has(i) {
		return nil, nil
	}
	ht, err := parseSighash(req, i)
	if err != nil {
		return nil, err
	}
	v := uint32(ht)
	return &v, nil
}

// signPSBTError maps the signer's failure to Core's RPC error (the
// sighash mismatch's row of errTable).
func signPSBTError(err error) error { return MapError(err) }

// extractHex returns the network hex of a packet whose inputs are all
// final. Core runs FinalizeAndExtractPSBT on a copy, which for inputs that
// are all final only assembles their final scripts; they are assembled
// here directly, without verifying the inputs a second time.
func extractHex(p *psbt.Packet) string {
	tx := p.UnsignedTx.Copy()
	for i, in := range tx.TxIn {
		in.SignatureScript = p.Inputs[i].FinalScriptSig
		in.Witness = p.Inputs[i].FinalScriptWitness
	}
	var buf bytes.Buffer
	_ = tx.Serialize(&buf)
	return hex.EncodeToString(buf.Bytes())
}

// newDescriptorProcessPSBT returns the descriptorprocesspsbt method.
func newDescriptorProcessPSBT(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "descriptorprocesspsbt",
		Category: "rawtransactions",
		Description: "Updates a PSBT with what the given descriptors know (scripts, key origins, taproot data), signs the\n" +
			"inputs their private keys can sign, and finalizes complete inputs.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The PSBT, base64."},
			{Name: "descriptors", Type: rpc.TypeArray, Description: "Descriptors, each a string or an object {\"desc\": str, \"range\": n or [n,n]} (default range [0,1000])."},
			{Name: "sighashtype", Type: rpc.TypeString, Optional: true, Default: `"DEFAULT for Taproot, ALL otherwise"`,
				Description: "The signature hash type: DEFAULT, ALL, NONE, SINGLE, ALL|ANYONECANPAY, NONE|ANYONECANPAY, SINGLE|ANYONECANPAY."},
			{Name: "bip32derivs", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Include BIP 32 derivation paths for keys when known."},
			{Name: "finalize", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Finalize inputs when possible."},
		},
		Result: "{                             (json object)\n" +
			"  \"psbt\" : \"str\",              (string) The PSBT, base64\n" +
			"  \"complete\" : true|false,     (boolean) Whether every input is final\n" +
			"  \"hex\" : \"hex\"                (string, optional) The network transaction, when complete\n" +
			"}",
		Examples: []string{`"psbt" "[\"descriptor1\", \"descriptor2\"]"`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			ps, err := psbtSignerFromDescriptors(req.Arg(1), d.Net, true)
			if err != nil {
				return nil, err
			}
			sighash, err := parsePSBTSighash(req, 2)
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
			p, err := decodePSBTArg(s)
			if err != nil {
				return nil, err
			}
			ps.HideOrigins = !bip32derivs
			if err := ps.SignPSBT(p, sighash, finalize); err != nil {
				return nil, signPSBTError(err)
			}
			return processReply(p), nil
		},
	}
}
