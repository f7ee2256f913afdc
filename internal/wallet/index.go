package wallet

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"github.com/descwallet/descwallet/descriptor"
)

// spkIndex maps scriptPubKeys to the (descriptor, index) pairs that derive
// them. Keys are the first 8 bytes of SHA-256 of the script, values pack
// the descriptor's slot and the derivation index in one word, so a million
// scripts cost a few tens of megabytes. A hit is only a candidate: the
// caller re-derives the script and compares it in full. Digests that several
// pairs share (the same script in two descriptors, or a collision) live in
// the overflow map.
type spkIndex struct {
	m     map[uint64]uint64
	multi map[uint64][]uint64
	// adds counts the calls to add: what was computed from the index
	// (the wallet's outputs of a transaction, balance.go) holds while it
	// is unchanged.
	adds uint64
}

// overflow marks a digest whose pairs are in spkIndex.multi.
const overflow = ^uint64(0)

func newSPKIndex() *spkIndex {
	return &spkIndex{m: map[uint64]uint64{}, multi: map[uint64][]uint64{}}
}

// scriptDigest is the index key of a script.
func scriptDigest(script []byte) uint64 {
	h := sha256.Sum256(script)
	return binary.LittleEndian.Uint64(h[:8])
}

func packRef(slot uint32, index uint32) uint64 { return uint64(slot)<<32 | uint64(index) }

func unpackRef(v uint64) (slot uint32, index uint32) { return uint32(v >> 32), uint32(v) }

// add records that descriptor slot derives a script of digest h at index.
func (x *spkIndex) add(h uint64, slot, index uint32) {
	x.adds++
	v := packRef(slot, index)
	old, ok := x.m[h]
	switch {
	case !ok:
		x.m[h] = v
	case old == v:
	case old == overflow:
		for _, e := range x.multi[h] {
			if e == v {
				return
			}
		}
		x.multi[h] = append(x.multi[h], v)
	default:
		x.m[h] = overflow
		x.multi[h] = []uint64{old, v}
	}
}

// lookup returns the candidate pairs of a digest.
func (x *spkIndex) lookup(h uint64, buf []uint64) []uint64 {
	v, ok := x.m[h]
	if !ok {
		return buf
	}
	if v == overflow {
		return append(buf, x.multi[h]...)
	}
	return append(buf, v)
}

// grow makes room for n more entries.
func (x *spkIndex) grow(n int) {
	if n < 4096 || len(x.m) > n {
		return
	}
	m := make(map[uint64]uint64, len(x.m)+n)
	for k, v := range x.m {
		m[k] = v
	}
	x.m = m
}

// expansionCache keeps recent expansions of (descriptor, index) pairs so
// that repeated questions about the same addresses derive nothing.
type expansionCache struct {
	mu sync.Mutex
	m  map[uint64][]descriptor.Output
}

const expansionCacheSize = 1 << 14

func (c *expansionCache) get(k uint64) ([]descriptor.Output, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[k]
	return o, ok
}

func (c *expansionCache) put(k uint64, o []descriptor.Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= expansionCacheSize {
		c.m = make(map[uint64][]descriptor.Output, 256)
	}
	c.m[k] = o
}

func (c *expansionCache) clear() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}
