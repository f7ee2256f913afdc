package descriptor

import (
	"crypto/sha256"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
)

// Taproot is the spend data of a taproot output (BIP 341).
type Taproot struct {
	// InternalKey is the x-only internal key.
	InternalKey [32]byte
	// OutputKey is the x-only tweaked output key.
	OutputKey [32]byte
	// OutputKeyOdd is the parity of the output key's Y coordinate.
	OutputKeyOdd bool
	// MerkleRoot is the root of the script tree; nil without scripts.
	MerkleRoot []byte
	// Leaves are the script leaves in descriptor order.
	Leaves []TapLeaf
}

// TapLeaf is one script leaf of a taproot tree.
type TapLeaf struct {
	Depth        int
	LeafVersion  byte
	Script       []byte
	ControlBlock []byte
}

// LeafVersionTapscript is the BIP 342 leaf version.
const LeafVersionTapscript = 0xc0

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func tapLeafHash(version byte, script []byte) [32]byte {
	b := []byte{version}
	b = appendCompactSize(b, uint64(len(script)))
	b = append(b, script...)
	return *chainhash.TaggedHash(chainhash.TagTapLeaf, b)
}

func tapBranchHash(a, b []byte) [32]byte {
	if string(a) > string(b) {
		a, b = b, a
	}
	return *chainhash.TaggedHash(chainhash.TagTapBranch, a, b)
}

func appendCompactSize(b []byte, n uint64) []byte {
	switch {
	case n < 0xfd:
		return append(b, byte(n))
	case n <= 0xffff:
		return append(b, 0xfd, byte(n), byte(n>>8))
	case n <= 0xffffffff:
		return append(b, 0xfe, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(b, 0xff, byte(n), byte(n>>8), byte(n>>16), byte(n>>24),
		byte(n>>32), byte(n>>40), byte(n>>48), byte(n>>56))
}

// tapTree is a node of a taproot script tree under construction.
type tapTree struct {
	hash        [32]byte
	leaf        int // index into the leaves, -1 for branches
	left, right *tapTree
}

// buildTapTree rebuilds the binary tree from leaf depths in depth-first
// order; the depths were checked to form a complete tree while parsing.
func buildTapTree(depths []int, scripts [][]byte) *tapTree {
	i := 0
	var build func(d int) *tapTree
	build = func(d int) *tapTree {
		if i >= len(depths) {
			return nil
		}
		if depths[i] == d {
			t := &tapTree{leaf: i, hash: tapLeafHash(LeafVersionTapscript, scripts[i])}
			i++
			return t
		}
		l := build(d + 1)
		r := build(d + 1)
		if l == nil || r == nil {
			return nil
		}
		return &tapTree{leaf: -1, left: l, right: r, hash: tapBranchHash(l.hash[:], r.hash[:])}
	}
	t := build(0)
	if t == nil || i != len(depths) {
		return nil
	}
	return t
}

// tweakKey computes the output key of internal key x with merkle root
// (nil for none), as BIP 341 taproot_tweak_pubkey.
func tweakKey(x []byte, root []byte) ([32]byte, bool, bool) {
	full, ok := xonlyToFull(x)
	if !ok {
		return [32]byte{}, false, false
	}
	p, _ := btcec.ParsePubKey(full)
	t := chainhash.TaggedHash(chainhash.TagTapTweak, x, root)
	var ts btcec.ModNScalar
	if overflow := ts.SetByteSlice(t[:]); overflow {
		return [32]byte{}, false, false
	}
	var pj, tj, qj btcec.JacobianPoint
	p.AsJacobian(&pj)
	btcec.ScalarBaseMultNonConst(&ts, &tj)
	btcec.AddNonConst(&pj, &tj, &qj)
	if qj.Z.IsZero() {
		return [32]byte{}, false, false
	}
	qj.ToAffine()
	qj.X.Normalize()
	qj.Y.Normalize()
	var out [32]byte
	qj.X.PutBytesUnchecked(out[:])
	return out, qj.Y.IsOdd(), true
}

// makeTaproot builds the spend data of tr(internal, leaves).
func makeTaproot(internal []byte, depths []int, scripts [][]byte) (*Taproot, bool) {
	tr := &Taproot{}
	copy(tr.InternalKey[:], internal)
	var tree *tapTree
	if len(depths) > 0 {
		tree = buildTapTree(depths, scripts)
		if tree == nil {
			return nil, false
		}
		tr.MerkleRoot = append([]byte(nil), tree.hash[:]...)
	}
	out, odd, ok := tweakKey(internal, tr.MerkleRoot)
	if !ok {
		return nil, false
	}
	tr.OutputKey, tr.OutputKeyOdd = out, odd
	if tree == nil {
		return tr, true
	}
	tr.Leaves = make([]TapLeaf, len(depths))
	ctrlByte := byte(LeafVersionTapscript)
	if odd {
		ctrlByte |= 1
	}
	var walk func(t *tapTree, path [][32]byte)
	walk = func(t *tapTree, path [][32]byte) {
		if t.leaf >= 0 {
			cb := append([]byte{ctrlByte}, internal...)
			for i := len(path) - 1; i >= 0; i-- {
				cb = append(cb, path[i][:]...)
			}
			tr.Leaves[t.leaf] = TapLeaf{Depth: depths[t.leaf], LeafVersion: LeafVersionTapscript,
				Script: scripts[t.leaf], ControlBlock: cb}
			return
		}
		walk(t.left, append(append([][32]byte(nil), path...), t.right.hash))
		walk(t.right, append(append([][32]byte(nil), path...), t.left.hash))
	}
	walk(tree, nil)
	return tr, true
}
