package scan

import (
	"context"
	"hash/maphash"

	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/chain"
)

// manyOwners marks a key of an ownerMap whose owners are in its many map.
const manyOwners = ^uint32(0)

// ownerMap maps keys to the ids of the members that watch them. Nearly
// every key has one owner, kept inline; keys several members share keep
// their list apart.
type ownerMap[K comparable] struct {
	one  map[K]uint32
	many map[K][]uint32
}

func newOwnerMap[K comparable]() ownerMap[K] {
	return ownerMap[K]{one: map[K]uint32{}, many: map[K][]uint32{}}
}

// add records that id watches k; it reports false when it did already.
func (o *ownerMap[K]) add(k K, id uint32) bool {
	v, ok := o.one[k]
	switch {
	case !ok:
		o.one[k] = id
		return true
	case v == id:
		return false
	case v == manyOwners:
		for _, e := range o.many[k] {
			if e == id {
				return false
			}
		}
		o.many[k] = append(o.many[k], id)
		return true
	default:
		o.one[k] = manyOwners
		o.many[k] = []uint32{v, id}
		return true
	}
}

// remove forgets that id watches k.
func (o *ownerMap[K]) remove(k K, id uint32) {
	v, ok := o.one[k]
	switch {
	case !ok:
	case v == id:
		delete(o.one, k)
	case v == manyOwners:
		ids := o.many[k]
		for i, e := range ids {
			if e == id {
				ids = append(ids[:i:i], ids[i+1:]...)
				break
			}
		}
		switch len(ids) {
		case 0:
			delete(o.one, k)
			delete(o.many, k)
		case 1:
			o.one[k] = ids[0]
			delete(o.many, k)
		default:
			o.many[k] = ids
		}
	}
}

// owners appends k's owners to buf.
func (o *ownerMap[K]) owners(k K, buf []uint32) []uint32 {
	v, ok := o.one[k]
	switch {
	case !ok:
		return buf
	case v == manyOwners:
		return append(buf, o.many[k]...)
	default:
		return append(buf, v)
	}
}

// anyIn reports whether one of k's owners is in the scan.
func (o *ownerMap[K]) anyIn(k K, in []bool) bool {
	v, ok := o.one[k]
	if !ok {
		return false
	}
	if v != manyOwners {
		return int(v) < len(in) && in[v]
	}
	for _, id := range o.many[k] {
		if int(id) < len(in) && in[id] {
			return true
		}
	}
	return false
}

// index is one watch index for every member of a follower: each watched
// script (by a 64-bit keyed hash of it, so that ten million scripts take a
// few hundred megabytes) and each watched outpoint, with the members that
// watch it. A script hash shared by chance with a script no member watches
// only delivers a transaction the member's sink does not take as its own
// (a wallet checks every script it is handed in full).
type index struct {
	seed      maphash.Seed
	scripts   ownerMap[uint64]
	outpoints ownerMap[wire.OutPoint]

	// seen is a bloom filter of the script keys in front of the script
	// map: nearly every output a block holds is no member's, and one
	// load from a bitmap of 16 bits a script (in cache for a hundred
	// thousand scripts) answers most of them, where the map's probe
	// misses the cache.
	seen bloom
}

func newIndex() *index {
	return &index{seed: maphash.MakeSeed(), scripts: newOwnerMap[uint64](),
		outpoints: newOwnerMap[wire.OutPoint]()}
}

// watched reports whether a member in the scan watches the script of key
// k.
func (x *index) watched(k uint64, in []bool) bool {
	return x.seen.may(k) && x.scripts.anyIn(k, in)
}

// addScript records that member id watches the script of key k; it
// reports false when it did already.
func (x *index) addScript(k uint64, id uint32) bool {
	if !x.scripts.add(k, id) {
		return false
	}
	if !x.seen.add(k, len(x.scripts.one)) {
		x.seen.rebuild(x.scripts.one)
	}
	return true
}

// bloom is a blocked bloom filter of 64-bit keys (uniform hashes): each
// key sets two bits of one word, about 16 bits a key, for a false
// positive rate near 1 %.
type bloom struct {
	words []uint64
	mask  uint64
}

// bloomBitsPerKey is the filter's size per key.
const bloomBitsPerKey = 16

func (b *bloom) may(k uint64) bool {
	if b.words == nil {
		return true
	}
	w := b.words[(k>>32)&b.mask]
	bits := uint64(1)<<(k&63) | uint64(1)<<((k>>6)&63)
	return w&bits == bits
}

