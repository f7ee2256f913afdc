package descriptor

import (
	"bytes"
	"sort"
)

// Control block sizes (BIP 341): a leaf-version byte and the internal key,
// then one 32-byte hash per level, at most 128 levels.
const (
	controlBaseSize = 33
	controlNodeSize = 32
	controlMaxSize  = controlBaseSize + 128*controlNodeSize
)

// inferTapLeaves rebuilds the script tree of tr from its spend data the way
// Core's InferTaprootTree (src/script/signingprovider.cpp) does, and
// returns its leaves in the depth-first order Core prints them: Core keeps
// the leaves as a map from (script, leaf version) to control blocks and
// places each leaf by walking its control block's path, so where the path
// leaves the order open (the two children of a branch are hashed sorted),
// the leaf Core meets first in that map goes left. It reports false when
// the spend data do not form one complete tree under the Merkle root.
// Unlike Core it does not recompute the output key from the internal key
// and the root: spend data come from an expansion, which derived the
// output key from them.
func inferTapLeaves(tr *Taproot) ([]TapLeaf, bool) {
	if len(tr.MerkleRoot) == 0 {
		return nil, true
	}
	var root [32]byte
	copy(root[:], tr.MerkleRoot)

	// Core's TaprootSpendData.scripts: (script, leaf version) in byte
	// order, each with its control blocks, shortest first.
	type leafKey struct {
		script  []byte
		version int
		blocks  [][]byte
		seen    map[string]bool
	}
	var keys []*leafKey
	byKey := map[string]*leafKey{}
	for _, l := range tr.Leaves {
		id := string(append([]byte{l.LeafVersion}, l.Script...))
		k := byKey[id]
		if k == nil {
			k = &leafKey{script: l.Script, version: int(l.LeafVersion), seen: map[string]bool{}}
			byKey[id] = k
			keys = append(keys, k)
		}
		if cb := string(l.ControlBlock); !k.seen[cb] {
			k.seen[cb] = true
			k.blocks = append(k.blocks, l.ControlBlock)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if c := bytes.Compare(keys[i].script, keys[j].script); c != 0 {
			return c < 0
		}
		return keys[i].version < keys[j].version
	})
	for _, k := range keys {
		sort.Slice(k.blocks, func(i, j int) bool {
			a, b := k.blocks[i], k.blocks[j]
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return bytes.Compare(a, b) < 0
		})
	}

	type treeNode struct {
		hash                  [32]byte // zero: unknown
		sub                   [2]*treeNode
		leaf                  *leafKey
		explored, inner, done bool
	}
	var zero [32]byte
	top := &treeNode{hash: root}
	for _, k := range keys {
		for _, control := range k.blocks {
			if k.version < 0 || k.version >= 0x100 || k.version&1 != 0 {
				continue
			}
			if len(control) < controlBaseSize || len(control) > controlMaxSize ||
				(len(control)-controlBaseSize)%controlNodeSize != 0 {
				continue
			}
			if int(control[0]&0xfe) != k.version {
				continue
			}
			leafHash := tapLeafHash(byte(k.version), k.script)
			h := leafHash
			for p := controlBaseSize; p < len(control); p += controlNodeSize {
				h = tapBranchHash(h[:], control[p:p+controlNodeSize])
			}
			if h != root {
				continue
			}
			n := top
			levels := (len(control) - controlBaseSize) / controlNodeSize
			for depth := 0; depth < levels; depth++ {
				if n.explored && !n.inner {
					return nil, false
				}
				var partner [32]byte
				off := controlBaseSize + (levels-1-depth)*controlNodeSize
				copy(partner[:], control[off:off+controlNodeSize])
				if n.sub[0] != nil {
					moved := false
					for i := 0; i < 2; i++ {
						if n.sub[i].hash == partner || (n.sub[i].hash == zero && n.sub[1-i].hash != partner) {
							n.sub[i].hash = partner
							n = n.sub[1-i]
							moved = true
							break
						}
					}
					if !moved {
						return nil, false
					}
				} else {
					n.explored, n.inner = true, true
					n.sub[0], n.sub[1] = &treeNode{}, &treeNode{hash: partner}
					n = n.sub[0]
				}
			}
			if n.sub[0] != nil {
				return nil, false
			}
			n.explored, n.inner, n.leaf, n.hash = true, false, k, leafHash
		}
	}

	// Flatten depth first, left before right, as Core does (with its
	// handling of two identical subtrees under one branch).
	var leaves []TapLeaf
	stack := []*treeNode{top}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		switch {
		case !n.explored:
			return nil, false
		case !n.inner:
			leaves = append(leaves, TapLeaf{Depth: len(stack) - 1, LeafVersion: byte(n.leaf.version), Script: n.leaf.script})
			n.done = true
			stack = stack[:len(stack)-1]
		case n.sub[0].done && !n.sub[1].done && !n.sub[1].explored && n.sub[1].hash != zero &&
			tapBranchHash(n.sub[1].hash[:], n.sub[1].hash[:]) == n.hash:
			n.sub[0].done, n.sub[1].done = false, true
		case n.sub[0].done && n.sub[1].done:
			n.sub[0].done, n.sub[1].done = false, false
			n.done = true
			stack = stack[:len(stack)-1]
		case !n.sub[0].done:
			stack = append(stack, n.sub[0])
		default:
			stack = append(stack, n.sub[1])
		}
	}
	return leaves, true
}
