package chain

import (
	"encoding/binary"
	"math/bits"
)

// BIP158 basic filter parameters: the Golomb-Rice parameter P and the
// inverse false-positive rate M.
const (
	filterP = 19
	filterM = 784931
)

// Watch is a list of scripts prepared for matching against many filters:
// where SipHash runs several lanes at once, their SipHash message words
// grouped by length and interleaved; elsewhere the scripts' bytes in one
// buffer. A Watch holds no reference to the scripts it was made from, and
// does not copy them twice. It is read-only once built and safe for
// concurrent use.
type Watch struct {
	n int // number of scripts

	buf  []byte
	ends []int // ends[i] is where script i ends in buf (no lanes only)

	laneGroups []laneGroup
}

// lanes is how many scripts sipLanes hashes at once.
const lanes = 15

// laneGroup is lanes scripts of the same length (the last repeated to fill a
// group) as SipHash message words: word i of script j at
// words[lanes·i+j].
type laneGroup struct {
	n     int // words per script
	words []uint64
}

// NewWatch prepares scripts for Filter.MatchWatch.
func NewWatch(scripts [][]byte) *Watch { return newWatch(scripts, haveSipLanes) }

// newWatch prepares scripts for the lanes (withLanes) or for the scalar
// hash.
func newWatch(scripts [][]byte, withLanes bool) *Watch {
	w := &Watch{n: len(scripts)}
	if withLanes {
		w.laneGroups = makeLaneGroups(scripts)
		return w
	}
	size := 0
	for _, s := range scripts {
		size += len(s)
	}
	w.buf, w.ends = make([]byte, 0, size), make([]int, len(scripts))
	for i, s := range scripts {
		w.buf = append(w.buf, s...)
		w.ends[i] = len(w.buf)
	}
	return w
}

// makeLaneGroups groups scripts by length into lane groups.
func makeLaneGroups(scripts [][]byte) []laneGroup {
	byLen := make(map[int][][]byte)
	var lens []int
	for _, s := range scripts {
		if _, ok := byLen[len(s)]; !ok {
			lens = append(lens, len(s))
		}
		byLen[len(s)] = append(byLen[len(s)], s)
	}
	var laneGroups []laneGroup
	for _, l := range lens {
		group := byLen[l]
		n := l/8 + 1
		for len(group) > 0 {
			q := laneGroup{n: n, words: make([]uint64, lanes*n)}
			for j := 0; j < lanes; j++ {
				s := group[min(j, len(group)-1)]
				for i := 0; i < n-1; i++ {
					q.words[lanes*i+j] = binary.LittleEndian.Uint64(s[8*i:])
				}
				q.words[lanes*(n-1)+j] = lastWord(s[8*(n-1):], l)
			}
			group = group[min(lanes, len(group)):]
			laneGroups = append(laneGroups, q)
		}
	}
	return laneGroups
}

// lastWord returns the final SipHash message word of a message of n bytes
// whose last n%8 bytes are p.
func lastWord(p []byte, n int) uint64 {
	m := uint64(n) << 56
	for i := len(p) - 1; i >= 0; i-- {
		m |= uint64(p[i]) << (8 * uint(i))
	}
	return m
}

// Len returns the number of scripts.
func (w *Watch) Len() int { return w.n }

// decodeSet decodes the Golomb-Rice coded set of n elements in data (each
// element a unary quotient and a filterP-bit remainder, bits most
// significant first) into its sorted values. It reports false when data
// ends before n elements.
func decodeSet(data []byte, n uint64) ([]uint64, bool) {
	if n == 0 {
		return nil, true
	}
	set := make([]uint64, n)
	br := bitReader{data: data}
	var last uint64 // running sum of the deltas
	for i := range set {
		// Quotient: count ones up to the terminating zero.
		var q uint64
		for {
			if br.have == 0 && !br.fill() {
				return nil, false
			}
			ones := uint(bits.LeadingZeros64(^br.acc))
			if ones >= br.have {
				q += uint64(br.have)
				br.have = 0
				continue
			}
			q += uint64(ones)
			br.acc <<= ones + 1
			br.have -= ones + 1
			break
		}
		// Remainder: filterP bits.
		var r uint64
		need := uint(filterP)
		for need > 0 {
			if br.have == 0 && !br.fill() {
				return nil, false
			}
			take := min(need, br.have)
			r = r<<take | br.acc>>(64-take)
			br.acc <<= take
			br.have -= take
			need -= take
		}
		last += q<<filterP | r
		set[i] = last
	}
	return set, true
}

