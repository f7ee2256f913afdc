package chain

import "math/bits"

// presence is a bitmap over a filter's range [0, N·M): bit v>>shift is set
// for each element v. A value whose bit is clear is not in the set, which
// spares the bisection of the set for nearly every script of a long watch
// list (with about sixteen bits per element, some 94 % of absent values
// stop at one load). The zero presence answers "maybe" to everything.
type presence struct {
	bits  []uint64
	shift uint
}

// presenceMinWatch is the shortest watch list for which building the
// bitmap (one pass over the set) pays off.
const presenceMinWatch = 64

// presenceMaxBits bounds the bitmap (512 KiB).
const presenceMaxBits = 1 << 22

// may reports whether v may be in the set.
func (p *presence) may(v uint64) bool {
	if p.bits == nil {
		return true
	}
	i := v >> p.shift
	return p.bits[i>>6]&(1<<(i&63)) != 0
}

// presence returns the filter's bitmap, building it at the first call
// with a watch list of at least presenceMinWatch scripts; for shorter
// lists it returns the empty bitmap.
func (f *Filter) presence(watchLen int) *presence {
	if watchLen < presenceMinWatch || len(f.set) == 0 {
		return &presence{}
	}
	f.presentOnce.Do(func() {
		want := min(uint64(len(f.set))*16, presenceMaxBits)
		size := uint64(64)
		for size < want {
			size <<= 1
		}
		// Values lie below nm: shift so that nm-1 maps below size.
		shift := uint(0)
		if top := bits.Len64(f.nm - 1); top > bits.Len64(size-1) {
			shift = uint(top - bits.Len64(size-1))
		}
		p := presence{bits: make([]uint64, size/64), shift: shift}
		for _, v := range f.set {
			i := v >> shift
			p.bits[i>>6] |= 1 << (i & 63)
		}
		f.present = p
	})
	return &f.present
}
