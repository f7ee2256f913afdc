package sign

import (
	"bytes"
	"encoding/hex"
	"sort"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/descriptor/miniscript"
)

// LeafVersionTapscript is BIP 342's leaf version, the only one signed.
const LeafVersionTapscript = 0xc0

// TapLeaf is a script leaf of a taproot output with a control block that
// proves it.
type TapLeaf struct {
	// LeafVersion is the leaf version (LeafVersionTapscript for BIP 342).
	LeafVersion byte
	// Script is the leaf script.
	Script []byte
	// ControlBlock is the BIP 341 control block of the leaf.
	ControlBlock []byte
}

// TaprootSpendData is what signing a taproot output needs beyond keys: its
// internal key, the merkle root of its script tree (nil without a tree) and
// the tree's leaves (Core's TaprootSpendData).
type TaprootSpendData struct {
	InternalKey [32]byte
	MerkleRoot  []byte
	Leaves      []TapLeaf
}

// taprootData is the spend data of one output key: the leaves by script
// and leaf version, each with its control blocks.
type taprootData struct {
	internalKey [32]byte
	merkleRoot  []byte
	leaves      map[leafKey][][]byte
}

type leafKey struct {
	script  string
	version byte
}

// AddTaprootSpendData records the spend data of the taproot output whose
// x-only output key is outputKey, so that it can be signed with the
// internal key (tweaked by the merkle root) or through its script leaves.
// Data added twice for one output is merged, as Core does.
func (p *Provider) AddTaprootSpendData(outputKey [32]byte, d TaprootSpendData) {
	if p.taproot == nil {
		p.taproot = make(map[[32]byte]*taprootData)
	}
	td := p.taproot[outputKey]
	if td == nil {
		td = &taprootData{leaves: make(map[leafKey][][]byte)}
		p.taproot[outputKey] = td
	}
	td.internalKey = d.InternalKey
	if d.MerkleRoot != nil {
		td.merkleRoot = append([]byte(nil), d.MerkleRoot...)
	}
	for _, l := range d.Leaves {
		k := leafKey{script: string(l.Script), version: l.LeafVersion}
		cbs := td.leaves[k]
		dup := false
		for _, cb := range cbs {
			dup = dup || bytes.Equal(cb, l.ControlBlock)
		}
		if !dup {
			td.leaves[k] = append(cbs, append([]byte(nil), l.ControlBlock...))
		}
	}
}

// sortedLeaves returns the leaves in Core's order (by script bytes, then
// leaf version), each with its shortest control block (ties broken by
// content).
func (td *taprootData) sortedLeaves() []TapLeaf {
	out := make([]TapLeaf, 0, len(td.leaves))
	for k, cbs := range td.leaves {
		best := cbs[0]
		for _, cb := range cbs[1:] {
			if len(cb) < len(best) || (len(cb) == len(best) && bytes.Compare(cb, best) < 0) {
				best = cb
			}
		}
		out = append(out, TapLeaf{LeafVersion: k.version, Script: []byte(k.script), ControlBlock: best})
	}
	sort.Slice(out, func(i, j int) bool {
		if c := bytes.Compare(out[i].Script, out[j].Script); c != 0 {
			return c < 0
		}
		return out[i].LeafVersion < out[j].LeafVersion
	})
	return out
}

// tweakedKey returns k's BIP 340 key tweaked as the internal key of an
// output with merkle root root (BIP 86's tweak when root is nil).
func (k *Key) tweakedKey(root []byte) *schnorrKey {
	plain, bip86 := k.schnorrKeys()
	if len(root) == 0 {
		return bip86
	}
	t := chainhash.TaggedHash(chainhash.TagTapTweak, plain.xonly[:], root)
	var ts secp256k1.ModNScalar
	if overflow := ts.SetBytes((*[32]byte)(t)); overflow != 0 {
		return nil
	}
	d := plain.d
	d.Add(&ts)
	defer d.Zero()
	if d.IsZero() {
		return nil
	}
	return newSchnorrKey(&d, pubKeyOf(&d))
}

// signTaproot is Core's SignTaproot. The key path comes first: the
// internal key of the output's spend data tweaked by its merkle root, then
// a key that is the output key itself, then (beyond Core, its issue
// #27017) a key whose BIP 86 output key it is. Then every tapscript leaf
// of the spend data is satisfied as miniscript and the smallest witness
// wins. All spent outputs must be known.
func (s *inputSigner) signTaproot(outputKey []byte) ([][]byte, bool) {
	if !s.ctx.allKnown {
		return nil, false
	}
	var td *taprootData
	if len(outputKey) == 32 {
		td = s.ctx.provider.taproot[[32]byte(outputKey)]
	}

	var sk *schnorrKey
	if td != nil {
		if k := s.ctx.provider.keyByXOnly(td.internalKey[:]); k != nil {
			sk = k.tweakedKey(td.merkleRoot)
		}
	}
	if sk == nil {
		if k := s.ctx.provider.keyByXOnly(outputKey); k != nil {
			sk, _ = k.schnorrKeys()
		}
	}
	if sk == nil {
		sk = s.ctx.provider.keyByBIP86(outputKey)
	}
	if sk != nil {
		hash, err := s.taprootSigHash(s.ctx.hashType)
		if err != nil {
			return nil, false
		}
		sig, ok := s.schnorrSig(sk, hash, outputKey)
		if !ok {
			return nil, false
		}
		return [][]byte{sig}, true
	}

	if td == nil {
		return nil, false
	}
	var best [][]byte
	bestSize := 0
	for _, leaf := range td.sortedLeaves() {
		stack, ok := s.signTapscript(leaf)
		if !ok {
			continue
		}
		stack = append(stack, leaf.Script, leaf.ControlBlock)
		if size := stackSize(stack); best == nil || bestSize > size {
			best, bestSize = stack, size
		}
	}
	return best, best != nil
}

