package methods

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/psbt"
)

// newJoinPSBTs returns the joinpsbts method.
func newJoinPSBTs(_ *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "joinpsbts",
		Category: "rawtransactions",
		Description: "Joins PSBTs of different transactions into one with every input and output, in random order.\n" +
			"No input may be in two of them. Signatures are dropped.",
		Params: []rpc.Param{
			{Name: "txs", Type: rpc.TypeArray, Description: "The PSBTs, base64.",
				Fields: []rpc.Param{{Name: "psbt", Type: rpc.TypeString, Description: "A PSBT, base64."}}},
		},
		Result:   "\"str\"    (string) The joined PSBT, base64",
		Examples: []string{`'["psbt1", "psbt2"]'`},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			strs, err := psbtStrings(req, 0)
			if err != nil {
				return nil, err
			}
			if len(strs) <= 1 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "At least two PSBTs are required to join PSBTs.")
			}
			bestVersion, bestLocktime := uint32(1), uint32(0xffffffff)
			packets := make([]*psbt.Packet, len(strs))
			for i, s := range strs {
				p, err := decodePSBTArg(s)
				if err != nil {
					return nil, err
				}
				packets[i] = p
				bestVersion = max(bestVersion, uint32(p.UnsignedTx.Version))
				bestLocktime = min(bestLocktime, p.UnsignedTx.LockTime)
			}
			merged := psbt.New(&wire.MsgTx{Version: int32(bestVersion), LockTime: bestLocktime})
			for _, p := range packets {
				for i, txin := range p.UnsignedTx.TxIn {
					if !addInput(merged, txin, p.Inputs[i]) {
						op := txin.PreviousOutPoint
						return nil, rpc.NewError(rpc.CodeInvalidParameter,
							fmt.Sprintf("Input %s:%d exists in multiple PSBTs", op.Hash, op.Index))
					}
				}
				for i, txout := range p.UnsignedTx.TxOut {
					merged.UnsignedTx.TxOut = append(merged.UnsignedTx.TxOut, txout)
					merged.Outputs = append(merged.Outputs, p.Outputs[i])
				}
				// Core merges the global xpubs here but does not carry
				// them into the shuffled result; only unknowns survive.
				for k, v := range p.Unknown {
					if merged.Unknown == nil {
						merged.Unknown = map[string][]byte{}
					}
					if _, ok := merged.Unknown[k]; !ok {
						merged.Unknown[k] = v
					}
				}
			}
			out := psbt.New(&wire.MsgTx{Version: merged.UnsignedTx.Version, LockTime: merged.UnsignedTx.LockTime})
			out.Inputs, out.Outputs = nil, nil
			for _, i := range shuffled(len(merged.Inputs)) {
				addInput(out, merged.UnsignedTx.TxIn[i], merged.Inputs[i])
			}
			for _, i := range shuffled(len(merged.Outputs)) {
				out.UnsignedTx.TxOut = append(out.UnsignedTx.TxOut, merged.UnsignedTx.TxOut[i])
				out.Outputs = append(out.Outputs, merged.Outputs[i])
			}
			out.Unknown = merged.Unknown
			return out.Base64(), nil
		},
	}
}

// addInput is Core's PartiallySignedTransaction::AddInput: it refuses an
// input equal (outpoint, scriptSig, sequence) to one already present and
// drops the input's partial signatures and finals.
func addInput(p *psbt.Packet, txin *wire.TxIn, in psbt.Input) bool {
	for _, x := range p.UnsignedTx.TxIn {
		if x.PreviousOutPoint == txin.PreviousOutPoint && x.Sequence == txin.Sequence &&
			bytes.Equal(x.SignatureScript, txin.SignatureScript) {
			return false
		}
	}
	p.UnsignedTx.TxIn = append(p.UnsignedTx.TxIn, txin)
	in.PartialSigs, in.FinalScriptSig, in.FinalScriptWitness = nil, nil, nil
	p.Inputs = append(p.Inputs, in)
	return true
}

// shuffled returns a uniformly random permutation of 0..n-1.
func shuffled(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := n - 1; i > 0; i-- {
		var b [8]byte
		_, _ = rand.Read(b[:])
		j := int(binary.LittleEndian.Uint64(b[:]) % uint64(i+1))
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}
