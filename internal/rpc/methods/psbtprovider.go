package methods

import (
	"encoding/json"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// defaultScanRange is Core's default range of a ranged descriptor given
// to the PSBT updaters: [0, 1000].
const defaultScanRange = 1000

// psbtSignerFromDescriptors is Core's EvalDescriptorStringOrObject over
// each element of a descriptors argument (a string, or an object with desc
// and range), filling one signer: keys (with privateKeys), public keys,
// key origins, scripts and taproot trees of every expanded output.
func psbtSignerFromDescriptors(raw json.RawMessage, net *chaincfg.Params, privateKeys bool) (*sign.PSBTSigner, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, rpc.TypeError(rpc.JSONType(raw), "array")
	}
	prov := sign.NewProvider()
	ps := &sign.PSBTSigner{Provider: prov, Origins: sign.NewOrigins()}
	for _, e := range elems {
		var descStr string
		lo, hi := int64(0), int64(defaultScanRange)
		switch rpc.JSONType(e) {
		case "string":
			descStr, _ = rpc.AsString(e)
		case "object":
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(e, &obj); err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Scan object needs to be either a string or an object")
			}
			d, ok := obj["desc"]
			if !ok || rpc.JSONType(d) == "null" {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Descriptor needs to be provided in scan object")
			}
			s, err := rpc.AsString(d)
			if err != nil {
				return nil, err
			}
			descStr = s
			if r, ok := obj["range"]; ok && rpc.JSONType(r) != "null" {
				if lo, hi, err = parseDescriptorRange(r); err != nil {
					return nil, err
				}
			}
		default:
			return nil, rpc.NewError(rpc.CodeInvalidParameter, "Scan object needs to be either a string or an object")
		}
		desc, err := descriptor.Parse(descStr, net)
		if err != nil {
			return nil, MapError(err)
		}
		branches := desc.Multipath()
		if !branches[0].IsRange() {
			lo, hi = 0, 0
		}
		for i := lo; i <= hi; i++ {
			for _, b := range branches {
				outs, err := b.Expand(uint32(i), nil)
				if err != nil {
					return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey,
						fmt.Sprintf("Cannot derive script without private keys: '%s'", descStr))
				}
				for _, o := range outs {
					addOutput(ps, o, privateKeys)
				}
			}
		}
	}
	return ps, nil
}

// addOutput adds what one expanded output knows to the signer.
func addOutput(ps *sign.PSBTSigner, o descriptor.Output, privateKeys bool) {
	for _, k := range o.Keys {
		if privateKeys && k.PrivKey != nil {
			priv, _ := btcec.PrivKeyFromBytes(k.PrivKey)
			ps.Provider.AddKey(sign.NewKey(priv, len(k.PubKey) != 65))
		}
		ps.Provider.AddPubKey(k.PubKey)
		ps.Origins.Add(k.PubKey, psbt.KeyOrigin{Fingerprint: k.Origin.Fingerprint, Path: k.Origin.Path})
	}
	for _, s := range o.Scripts {
		ps.Provider.AddScript(s)
	}
	if o.RedeemScript != nil {
		ps.Provider.AddScript(o.RedeemScript)
	}
	if o.WitnessScript != nil {
		ps.Provider.AddScript(o.WitnessScript)
	}
	trees := map[[32]byte]*descriptor.Taproot{}
	for k, t := range o.Trees {
		trees[k] = t
	}
	if o.Taproot != nil {
		trees[o.Taproot.OutputKey] = o.Taproot
	}
	for outputKey, t := range trees {
		tt := sign.TapTree{InternalKey: t.InternalKey, MerkleRoot: t.MerkleRoot}
		for _, l := range t.Leaves {
			tt.Leaves = append(tt.Leaves, sign.TapTreeLeaf{Depth: l.Depth, LeafVersion: l.LeafVersion,
				Script: l.Script, ControlBlock: l.ControlBlock})
		}
		ps.AddTapTree(outputKey, tt)
	}
}