// schnorrSig signs hash with the call's hash type: 64 bytes for DEFAULT,
// otherwise followed by the hash-type byte. The signature is verified with
// the key's public key (signSchnorr) and refused (false) when that fails;
// it is then seeded in the call's signature cache (seedVerified) for pub,
// the x-only key the script engine will check it against (the output key
// on the key path, the leaf's key on a script path), when that is the
// signing key.
func (s *inputSigner) schnorrSig(sk *schnorrKey, hash, pub []byte) ([]byte, bool) {
	if s.ctx.sigHashFault != nil {
		hash = s.ctx.sigHashFault(hash)
	}
	sig, ok := sk.signSchnorr(hash, s.ctx.faults)
	if !ok {
		s.ctx.refused.Add(1)
		return nil, false
	}
	s.ctx.verified.Add(1)
	out := make([]byte, 64, 65)
	copy(out, sig[:])
	if s.ctx.hashType != SigHashDefault {
		out = append(out, byte(s.ctx.hashType))
	}
	if bytes.Equal(pub, sk.xonly[:]) {
		s.ctx.seedVerified(hash, out, pub)
	}
	return out, true
}

// stackSize is the serialized size of a witness stack.
func stackSize(stack [][]byte) int {
	n := wire.VarIntSerializeSize(uint64(len(stack)))
	for _, it := range stack {
		n += wire.VarIntSerializeSize(uint64(len(it))) + len(it)
	}
	return n
}

// signTapscript is Core's SignTaprootScript: a BIP 342 leaf decoded as
// miniscript and satisfied with the provider's keys and preimages and the
// input's timelocks. It returns the stack without the script and control
// block.
func (s *inputSigner) signTapscript(leaf TapLeaf) ([][]byte, bool) {
	if leaf.LeafVersion != LeafVersionTapscript {
		return nil, false
	}
	t := &tapSatisfier{
		wshSatisfier: wshSatisfier{s: s, ws: leaf.Script},
		leaf:         txscript.NewTapLeaf(txscript.TapscriptLeafVersion(leaf.LeafVersion), leaf.Script),
	}
	n := miniscript.Decode(leaf.Script, miniscript.Tapscript, t)
	if n == nil {
		return nil, false
	}
	st, av := n.Satisfy(t)
	if av != miniscript.Yes {
		return nil, false
	}
	return st, true
}

// tapSatisfier is Core's TapSatisfier: x-only keys, BIP 340 signatures
// over the leaf's BIP 342 signature hash. Preimages and timelocks are the
// P2WSH satisfier's.
type tapSatisfier struct {
	wshSatisfier
	leaf txscript.TapLeaf
}

// FromPKBytes accepts any 32-byte key, as Core does.
func (t *tapSatisfier) FromPKBytes(pub []byte) (int, bool) {
	if len(pub) != 32 {
		return 0, false
	}
	return t.add(pub)
}

// FromPKHBytes finds the key whose serialized or x-only form hashes to h.
func (t *tapSatisfier) FromPKHBytes(h []byte) (int, bool) {
	var id [20]byte
	copy(id[:], h)
	pub, ok := t.s.pubKey(id)
	if !ok {
		pub, ok = t.s.ctx.provider.pubKeyByXOnlyID(id)
	}
	if !ok || len(pub) < 33 {
		return 0, false
	}
	return t.add(pub[1:33])
}

func (t *tapSatisfier) KeyID(i int) string { return hex.EncodeToString(t.keys[i]) }

func (t *tapSatisfier) PKBytes(i int) []byte { return t.keys[i] }

// Sign makes a BIP 340 signature for key i with a key of either parity
// whose X coordinate it is.
func (t *tapSatisfier) Sign(i int) ([]byte, miniscript.Availability) {
	k := t.s.ctx.provider.keyByXOnly(t.keys[i])
	if k == nil {
		return nil, miniscript.No
	}
	hash, err := txscript.CalcTapscriptSignaturehash(t.s.ctx.sigHashes, t.s.ctx.hashType,
		t.s.view, t.s.idx, t.s.ctx.fetcher, t.leaf)
	if err != nil {
		return nil, miniscript.No
	}
	plain, _ := k.schnorrKeys()
	sig, ok := t.s.schnorrSig(plain, hash, t.keys[i])
	if !ok {
		return nil, miniscript.No
	}
	return sig, miniscript.Yes
}
