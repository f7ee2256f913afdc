package methods

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/psbt"
)

// defaultScanRange is Core's default range of a ranged descriptor given
// to the PSBT updaters: [0, 1000].
const defaultScanRange = 1000

// descElem is one element of a descriptors argument, read.
type descElem struct {
	desc   string
	lo, hi int64
}

// psbtSignerFromDescriptors is Core's EvalDescriptorStringOrObject over
// each element of a descriptors argument (a string, or an object with desc
// and range), filling one signer: keys (with privateKeys), public keys,
// key origins, scripts and taproot trees of every expanded output. The
// elements are parsed and expanded on GOMAXPROCS goroutines (deriving keys
// is the costly part) and added in order; the first failing element in
// order gives the error, as in Core.
func psbtSignerFromDescriptors(raw json.RawMessage, net *chaincfg.Params, privateKeys bool) (*sign.PSBTSigner, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, rpc.TypeError(rpc.JSONType(raw), "array")
	}
	read := make([]descElem, len(elems))
	for i, e := range elems {
		el, err := readDescElem(e)
		if err != nil {
			return nil, err
		}
		read[i] = el
	}
	outs := make([][]descriptor.Output, len(read))
	errs := make([]error, len(read))
	var next atomic.Int64
	var g safego.Group
	for range min(runtime.GOMAXPROCS(0), len(read)) {
		g.Go("descriptor expansion", func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(read) {
					return nil
				}
				outs[i], errs[i] = expandDescElem(read[i], net)
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	prov := sign.NewProvider()
	ps := &sign.PSBTSigner{Provider: prov, Origins: sign.NewOrigins()}
	for i := range read {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, o := range outs[i] {
			addOutput(ps, o, privateKeys)
		}
	}
	return ps, nil
}

// readDescElem reads one element: a descriptor string, or an object with
// desc and an optional range (default [0, 1000]).
func readDescElem(e json.RawMessage) (descElem, error) {
	el := descElem{hi: defaultScanRange}
	switch rpc.JSONType(e) {
	case "string":
		el.desc, _ = rpc.AsString(e)
	case "object":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(e, &obj); err != nil {
			return el, rpc.NewError(rpc.CodeInvalidParameter, "Scan object needs to be either a string or an object")
		}
		d, ok := obj["desc"]
		if !ok || rpc.JSONType(d) == "null" {
			return el, rpc.NewError(rpc.CodeInvalidParameter, "Descriptor needs to be provided in scan object")
		}
		s, err := rpc.AsString(d)
		if err != nil {
			return el, err
		}
		el.desc = s
		if r, ok := obj["range"]; ok && rpc.JSONType(r) != "null" {
			if el.lo, el.hi, err = parseDescriptorRange(r); err != nil {
				return el, err
			}
		}
	default:
		return el, rpc.NewError(rpc.CodeInvalidParameter, "Scan object needs to be either a string or an object")
	}
	return el, nil
}

// expandDescElem parses a descriptor and expands it over its range (index
// 0 only when it is not ranged), every multipath branch at each index.
func expandDescElem(el descElem, net *chaincfg.Params) ([]descriptor.Output, error) {
	desc, err := descriptor.Parse(el.desc, net)
	if err != nil {
		return nil, MapError(err)
	}
	branches := desc.Multipath()
	lo, hi := el.lo, el.hi
	if !branches[0].IsRange() {
		lo, hi = 0, 0
	}
	var outs []descriptor.Output
	for i := lo; i <= hi; i++ {
		for _, b := range branches {
			o, err := b.Expand(uint32(i), nil)
			if err != nil {
				return nil, rpc.NewError(rpc.CodeInvalidAddressOrKey,
					fmt.Sprintf("Cannot derive script without private keys: '%s'", el.desc))
			}
			outs = append(outs, o...)
		}
	}
	return outs, nil
}

// addOutput adds what one expanded output knows to the signer.
func addOutput(ps *sign.PSBTSigner, o descriptor.Output, privateKeys bool) {
	for _, k := range o.Keys {
		if privateKeys && k.PrivKey != nil {
			// The scalar alone: btcec.PrivKeyFromBytes would derive the
			// public key again.
			priv := secp256k1.PrivKeyFromBytes(k.PrivKey)
			if key := sign.NewKeyWithPubKey(priv, k.PubKey); key != nil {
				ps.Provider.AddKey(key)
			}
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