// bitReader holds the bits of data not consumed yet, most significant
// first.
type bitReader struct {
	data []byte
	pos  int    // next byte of data
	acc  uint64 // bits not consumed yet, left-aligned
	have uint   // number of valid bits in acc
}

// fill loads the next bytes of data (eight, or one near the end) into the
// empty acc; it reports false when data has none left.
func (br *bitReader) fill() bool {
	switch {
	case br.pos+8 <= len(br.data):
		br.acc = binary.BigEndian.Uint64(br.data[br.pos:])
		br.pos += 8
		br.have = 64
	case br.pos < len(br.data):
		br.acc = uint64(br.data[br.pos]) << 56
		br.pos++
		br.have = 8
	default:
		return false
	}
	return true
}

// sipKey is a SipHash-2-4 key prepared as its initial state.
type sipKey struct {
	v0, v1, v2, v3 uint64
}

// newSipKey derives the initial SipHash state of the 128-bit key k0, k1.
func newSipKey(k0, k1 uint64) sipKey {
	return sipKey{
		v0: k0 ^ 0x736f6d6570736575,
		v1: k1 ^ 0x646f72616e646f6d,
		v2: k0 ^ 0x6c7967656e657261,
		v3: k1 ^ 0x7465646279746573,
	}
}

// sum64 returns SipHash-2-4 of p under key k.
func (k *sipKey) sum64(p []byte) uint64 {
	v0, v1, v2, v3 := k.v0, k.v1, k.v2, k.v3
	n := len(p)
	for len(p) >= 8 {
		m := binary.LittleEndian.Uint64(p)
		p = p[8:]
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
	}
	last := lastWord(p, n)
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	v2 ^= 0xff
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

// sipRound is one SipRound of state v0..v3.
func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13)
	v1 ^= v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16)
	v3 ^= v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21)
	v3 ^= v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17)
	v1 ^= v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}

// smallSet is the largest filter probed element by element; larger sets
// are searched by bisection.
const smallSet = 16

// contains reports whether the sorted set holds v.
func contains(set []uint64, v uint64) bool {
	if len(set) <= smallSet {
		for _, e := range set {
			if e == v {
				return true
			}
		}
		return false
	}
	lo, hi := 0, len(set)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if set[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(set) && set[lo] == v
}

// value returns the filter value of item: its SipHash under the filter's
// key mapped onto [0, N·M) by the high half of a 128-bit product.
func (f *Filter) value(item []byte) uint64 {
	hi, _ := bits.Mul64(f.sip.sum64(item), f.nm)
	return hi
}

// MatchWatch reports whether the filter may hold any of w's scripts
// (false positives at a rate of 1/784931 per script, no false negatives).
func (f *Filter) MatchWatch(w *Watch) bool {
	if len(f.set) == 0 {
		return false
	}
	pr := f.presence(w.Len())
	if w.laneGroups != nil {
		var out [lanes]uint64
		for i := range w.laneGroups {
			q := &w.laneGroups[i]
			sipLanes(&f.sip, &q.words[0], q.n, &out)
			for _, h := range out {
				if v, _ := bits.Mul64(h, f.nm); pr.may(v) && contains(f.set, v) {
					return true
				}
			}
		}
		return false
	}
	start := 0
	for _, end := range w.ends {
		if v := f.value(w.buf[start:end]); pr.may(v) && contains(f.set, v) {
			return true
		}
		start = end
	}
	return false
}
