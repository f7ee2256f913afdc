package descriptor

import (
	"bytes"
	"encoding/binary"
	"sort"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"
)

// Cache holds derived extended public keys of a descriptor, keyed by the
// position of the key expression in the descriptor (Core's DescriptorCache):
// for each position the parent xpub (the key at the end of the fixed path,
// from which the wildcard step derives), the xpub at the last hardened step
// (for the normalized string), and for hardened wildcards the derived xpubs
// by index. With a cache filled while private keys were known, a watch-only
// copy of the descriptor expands without redoing hardened steps.
//
// A Cache is safe for concurrent use. It serializes with MarshalBinary so a
// wallet can persist it beside the descriptor.
type Cache struct {
	mu       sync.RWMutex
	parent   map[uint32]*extKey
	lastHard map[uint32]*extKey
	derivedX map[uint32]map[uint32]*extKey
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{
		parent:   map[uint32]*extKey{},
		lastHard: map[uint32]*extKey{},
		derivedX: map[uint32]map[uint32]*extKey{},
	}
}

func (c *Cache) parentKey(idx uint32) *extKey {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.parent[idx]
}

func (c *Cache) lastHardened(idx uint32) *extKey {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.lastHard[idx]
}

func (c *Cache) derived(idx, pos uint32) *extKey {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.derivedX[idx][pos]
}

func (c *Cache) putParent(idx uint32, k *extKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.parent[idx] == nil {
		c.parent[idx] = k.neuter()
	}
}

func (c *Cache) putLastHardened(idx uint32, k *extKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastHard[idx] == nil {
		c.lastHard[idx] = k.neuter()
	}
}

func (c *Cache) putDerived(idx, pos uint32, k *extKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.derivedX[idx]
	if m == nil {
		m = map[uint32]*extKey{}
		c.derivedX[idx] = m
	}
	if m[pos] == nil {
		m[pos] = k.neuter()
	}
}

// Len returns the number of cached extended keys.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := len(c.parent) + len(c.lastHard)
	for _, m := range c.derivedX {
		n += len(m)
	}
	return n
}

// Cache serialization: a version byte, then records of a type byte (1
// parent, 2 last hardened, 3 derived), the key position (4 bytes big
// endian), for type 3 the child index (4 bytes), and the extended public key
// (depth, parent fingerprint, child number, chain code, compressed key: 74
// bytes). Records are sorted, so equal caches serialize equally.

const cacheVersion = 1

func appendExtPub(b []byte, k *extKey) []byte {
	b = append(b, k.depth)
	b = append(b, k.parentFP[:]...)
	b = binary.BigEndian.AppendUint32(b, k.child)
	b = append(b, k.chain[:]...)
	return append(b, k.pub[:]...)
}

// MarshalBinary serializes the cache.
func (c *Cache) MarshalBinary() ([]byte, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b := []byte{cacheVersion}
	put := func(typ byte, m map[uint32]*extKey) {
		idxs := make([]uint32, 0, len(m))
		for i := range m {
			idxs = append(idxs, i)
		}
		sort.Slice(idxs, func(a, b int) bool { return idxs[a] < idxs[b] })
		for _, i := range idxs {
			b = append(b, typ)
			b = binary.BigEndian.AppendUint32(b, i)
			b = appendExtPub(b, m[i])
		}
	}
	put(1, c.parent)
	put(2, c.lastHard)
	exprs := make([]uint32, 0, len(c.derivedX))
	for i := range c.derivedX {
		exprs = append(exprs, i)
	}
	sort.Slice(exprs, func(a, b int) bool { return exprs[a] < exprs[b] })
	for _, e := range exprs {
		m := c.derivedX[e]
		pos := make([]uint32, 0, len(m))
		for p := range m {
			pos = append(pos, p)
		}
		sort.Slice(pos, func(a, b int) bool { return pos[a] < pos[b] })
		for _, p := range pos {
			b = append(b, 3)
			b = binary.BigEndian.AppendUint32(b, e)
			b = binary.BigEndian.AppendUint32(b, p)
			b = appendExtPub(b, m[p])
		}
	}
	return b, nil
}

