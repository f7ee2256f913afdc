package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Events are stored in packs: the events one write transaction appends
// (a block's payments, their confirmations and the depths it completes)
// are one row of wallet_event_packs, holding the cursors cursor..last.
// The driver's cost is per statement and per bound value, and SQLite's per
// row, so a block's events cost one short row whatever their number, and
// a field equal to the event before's is stored once.
//
// A pack's body is its events in cursor order, each:
//
//	flags    1 byte: packSameTx, packSameBlock, packSameTime, packSameDetail
//	kind     uvarint length, then the bytes
//	depth    uvarint
//	txid     32 bytes, unless packSameTx
//	height   varint (-1: no block), then the block hash (32 bytes) when
//	         not -1; both absent when packSameBlock
//	time     varint, unless packSameTime
//	detail   uvarint length+1 (0: none), then the bytes; absent when
//	         packSameDetail
//
// A "same" flag takes the field from the event before in the pack; the
// first event has none.
const (
	packSameTx = 1 << iota
	packSameBlock
	packSameTime
	packSameDetail
	packFlagsKnown = packSameTx | packSameBlock | packSameTime | packSameDetail
)

// maxPackEvents bounds the events of one pack, so that the pack holding a
// cursor starts at most maxPackEvents-1 cursors before it.
const maxPackEvents = 64

// packEventSize is the most an event takes in a pack besides its kind
// and detail.
const packEventSize = 1 + binary.MaxVarintLen64*5 + 32 + 32

// maxEventKind bounds an event kind's length (the wallet's are words).
const maxEventKind = 64

// appendEventPack appends the body of a pack holding evs, which are at
// most maxPackEvents, to b.
func appendEventPack(b []byte, evs []Event) ([]byte, error) {
	for i := range evs {
		e := &evs[i]
		if e.Depth < 0 {
			return nil, fmt.Errorf("event depth %d", e.Depth)
		}
		if len(e.Kind) > maxEventKind {
			return nil, fmt.Errorf("event kind of %d bytes", len(e.Kind))
		}
		var flags byte
		if i > 0 {
			prev := &evs[i-1]
			if e.TxID == prev.TxID {
				flags |= packSameTx
			}
			if sameBlock(prev, e) {
				flags |= packSameBlock
			}
			if e.Time == prev.Time {
				flags |= packSameTime
			}
			if (e.Detail == nil) == (prev.Detail == nil) && string(e.Detail) == string(prev.Detail) {
				flags |= packSameDetail
			}
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(len(e.Kind)))
		b = append(b, e.Kind...)
		b = binary.AppendUvarint(b, uint64(e.Depth))
		if flags&packSameTx == 0 {
			b = append(b, e.TxID[:]...)
		}
		if flags&packSameBlock == 0 {
			if e.Height < 0 {
				b = binary.AppendVarint(b, -1)
			} else {
				b = binary.AppendVarint(b, int64(e.Height))
				b = append(b, e.BlockHash[:]...)
			}
		}
		if flags&packSameTime == 0 {
			b = binary.AppendVarint(b, e.Time)
		}
		if flags&packSameDetail == 0 {
			if e.Detail == nil {
				b = append(b, 0)
			} else {
				b = binary.AppendUvarint(b, uint64(len(e.Detail))+1)
				b = append(b, e.Detail...)
			}
		}
	}
	return b, nil
}

// sameBlock reports whether a and b place their transactions alike: in
// the same block, or both in none.
func sameBlock(a, b *Event) bool {
	if a.Height < 0 || b.Height < 0 {
		return a.Height < 0 && b.Height < 0
	}
	return a.Height == b.Height && a.BlockHash == b.BlockHash
}

// decodeEventPack reads the n events of a pack body whose first cursor is
// first. It accepts exactly what appendEventPack writes: n events, every
// length within the body, nothing after the last.
func decodeEventPack(body []byte, first int64, n int) ([]Event, error) {
	if n < 1 || n > maxPackEvents {
		return nil, fmt.Errorf("event pack at %d: %d events", first, n)
	}
	r := packReader{b: body}
	out := make([]Event, n)
	for i := range out {
		e := &out[i]
		e.Cursor = first + int64(i)
		flags := r.byte()
		if flags&^packFlagsKnown != 0 || (i == 0 && flags != 0) {
			return nil, fmt.Errorf("event %d: flags %#x", e.Cursor, flags)
		}
		var prev *Event
		if i > 0 {
			prev = &out[i-1]
		}
		k := r.uvarint()
		if k > maxEventKind {
			return nil, fmt.Errorf("event %d: kind of %d bytes", e.Cursor, k)
		}
		e.Kind = string(r.bytes(int(k)))
		d := r.uvarint()
		if d > math.MaxInt32 {
			return nil, fmt.Errorf("event %d: depth %d", e.Cursor, d)
		}
		e.Depth = int32(d)
		if flags&packSameTx != 0 {
			e.TxID = prev.TxID
		} else {
			copy(e.TxID[:], r.bytes(32))
		}
		if flags&packSameBlock != 0 {
			e.Height, e.BlockHash = prev.Height, prev.BlockHash
		} else {
			h := r.varint()
			if h < -1 || h > math.MaxInt32 {
				return nil, fmt.Errorf("event %d: height %d", e.Cursor, h)
			}
			e.Height = int32(h)
			if h >= 0 {
				copy(e.BlockHash[:], r.bytes(32))
			}
		}
		if flags&packSameTime != 0 {
			e.Time = prev.Time
		} else {
			e.Time = r.varint()
		}
		if flags&packSameDetail != 0 {
			e.Detail = prev.Detail
		} else if l := r.uvarint(); l > 0 {
			if l-1 > uint64(len(r.b)) {
				return nil, fmt.Errorf("event %d: detail of %d bytes", e.Cursor, l-1)
			}
			e.Detail = append([]byte{}, r.bytes(int(l-1))...)
		}
		if r.short {
			return nil, fmt.Errorf("event %d: pack ends early", e.Cursor)
		}
	}
	if len(r.b) > 0 {
		return nil, fmt.Errorf("event pack at %d: %d bytes after its last event", first, len(r.b))
	}
	return out, nil
}

// packReader reads a pack body; short records that a read went past its
// end (what it returned then is zero).
type packReader struct {
	b     []byte
	short bool
}

func (r *packReader) byte() byte {
	if len(r.b) == 0 {
		r.short = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *packReader) bytes(n int) []byte {
	if n > len(r.b) {
		r.short, r.b = true, nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *packReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	return varintRead(r, v, n)
}

func (r *packReader) varint() int64 {
	v, n := binary.Varint(r.b)
	return varintRead(r, v, n)
}

// varintRead consumes the n bytes of a varint read as v, or marks the
// body short when there was none (n not above 0) and gives zero.
func varintRead[T int64 | uint64](r *packReader, v T, n int) T {
	if n <= 0 {
		r.short, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}
