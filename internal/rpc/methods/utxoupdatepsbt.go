package methods

import (
	"context"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// newUTXOUpdatePSBT returns the utxoupdatepsbt method (Core's Updater
// role without a wallet).
func newUTXOUpdatePSBT(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "utxoupdatepsbt",
		Category: "rawtransactions",
		Description: "Updates a PSBT with the scripts and key origins the given descriptors know, and, when the node follows\n" +
			"a chain, with the witness UTXOs of segwit inputs found in the UTXO set or the mempool.",
		Params: []rpc.Param{
			{Name: "psbt", Type: rpc.TypeString, Description: "The PSBT, base64."},
			{Name: "descriptors", Type: rpc.TypeArray, Optional: true,
				Description: "Descriptors, each a string or an object {\"desc\": str, \"range\": n or [n,n]} (default range [0,1000])."},
		},
		Result:   "\"str\"    (string) The updated PSBT, base64",
		Examples: []string{`"psbt"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			s, err := req.String(0)
			if err != nil {
				return nil, err
			}
			ps := &sign.PSBTSigner{Provider: sign.NewProvider(), Origins: sign.NewOrigins()}
			if req.Has(1) {
				if ps, err = psbtSignerFromDescriptors(req.Arg(1), d.Net, false); err != nil {
					return nil, err
				}
			}
			p, err := decodePSBTArg(s)
			if err != nil {
				return nil, err
			}
			if d.Chain != nil {
				fillUTXOs(ctx, d.Chain, p, ps.Provider)
			}
			if err := ps.SignPSBT(p, nil, false); err != nil {
				return nil, signPSBTError(err)
			}
			return p.Base64(), nil
		},
	}
}

// fillUTXOs is ProcessPSBT's lookup: an input without a non-witness UTXO
// gets the previous transaction when the backend has it (its mempool, or
// its transaction index), else the output from its UTXO set (mempool
// included) as witness UTXO when that is a segwit output (Core's
// IsSegWitOutput).
func fillUTXOs(ctx context.Context, c ChainService, p *psbt.Packet, prov *sign.Provider) {
	b := c.Backend()
	if b == nil {
		return
	}
	for i := range p.Inputs {
		in := &p.Inputs[i]
		if in.NonWitnessUTXO != nil {
			continue
		}
		op := p.UnsignedTx.TxIn[i].PreviousOutPoint
		if tx, _, err := b.RawTransaction(ctx, op.Hash); err == nil && tx != nil && tx.TxHash() == op.Hash {
			in.NonWitnessUTXO = tx
			continue
		}
		out, err := b.TxOut(ctx, op, true)
		if err != nil || out == nil {
			continue
		}
		if isSegWitOutput(out.PkScript, prov) {
			in.WitnessUTXO = &wire.TxOut{Value: out.Value, PkScript: out.PkScript}
		}
	}
}

// isSegWitOutput is Core's IsSegWitOutput: a witness program, or P2SH of
// one whose redeem script the provider knows.
func isSegWitOutput(pk []byte, prov *sign.Provider) bool {
	if _, _, ok := script.IsWitnessProgram(pk); ok {
		return true
	}
	class, sol := script.Solve(pk)
	if class == script.ScriptHash {
		if rs, ok := prov.Script([20]byte(sol[0])); ok {
			_, _, w := script.IsWitnessProgram(rs)
			return w
		}
	}
	return false
}