// UnmarshalBinary replaces the cache's content with the serialized data.
func (c *Cache) UnmarshalBinary(data []byte) error {
	bad := makeError(ErrCache, "malformed descriptor cache")
	if len(data) < 1 || data[0] != cacheVersion {
		return bad
	}
	n := NewCache()
	r := bytes.NewReader(data[1:])
	for r.Len() > 0 {
		typ, _ := r.ReadByte()
		var hdr [8]byte
		hl := 4
		if typ == 3 {
			hl = 8
		} else if typ != 1 && typ != 2 {
			return bad
		}
		if _, err := r.Read(hdr[:hl]); err != nil || r.Len() < 74 {
			return bad
		}
		var rec [74]byte
		r.Read(rec[:])
		k := &extKey{depth: rec[0], child: binary.BigEndian.Uint32(rec[5:9])}
		copy(k.parentFP[:], rec[1:5])
		copy(k.chain[:], rec[9:41])
		copy(k.pub[:], rec[41:74])
		if _, err := btcec.ParsePubKey(k.pub[:]); err != nil || (k.pub[0] != 2 && k.pub[0] != 3) {
			return bad
		}
		idx := binary.BigEndian.Uint32(hdr[:4])
		switch typ {
		case 1:
			n.parent[idx] = k
		case 2:
			n.lastHard[idx] = k
		case 3:
			n.putDerived(idx, binary.BigEndian.Uint32(hdr[4:8]), k)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.parent, c.lastHard, c.derivedX = n.parent, n.lastHard, n.derivedX
	return nil
}

// memo keeps, per descriptor, the derived parents of its extended keys so
// that expanding index after index never repeats the fixed part of a path.
type memo struct {
	mu   sync.Mutex
	pub  map[uint32]*memoEntry
	priv map[uint32]*extKey
	// musig holds the aggregate key expression of each musig() whose
	// participants are not ranged.
	musig map[uint32]keyExpr
}

type memoEntry struct {
	deriver  *pubDeriver
	lastHard *extKey
}

func newMemo() *memo {
	return &memo{pub: map[uint32]*memoEntry{}, priv: map[uint32]*extKey{}, musig: map[uint32]keyExpr{}}
}

// pubParent returns the deriver for the parent of k's wildcard step (or of
// k itself when not ranged), filling the cache as Core does.
func (m *memo) pubParent(k *bip32Key, e *env, privRoot *extKey, havePriv bool) (*pubDeriver, error) {
	m.mu.Lock()
	ent := m.pub[k.idx]
	m.mu.Unlock()
	if ent == nil {
		ent = &memoEntry{}
		var parent *extKey
		if e.cache != nil {
			parent = e.cache.parentKey(k.idx)
			ent.lastHard = e.cache.lastHardened(k.idx)
		}
		if parent == nil {
			switch {
			case !k.hardenedSteps():
				p, _, err := k.root.neuter().derivePath(k.path)
				if err != nil {
					return nil, err
				}
				parent = p
			case havePriv:
				p, lh, err := privRoot.derivePath(k.path)
				if err != nil {
					return nil, err
				}
				parent = p.neuter()
				if lh != nil {
					ent.lastHard = lh.neuter()
				}
			default:
				return nil, errHardened
			}
		}
		d, err := newPubDeriver(parent)
		if err != nil {
			return nil, err
		}
		ent.deriver = d
		m.mu.Lock()
		if old := m.pub[k.idx]; old != nil {
			ent = old
		} else {
			m.pub[k.idx] = ent
		}
		m.mu.Unlock()
	}
	if e.cache != nil {
		e.cache.putParent(k.idx, &ent.deriver.parent)
		if ent.lastHard != nil {
			e.cache.putLastHardened(k.idx, ent.lastHard)
		}
	}
	return ent.deriver, nil
}

// privParent returns the private extended key at the end of k's path.
func (m *memo) privParent(k *bip32Key, privRoot *extKey) (*extKey, error) {
	m.mu.Lock()
	p := m.priv[k.idx]
	m.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, _, err := privRoot.derivePath(k.path)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.priv[k.idx] = p
	m.mu.Unlock()
	return p, nil
}

// privChild returns the private key of k at pos.
func (m *memo) privChild(k *bip32Key, privRoot *extKey, pos uint32) (*[32]byte, error) {
	p, err := m.privParent(k, privRoot)
	if err != nil {
		return nil, err
	}
	switch k.derive_ {
	case unhardenedRanged:
		return privOnlyChild(p, pos)
	case hardenedRanged:
		return privOnlyChild(p, pos|hardenedFlag)
	}
	return p.priv, nil
}

// privOnlyChild derives only the private key of child i (no public key).
func privOnlyChild(p *extKey, i uint32) (*[32]byte, error) {
	c, err := deriveChildPriv(p, i)
	if err != nil {
		return nil, err
	}
	return c, nil
}
