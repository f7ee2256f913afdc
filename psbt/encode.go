package psbt

import (
	"encoding/base64"
)

// Serialize returns the packet's bytes in Core's order: each map's fields by
// type in the order Core writes them, and within a type by Core's key
// order, whatever order they were read in. An input with a final scriptSig
// or witness keeps only its UTXOs, its finals and its unknown and
// proprietary fields, as in Core.
func (p *Packet) Serialize() []byte {
	var w writer
	w.raw(Magic[:])
	if p.UnsignedTx != nil {
		var tx writer
		writeTx(&tx, p.UnsignedTx)
		w.pair([]byte{GlobalUnsignedTx}, tx.b)
	}
	xpubs := append([]XPub(nil), p.XPubs...)
	SortXPubs(xpubs)
	for _, x := range xpubs {
		w.pair(typeKey(GlobalXPub, x.Key[:]), originBytes(x.Origin))
	}
	if p.UnsignedTx == nil {
		p.writeGlobalsV2(&w)
	}
	if p.GetVersion() > 0 {
		w.pair([]byte{GlobalVersion}, le32(*p.Version))
	}
	writeRaw(&w, p.Proprietary)
	writeRaw(&w, p.Unknown)
	w.u8(0)
	for i := range p.Inputs {
		p.Inputs[i].write(&w)
	}
	for i := range p.Outputs {
		p.Outputs[i].write(&w)
	}
	return w.b
}

// Base64 returns the base64 text of Serialize.
func (p *Packet) Base64() string {
	return base64.StdEncoding.EncodeToString(p.Serialize())
}

func le32(v uint32) []byte {
	var w writer
	w.u32(v)
	return w.b
}

func originBytes(o KeyOrigin) []byte {
	var w writer
	w.raw(o.Fingerprint[:])
	for _, x := range o.Path {
		w.u32(x)
	}
	return w.b
}

func writeRaw(w *writer, m map[string][]byte) {
	for _, k := range sortedKeys(m, cmpString) {
		w.pair([]byte(k), m[k])
	}
}

func writeDerivs(w *writer, t uint64, m map[string]KeyOrigin) {
	for _, k := range sortedKeys(m, cmpString) {
		w.pair(typeKey(t, []byte(k)), originBytes(m[k]))
	}
}

func writeTapDerivs(w *writer, t uint64, m map[[32]byte]TapKeyOrigin) {
	for _, x := range sortedKeys(m, cmp32) {
		o := m[x]
		var v writer
		hashes := append([][32]byte(nil), o.LeafHashes...)
		sortHashes(hashes)
		hashes = dedupHashes(hashes)
		v.compactSize(uint64(len(hashes)))
		for _, h := range hashes {
			v.raw(h[:])
		}
		v.raw(originBytes(o.Origin))
		w.pair(typeKey(t, x[:]), v.b)
	}
}