// add sets k's bits; it reports false when the filter, sized for fewer
// than n keys, must be rebuilt instead.
func (b *bloom) add(k uint64, n int) bool {
	if uint64(n)*bloomBitsPerKey > uint64(len(b.words))*64*2 || b.words == nil {
		return false
	}
	b.words[(k>>32)&b.mask] |= uint64(1)<<(k&63) | uint64(1)<<((k>>6)&63)
	return true
}

// rebuild sizes the filter for the keys of m and sets their bits.
func (b *bloom) rebuild(m map[uint64]uint32) {
	size := uint64(1)
	for size*64 < uint64(len(m))*bloomBitsPerKey {
		size <<= 1
	}
	b.words, b.mask = make([]uint64, size), size-1
	for k := range m {
		b.words[(k>>32)&b.mask] |= uint64(1)<<(k&63) | uint64(1)<<((k>>6)&63)
	}
}

// key returns the index key of a script.
func (x *index) key(script []byte) uint64 { return maphash.Bytes(x.seed, script) }

// maxSegments is how many filter-matching segments a member keeps before
// they are merged into one.
const maxSegments = 8

// member is one Source and Sink of a follower and what the index holds of
// it.
type member struct {
	id   uint32
	src  Source
	sink Sink

	// matcher is set when the member's scripts are asked, not indexed
	// (WatchList.ByMatch).
	matcher ScriptMatcher

	// gen is the generation of the watch list indexed; loaded tells
	// whether one was.
	gen    uint64
	loaded bool

	// scripts are the member's indexed scripts; the first watched of
	// them are prepared for filter matching in watches (segments, one
	// per load that added scripts).
	scripts []([]byte)
	watched int
	watches []*chain.Watch

	// state is the chain state the member last recorded. joined tells
	// that it is the follower's state.
	state  ChainState
	joined bool

	// stale asks for the watch list to be read again at the next sync
	// (its outpoints, after a rescan); guarded by the follower's mu.
	stale bool

	// changes is the source's ChangeCounter value the index accounts
	// for.
	changes uint64

	// touched tells that the running sync handed the member
	// transactions; written is the height of its last Checkpoint.
	touched bool
	written int32

	// err is the member's last failure, cleared when it joins.
	err error

	// removed is set by Remove; guarded by the follower's mu.
	removed bool
}

// load reads m's watch list and adds what is new to the index.
func (x *index) load(ctx context.Context, m *member) error {
	changes := m.sourceChanges()
	wl, err := m.src.WatchList(ctx)
	if err != nil {
		return err
	}
	if len(m.scripts) == 0 {
		// The list's slices are kept, not their bytes: a wallet hands
		// out slices of the buffers it derived them into.
		m.scripts = make([][]byte, 0, len(wl.Scripts))
	}
	for _, s := range wl.Scripts {
		if x.addScript(x.key(s), m.id) {
			m.scripts = append(m.scripts, s)
		}
	}
	for _, op := range wl.Outpoints {
		x.outpoints.add(op, m.id)
	}
	m.matcher = nil
	if sm, ok := m.src.(ScriptMatcher); ok && wl.ByMatch {
		m.matcher = sm
	}
	m.gen, m.loaded, m.changes = wl.Generation, true, changes
	return nil
}

// sourceChanges returns the source's ChangeCounter value, 0 without one.
func (m *member) sourceChanges() uint64 {
	if cc, ok := m.src.(ChangeCounter); ok {
		return cc.Changes()
	}
	return 0
}

// prepare brings m's filter-matching segments up to its scripts.
func (m *member) prepare() {
	if m.watched == len(m.scripts) {
		return
	}
	m.watches = append(m.watches, chain.NewWatch(m.scripts[m.watched:]))
	m.watched = len(m.scripts)
	if len(m.watches) > maxSegments {
		m.watches = []*chain.Watch{chain.NewWatch(m.scripts)}
	}
}

// drop removes m from the index; the bloom filter keeps its bits until the
// caller rebuilds it (false positives only).
func (x *index) drop(m *member) {
	for _, s := range m.scripts {
		x.scripts.remove(x.key(s), m.id)
	}
	for op, v := range x.outpoints.one {
		if v == m.id || v == manyOwners {
			x.outpoints.remove(op, m.id)
		}
	}
	m.scripts, m.watches, m.watched = nil, nil, 0
}
