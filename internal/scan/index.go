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
}

func newIndex() *index {
	return &index{seed: maphash.MakeSeed(), scripts: newOwnerMap[uint64](),
		outpoints: newOwnerMap[wire.OutPoint]()}
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
	// (its outpoints, after a rescan or a rollback).
	stale bool

	// err is the member's last failure, cleared when it joins.
	err error

	removed bool
}

// load reads m's watch list and adds what is new to the index.
func (x *index) load(ctx context.Context, m *member) error {
	wl, err := m.src.WatchList(ctx)
	if err != nil {
		return err
	}
	for _, s := range wl.Scripts {
		if x.scripts.add(x.key(s), m.id) {
			m.scripts = append(m.scripts, s)
		}
	}
	for _, op := range wl.Outpoints {
		x.outpoints.add(op, m.id)
	}
	m.gen, m.loaded, m.stale = wl.Generation, true, false
	return nil
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

// drop removes m from the index.
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