func dedupHashes(h [][32]byte) [][32]byte {
	out := h[:0]
	for i, x := range h {
		if i == 0 || x != h[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func writeParticipants(w *writer, t uint64, m map[[33]byte][][33]byte) {
	for _, agg := range sortedKeys(m, cmp33) {
		var v writer
		for _, pk := range m[agg] {
			v.raw(pk[:])
		}
		w.pair(typeKey(t, agg[:]), v.b)
	}
}

func (in *Input) write(w *writer) {
	if in.NonWitnessUTXO != nil {
		var tx writer
		writeTx(&tx, in.NonWitnessUTXO)
		w.pair([]byte{InNonWitnessUTXO}, tx.b)
	}
	if !nullTxOut(in.WitnessUTXO) {
		var o writer
		writeTxOut(&o, in.WitnessUTXO)
		w.pair([]byte{InWitnessUTXO}, o.b)
	}
	in.writeV2(w)
	if !in.IsFinalized() {
		for _, id := range sortedKeys(in.PartialSigs, cmp20) {
			ps := in.PartialSigs[id]
			w.pair(typeKey(InPartialSig, ps.PubKey), ps.Signature)
		}
		if in.SighashType != nil {
			w.pair([]byte{InSighash}, le32(*in.SighashType))
		}
		if len(in.RedeemScript) > 0 {
			w.pair([]byte{InRedeemScript}, in.RedeemScript)
		}
		if len(in.WitnessScript) > 0 {
			w.pair([]byte{InWitnessScript}, in.WitnessScript)
		}
		writeDerivs(w, InBIP32Derivation, in.BIP32Derivs)
		for _, h := range sortedKeys(in.RIPEMD160Preimages, cmp20) {
			w.pair(typeKey(InRIPEMD160, h[:]), in.RIPEMD160Preimages[h])
		}
		for _, h := range sortedKeys(in.SHA256Preimages, cmp32) {
			w.pair(typeKey(InSHA256, h[:]), in.SHA256Preimages[h])
		}
		for _, h := range sortedKeys(in.HASH160Preimages, cmp20) {
			w.pair(typeKey(InHASH160, h[:]), in.HASH160Preimages[h])
		}
		for _, h := range sortedKeys(in.HASH256Preimages, cmp32) {
			w.pair(typeKey(InHASH256, h[:]), in.HASH256Preimages[h])
		}
		if len(in.TapKeySig) > 0 {
			w.pair([]byte{InTapKeySig}, in.TapKeySig)
		}
		for _, k := range sortedKeys(in.TapScriptSigs, cmpTapScriptSigKey) {
			w.pair(typeKey(InTapScriptSig, k.XOnly[:], k.LeafHash[:]), in.TapScriptSigs[k])
		}
		for _, leaf := range sortedKeys(in.TapLeafScripts, cmpTapLeaf) {
			v := append([]byte(leaf.Script), leaf.LeafVersion)
			for _, cb := range sortedKeys(in.TapLeafScripts[leaf], compareShortFirst) {
				w.pair(typeKey(InTapLeafScript, []byte(cb)), v)
			}
		}
		writeTapDerivs(w, InTapBIP32Derivation, in.TapBIP32Derivs)
		if in.TapInternalKey != ([32]byte{}) {
			w.pair([]byte{InTapInternalKey}, in.TapInternalKey[:])
		}
		if in.TapMerkleRoot != ([32]byte{}) {
			w.pair([]byte{InTapMerkleRoot}, in.TapMerkleRoot[:])
		}
		writeParticipants(w, InMuSig2Participants, in.MuSig2Participants)
		for _, id := range sortedKeys(in.MuSig2PubNonces, cmpMuSig2Key) {
			m := in.MuSig2PubNonces[id]
			for _, part := range sortedKeys(m, cmp33) {
				w.pair(musig2Key(InMuSig2PubNonce, id, part), m[part])
			}
		}
		for _, id := range sortedKeys(in.MuSig2PartialSigs, cmpMuSig2Key) {
			m := in.MuSig2PartialSigs[id]
			for _, part := range sortedKeys(m, cmp33) {
				sig := m[part]
				w.pair(musig2Key(InMuSig2PartialSig, id, part), sig[:])
			}
		}
	}
	if len(in.FinalScriptSig) > 0 {
		w.pair([]byte{InFinalScriptSig}, in.FinalScriptSig)
	}
	if len(in.FinalScriptWitness) > 0 {
		w.pair([]byte{InFinalScriptWitness}, witnessBytes(in.FinalScriptWitness))
	}
	writeRaw(w, in.Proprietary)
	writeRaw(w, in.Unknown)
	w.u8(0)
}

// witnessBytes serializes a witness stack.
func witnessBytes(stack [][]byte) []byte {
	var v writer
	v.compactSize(uint64(len(stack)))
	for _, item := range stack {
		v.bytes(item)
	}
	return v.b
}

func musig2Key(t uint64, id MuSig2Key, part [33]byte) []byte {
	if id.LeafHash == ([32]byte{}) {
		return typeKey(t, part[:], id.Aggregate[:])
	}
	return typeKey(t, part[:], id.Aggregate[:], id.LeafHash[:])
}

func (out *Output) write(w *writer) {
	if len(out.RedeemScript) > 0 {
		w.pair([]byte{OutRedeemScript}, out.RedeemScript)
	}
	if len(out.WitnessScript) > 0 {
		w.pair([]byte{OutWitnessScript}, out.WitnessScript)
	}
	writeDerivs(w, OutBIP32Derivation, out.BIP32Derivs)
	out.writeV2(w)
	writeRaw(w, out.Proprietary)
	if out.TapInternalKey != ([32]byte{}) {
		w.pair([]byte{OutTapInternalKey}, out.TapInternalKey[:])
	}
	if len(out.TapTree) > 0 {
		var v writer
		for _, l := range out.TapTree {
			v.u8(l.Depth)
			v.u8(l.LeafVersion)
			v.bytes(l.Script)
		}
		w.pair([]byte{OutTapTree}, v.b)
	}
	writeTapDerivs(w, OutTapBIP32Derivation, out.TapBIP32Derivs)
	writeParticipants(w, OutMuSig2Participants, out.MuSig2Participants)
	writeRaw(w, out.Unknown)
	w.u8(0)
}
