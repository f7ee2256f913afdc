package descriptor

import (
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// rootOf rebuilds the Merkle root of leaves given in depth-first order.
func rootOf(leaves []TapLeaf) ([32]byte, bool) {
	depths := make([]int, len(leaves))
	scripts := make([][]byte, len(leaves))
	for i, l := range leaves {
		depths[i], scripts[i] = l.Depth, l.Script
	}
	t := buildTapTree(depths, scripts)
	if t == nil {
		return [32]byte{}, false
	}
	return t.hash, true
}

// TestInferTapLeavesKeepsTheTree: whatever order Core's inference puts the
// leaves in, they form the same tree (the same Merkle root), for trees of
// every shape of the vectors and a few written here.
func TestInferTapLeavesKeepsTheTree(t *testing.T) {
	const a, b, c, d = "cfc119494e46afbc4ee87894fe68c94640a149c040e193b7e37d4d8237dadfc0",
		"fa2512662cf671a03e7c804cd7b56c02cee0f2e6452a46a6990b29e5872e759c",
		"83432c7bc598343d34284db6a2651d3cbb40f04703b0467a63d45a9642adc9c3",
		"b2c40d465764158092a7fd8952354c18433e6584461f38e3f7b9c2e3d6e7e5f4"
	descs := []string{
		"tr(" + d + ",pk(" + a + "))",
		"tr(" + d + ",{pk(" + b + "),pk(" + a + ")})",
		"tr(" + d + ",{pk(" + a + "),{pk(" + b + "),{pk(" + c + "),pk(" + a + ")}}})",
		"tr(" + d + ",{{pk(" + c + "),pk(" + b + ")},{pk(" + b + "),pk(" + c + ")}})",
	}
	descs = append(descs, fuzzSeeds(t)...)
	// Core cannot place four identical leaves: the inner node above the
	// unexplored copy never learns its hash (its InferTaprootTree gives
	// up, and the output is inferred as rawtr()); neither can descwallet.
	same := "tr(" + d + ",{{pk(" + a + "),pk(" + a + ")},{pk(" + a + "),pk(" + a + ")}})"
	if desc, err := Parse(same, &chaincfg.RegressionNetParams); err != nil {
		t.Fatal(err)
	} else if outs, err := desc.Expand(0, nil); err != nil {
		t.Fatal(err)
	} else if _, ok := inferTapLeaves(outs[0].Taproot); ok {
		t.Errorf("%s: inferred, where Core gives up", same)
	}
	n := 0
	for _, s := range descs {
		checkInferTapLeaves(t, s)
		n++
	}
	if n == 0 {
		t.Fatal("no descriptors")
	}
}

func checkInferTapLeaves(t *testing.T, s string) {
	t.Helper()
	desc, err := Parse(s, &chaincfg.RegressionNetParams)
	if err != nil || desc.Kind() != KindTR || desc.IsMultipath() {
		return
	}
	outs, err := desc.Expand(0, nil)
	if err != nil || len(outs) != 1 || outs[0].Taproot == nil {
		return
	}
	tr := outs[0].Taproot
	leaves, ok := inferTapLeaves(tr)
	if !ok {
		t.Fatalf("%s: tree not inferred", s)
	}
	if len(leaves) != len(tr.Leaves) {
		t.Fatalf("%s: %d leaves inferred, %d in the tree", s, len(leaves), len(tr.Leaves))
	}
	if len(leaves) == 0 {
		if tr.MerkleRoot != nil {
			t.Fatalf("%s: no leaves under a root", s)
		}
		return
	}
	root, ok := rootOf(leaves)
	if !ok || string(root[:]) != string(tr.MerkleRoot) {
		t.Fatalf("%s: inferred leaves %+v do not rebuild the root", s, leaves)
	}
}

// FuzzInferTapLeaves feeds arbitrary spend data to the tree inference: it
// must not panic, and a tree it accepts must rebuild the Merkle root it was
// given. The data are a 32-byte root then leaves, each a version byte, a
// script length byte, the script, a control block length byte (in 32-byte
// nodes) and the control block's nodes after a fixed 33-byte head.
func FuzzInferTapLeaves(f *testing.F) {
	f.Add(make([]byte, 40))
	f.Add(append(make([]byte, 32), 0xc0, 1, 0x51, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 32 || len(data) > 1<<16 {
			return
		}
		tr := &Taproot{MerkleRoot: append([]byte(nil), data[:32]...)}
		p := data[32:]
		for len(p) >= 3 {
			ver, sl := p[0], int(p[1])
			p = p[2:]
			if len(p) < sl+1 {
				break
			}
			scr := p[:sl]
			levels := int(p[sl]) % 130
			p = p[sl+1:]
			cb := append([]byte{ver}, make([]byte, 32)...)
			for i := 0; i < levels && len(p) >= 32; i++ {
				cb = append(cb, p[:32]...)
				p = p[32:]
			}
			tr.Leaves = append(tr.Leaves, TapLeaf{LeafVersion: ver & 0xfe, Script: scr, ControlBlock: cb})
		}
		leaves, ok := inferTapLeaves(tr)
		if !ok || len(leaves) == 0 {
			return
		}
		for _, l := range leaves {
			if l.LeafVersion != LeafVersionTapscript {
				return // the root check below rebuilds tapscript leaves only
			}
		}
		if root, ok := rootOf(leaves); ok && string(root[:]) != string(tr.MerkleRoot) {
			t.Fatalf("accepted leaves %+v do not rebuild root %x", leaves, tr.MerkleRoot)
		}
	})
}
