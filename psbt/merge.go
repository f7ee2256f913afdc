package psbt

import "maps"

// Combine merges packets of the same transaction into a copy of the first,
// as Core's CombinePSBTs: each field absent from the result is taken from
// the later packets, and keyed fields already present are kept.
func Combine(packets []*Packet) (*Packet, error) {
	out := packets[0].Clone()
	for _, p := range packets[1:] {
		if err := out.Merge(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Merge adds q's data into p (Core's PartiallySignedTransaction::Merge).
// Both must be version 0 packets of the same transaction.
func (p *Packet) Merge(q *Packet) error {
	if p.UnsignedTx == nil || q.UnsignedTx == nil || TxID(p.UnsignedTx) != TxID(q.UnsignedTx) {
		return &Error{Kind: ErrMismatch, Description: "PSBTs not compatible (different transactions)"}
	}
	for i := range p.Inputs {
		p.Inputs[i].Merge(&q.Inputs[i])
	}
	for i := range p.Outputs {
		p.Outputs[i].Merge(&q.Outputs[i])
	}
	for _, x := range q.XPubs {
		dup := false
		for _, y := range p.XPubs {
			if compareOrigin(x.Origin, y.Origin) == 0 && string(x.Key[13:]) == string(y.Key[13:]) {
				dup = true
				break
			}
		}
		if !dup {
			p.XPubs = append(p.XPubs, x)
		}
	}
	p.Unknown = mergeMap(p.Unknown, q.Unknown)
	return nil
}

// mergeMap inserts the entries of b missing from a (std::map::insert).
func mergeMap[K comparable, V any](a, b map[K]V) map[K]V {
	for k, v := range b {
		if a == nil {
			a = map[K]V{}
		}
		if _, ok := a[k]; !ok {
			a[k] = v
		}
	}
	return a
}

func mergeNested[K, L comparable, V any](a, b map[K]map[L]V) map[K]map[L]V {
	for k, m := range b {
		if a == nil {
			a = map[K]map[L]V{}
		}
		a[k] = mergeMap(a[k], m)
	}
	return a
}

// Merge adds o's data into in (Core's PSBTInput::Merge).
func (in *Input) Merge(o *Input) {
	fillZero(&in.NonWitnessUTXO, o.NonWitnessUTXO)
	if nullTxOut(in.WitnessUTXO) && !nullTxOut(o.WitnessUTXO) {
		in.WitnessUTXO = o.WitnessUTXO
	}
	in.PartialSigs = mergeMap(in.PartialSigs, o.PartialSigs)
	in.RIPEMD160Preimages = mergeMap(in.RIPEMD160Preimages, o.RIPEMD160Preimages)
	in.SHA256Preimages = mergeMap(in.SHA256Preimages, o.SHA256Preimages)
	in.HASH160Preimages = mergeMap(in.HASH160Preimages, o.HASH160Preimages)
	in.HASH256Preimages = mergeMap(in.HASH256Preimages, o.HASH256Preimages)
	in.BIP32Derivs = mergeMap(in.BIP32Derivs, o.BIP32Derivs)
	in.Unknown = mergeMap(in.Unknown, o.Unknown)
	in.TapScriptSigs = mergeMap(in.TapScriptSigs, o.TapScriptSigs)
	// Core inserts whole leaf entries: a leaf already present keeps its
	// control blocks.
	in.TapLeafScripts = mergeMap(in.TapLeafScripts, o.TapLeafScripts)
	in.TapBIP32Derivs = mergeMap(in.TapBIP32Derivs, o.TapBIP32Derivs)
	fillEmpty(&in.RedeemScript, o.RedeemScript)
	fillEmpty(&in.WitnessScript, o.WitnessScript)
	fillEmpty(&in.FinalScriptSig, o.FinalScriptSig)
	fillEmpty(&in.FinalScriptWitness, o.FinalScriptWitness)
	fillEmpty(&in.TapKeySig, o.TapKeySig)
	fillZero(&in.TapInternalKey, o.TapInternalKey)
	fillZero(&in.TapMerkleRoot, o.TapMerkleRoot)
	in.MuSig2Participants = mergeMap(in.MuSig2Participants, o.MuSig2Participants)
	in.MuSig2PubNonces = mergeNested(in.MuSig2PubNonces, o.MuSig2PubNonces)
	in.MuSig2PartialSigs = mergeNested(in.MuSig2PartialSigs, o.MuSig2PartialSigs)
}

// Merge adds o's data into out (Core's PSBTOutput::Merge).
func (out *Output) Merge(o *Output) {
	out.BIP32Derivs = mergeMap(out.BIP32Derivs, o.BIP32Derivs)
	out.Unknown = mergeMap(out.Unknown, o.Unknown)
	out.TapBIP32Derivs = mergeMap(out.TapBIP32Derivs, o.TapBIP32Derivs)
	fillEmpty(&out.RedeemScript, o.RedeemScript)
	fillEmpty(&out.WitnessScript, o.WitnessScript)
	fillZero(&out.TapInternalKey, o.TapInternalKey)
	fillEmpty(&out.TapTree, o.TapTree)
	out.MuSig2Participants = mergeMap(out.MuSig2Participants, o.MuSig2Participants)
}

// Clone returns a deep enough copy of p that merging into or signing the
// copy leaves p unchanged: every map and slice of the packet is new; byte
// values are shared and must be treated as immutable.
func (p *Packet) Clone() *Packet {
	q := *p
	if p.UnsignedTx != nil {
		q.UnsignedTx = p.UnsignedTx.Copy()
	}
	q.XPubs = append([]XPub(nil), p.XPubs...)
	q.Proprietary = maps.Clone(p.Proprietary)
	q.Unknown = maps.Clone(p.Unknown)
	q.Inputs = make([]Input, len(p.Inputs))
	for i := range p.Inputs {
		q.Inputs[i] = p.Inputs[i].clone()
	}
	q.Outputs = make([]Output, len(p.Outputs))
	for i := range p.Outputs {
		q.Outputs[i] = p.Outputs[i].clone()
	}
	return &q
}

func cloneNested[K, L comparable, V any](m map[K]map[L]V) map[K]map[L]V {
	if m == nil {
		return nil
	}
	out := make(map[K]map[L]V, len(m))
	for k, v := range m {
		out[k] = maps.Clone(v)
	}
	return out
}

func (in *Input) clone() Input {
	c := *in
	c.PartialSigs = maps.Clone(in.PartialSigs)
	c.BIP32Derivs = maps.Clone(in.BIP32Derivs)
	c.RIPEMD160Preimages = maps.Clone(in.RIPEMD160Preimages)
	c.SHA256Preimages = maps.Clone(in.SHA256Preimages)
	c.HASH160Preimages = maps.Clone(in.HASH160Preimages)
	c.HASH256Preimages = maps.Clone(in.HASH256Preimages)
	c.TapScriptSigs = maps.Clone(in.TapScriptSigs)
	c.TapLeafScripts = cloneNested(in.TapLeafScripts)
	c.TapBIP32Derivs = maps.Clone(in.TapBIP32Derivs)
	c.MuSig2Participants = maps.Clone(in.MuSig2Participants)
	c.MuSig2PubNonces = cloneNested(in.MuSig2PubNonces)
	c.MuSig2PartialSigs = cloneNested(in.MuSig2PartialSigs)
	c.Proprietary = maps.Clone(in.Proprietary)
	c.Unknown = maps.Clone(in.Unknown)
	return c
}

func (out *Output) clone() Output {
	c := *out
	c.BIP32Derivs = maps.Clone(out.BIP32Derivs)
	c.TapBIP32Derivs = maps.Clone(out.TapBIP32Derivs)
	c.MuSig2Participants = maps.Clone(out.MuSig2Participants)
	c.Proprietary = maps.Clone(out.Proprietary)
	c.Unknown = maps.Clone(out.Unknown)
	return c
}

// fillEmpty sets *dst to src when *dst is empty: a field is taken from the
// other packet only where this one has none, as Core's Merge does.
func fillEmpty[T any](dst *[]T, src []T) {
	if len(*dst) == 0 && len(src) > 0 {
		*dst = src
	}
}

// fillZero is fillEmpty for a field that is empty when zero (a fixed-size
// array, a pointer).
func fillZero[T comparable](dst *T, src T) {
	var zero T
	if *dst == zero {
		*dst = src
	}
}
