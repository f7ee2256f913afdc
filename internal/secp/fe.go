package secp

import (
	"math/bits"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file is field arithmetic modulo p = 2^256 - 2^32 - 977 on four
// 64-bit limbs, for the verifier (verify.go), that is for public data only.
// The library's FieldVal (ten 26-bit limbs) multiplies with a hundred
// 32-bit products; four 64-bit limbs take sixteen 64-bit ones, and the
// reduction is one multiplication by 2^32 + 977 per limb, so a product
// here costs about a quarter of the library's. The operations branch only
// on carries out of the top limb, but nothing secret may use them (see the
// package comment; internal/archtest keeps it so).

// fe is an element of the base field: four little-endian 64-bit limbs
// holding a value below 2^256 that stands for itself modulo p. It need not
// be below p (weakly reduced); normalize brings it there.
type fe [4]uint64

// feC is 2^256 mod p: 2^32 + 977.
const feC = 0x1000003d1

// feP is p.
var feP = fe{0xfffffffefffffc2f, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff}

// setFieldVal sets f to the value of v (any magnitude).
func (f *fe) setFieldVal(v *secp256k1.FieldVal) {
	n := *v
	n.Normalize()
	var b [32]byte
	n.PutBytes(&b)
	f.setBytes(&b)
}

// setBytes sets f to the big-endian 256-bit number b (weakly reduced).
func (f *fe) setBytes(b *[32]byte) {
	for i := range 4 {
		o := 24 - 8*i
		f[i] = uint64(b[o])<<56 | uint64(b[o+1])<<48 | uint64(b[o+2])<<40 | uint64(b[o+3])<<32 |
			uint64(b[o+4])<<24 | uint64(b[o+5])<<16 | uint64(b[o+6])<<8 | uint64(b[o+7])
	}
}

// putBytes writes f, normalized, as 32 big-endian bytes.
func (f *fe) putBytes(b *[32]byte) {
	n := *f
	n.normalize()
	for i := range 4 {
		o := 24 - 8*i
		v := n[i]
		b[o], b[o+1], b[o+2], b[o+3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
		b[o+4], b[o+5], b[o+6], b[o+7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
}

// normalize reduces f below p.
func (f *fe) normalize() {
	// f < 2^256 < 2p: subtract p once if f >= p, that is add 2^256 - p
	// and keep the result when it carries out.
	var t fe
	var c uint64
	t[0], c = bits.Add64(f[0], feC, 0)
	t[1], c = bits.Add64(f[1], 0, c)
	t[2], c = bits.Add64(f[2], 0, c)
	t[3], c = bits.Add64(f[3], 0, c)
	if c != 0 {
		*f = t
	}
}

// isZero reports whether f is 0 modulo p.
func (f *fe) isZero() bool {
	n := *f
	n.normalize()
	return n[0]|n[1]|n[2]|n[3] == 0
}

// equal reports whether f and g are equal modulo p.
func (f *fe) equal(g *fe) bool {
	a, b := *f, *g
	a.normalize()
	b.normalize()
	return a == b
}

// add sets f = a + b.
func (f *fe) add(a, b *fe) {
	var c uint64
	f0, c := bits.Add64(a[0], b[0], 0)
	f1, c := bits.Add64(a[1], b[1], c)
	f2, c := bits.Add64(a[2], b[2], c)
	f3, c := bits.Add64(a[3], b[3], c)
	// A carry out is 2^256 ≡ 2^32 + 977, added back by a mask (carries are
	// as likely as not, a branch would be mispredicted). That addition
	// carries again only when the sum wrapped to below 2^32 + 977, where
	// one more 2^32 + 977 fits in the low limb.
	f0, c = bits.Add64(f0, feC&-c, 0)
	f1, c = bits.Add64(f1, 0, c)
	f2, c = bits.Add64(f2, 0, c)
	f3, c = bits.Add64(f3, 0, c)
	f0 += feC & -c
	f[0], f[1], f[2], f[3] = f0, f1, f2, f3
}

// sub sets f = a - b.
func (f *fe) sub(a, b *fe) {
	var w uint64
	f0, w := bits.Sub64(a[0], b[0], 0)
	f1, w := bits.Sub64(a[1], b[1], w)
	f2, w := bits.Sub64(a[2], b[2], w)
	f3, w := bits.Sub64(a[3], b[3], w)
	// A borrow added 2^256; take away 2^256 - p by a mask. That borrows
	// again only when the difference wrapped to below 2^32 + 977, and then
	// the result is above 2^256 - 2^33, whose low limb takes one more
	// 2^32 + 977 without a borrow.
	f0, w = bits.Sub64(f0, feC&-w, 0)
	f1, w = bits.Sub64(f1, 0, w)
	f2, w = bits.Sub64(f2, 0, w)
	f3, w = bits.Sub64(f3, 0, w)
	f0 -= feC & -w
	f[0], f[1], f[2], f[3] = f0, f1, f2, f3
}

// neg sets f = -a.
func (f *fe) neg(a *fe) {
	f.sub(&feP, a)
}

// double sets f = 2a.
func (f *fe) double(a *fe) {
	f.add(a, a)
}

// mul sets f = a·b.
func (f *fe) mul(a, b *fe) {
	// The 512-bit product, row by row, in registers.
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
	var t [8]uint64
	var c uint64

	c, t0 := mac(a0, b0, 0, 0)
	c, t1 := mac(a0, b1, 0, c)
	c, t2 := mac(a0, b2, 0, c)
	c, t3 := mac(a0, b3, 0, c)
	t4 := c

	c, t1 = mac(a1, b0, t1, 0)
	c, t2 = mac(a1, b1, t2, c)
	c, t3 = mac(a1, b2, t3, c)
	c, t4 = mac(a1, b3, t4, c)
	t5 := c

	c, t2 = mac(a2, b0, t2, 0)
	c, t3 = mac(a2, b1, t3, c)
	c, t4 = mac(a2, b2, t4, c)
	c, t5 = mac(a2, b3, t5, c)
	t6 := c

	c, t3 = mac(a3, b0, t3, 0)
	c, t4 = mac(a3, b1, t4, c)
	c, t5 = mac(a3, b2, t5, c)
	c, t6 = mac(a3, b3, t6, c)

	t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7] = t0, t1, t2, t3, t4, t5, t6, c
	f.reduce(&t)
}

// mac returns a·b + x + y as a high and a low word (it cannot overflow:
// (2^64-1)² + 2·(2^64-1) < 2^128).
func mac(a, b, x, y uint64) (hi, lo uint64) {
	hi, lo = bits.Mul64(a, b)
	var c uint64
	lo, c = bits.Add64(lo, x, 0)
	hi += c
	lo, c = bits.Add64(lo, y, 0)
	hi += c
	return hi, lo
}

// sqr sets f = a².
func (f *fe) sqr(a *fe) {
	// Cross products once, doubled, then the squares on the diagonal.
	var t [8]uint64
	var hi, lo, c uint64

	// a0·(a1, a2, a3) at t[1..4]
	hi, t[1] = bits.Mul64(a[0], a[1])
	h2, l2 := bits.Mul64(a[0], a[2])
	t[2], c = bits.Add64(l2, hi, 0)
	h3, l3 := bits.Mul64(a[0], a[3])
	t[3], c = bits.Add64(l3, h2, c)
	t[4] = h3 + c
	// a1·(a2, a3) at t[3..5]
	hi, lo = bits.Mul64(a[1], a[2])
	t[3], c = bits.Add64(t[3], lo, 0)
	carry := hi + c
	hi, lo = bits.Mul64(a[1], a[3])
	lo, c = bits.Add64(lo, t[4], 0)
	hi += c
	t[4], c = bits.Add64(lo, carry, 0)
	t[5] = hi + c
	// a2·a3 at t[5..6]
	hi, lo = bits.Mul64(a[2], a[3])
	t[5], c = bits.Add64(t[5], lo, 0)
	t[6] = hi + c

	// Double the cross products.
	t[7] = t[6] >> 63
	t[6] = t[6]<<1 | t[5]>>63
	t[5] = t[5]<<1 | t[4]>>63
	t[4] = t[4]<<1 | t[3]>>63
	t[3] = t[3]<<1 | t[2]>>63
	t[2] = t[2]<<1 | t[1]>>63
	t[1] <<= 1

	// Add the squares.
	hi, t[0] = bits.Mul64(a[0], a[0])
	t[1], c = bits.Add64(t[1], hi, 0)
	hi, lo = bits.Mul64(a[1], a[1])
	t[2], c = bits.Add64(t[2], lo, c)
	t[3], c = bits.Add64(t[3], hi, c)
	hi, lo = bits.Mul64(a[2], a[2])
	t[4], c = bits.Add64(t[4], lo, c)
	t[5], c = bits.Add64(t[5], hi, c)
	hi, lo = bits.Mul64(a[3], a[3])
	t[6], c = bits.Add64(t[6], lo, c)
	t[7], _ = bits.Add64(t[7], hi, c)
	f.reduce(&t)
}

// reduce sets f to the 512-bit t modulo p (weakly reduced): the high half
// times 2^256 ≡ 2^32 + 977 is added to the low half, twice.
func (f *fe) reduce(t *[8]uint64) {
	var c, c2, hi, lo uint64

	// t[0..3] + t[4..7]·feC, into four limbs and a small top limb.
	hi, lo = bits.Mul64(t[4], feC)
	r0, c := bits.Add64(t[0], lo, 0)
	top := hi
	hi, lo = bits.Mul64(t[5], feC)
	lo, c2 = bits.Add64(lo, top, 0)
	top = hi + c2
	r1, c := bits.Add64(t[1], lo, c)
	hi, lo = bits.Mul64(t[6], feC)
	lo, c2 = bits.Add64(lo, top, 0)
	top = hi + c2
	r2, c := bits.Add64(t[2], lo, c)
	hi, lo = bits.Mul64(t[7], feC)
	lo, c2 = bits.Add64(lo, top, 0)
	top = hi + c2
	r3, c := bits.Add64(t[3], lo, c)
	top += c

	// top < 2^34: top·feC < 2^67 folds into the low limbs.
	hi, lo = bits.Mul64(top, feC)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2, c = bits.Add64(r2, 0, c)
	r3, c = bits.Add64(r3, 0, c)
	if c != 0 {
		// The sum wrapped: it is now below 2^67, so one more feC fits.
		r0, c = bits.Add64(r0, feC, 0)
		r1, c = bits.Add64(r1, 0, c)
		r2, c = bits.Add64(r2, 0, c)
		r3 += c
	}
	f[0], f[1], f[2], f[3] = r0, r1, r2, r3
}

// mulBeta sets f = β·a, β being the cube root of unity modulo p of the
// secp256k1 endomorphism (λ·(x, y) = (β·x, y)).
func (f *fe) mulBeta(a *fe) {
	f.mul(a, &feBeta)
}

// feBeta is β = 0x7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee.
var feBeta = fe{0xc1396c28719501ee, 0x9cf0497512f58995, 0x6e64479eac3434e9, 0x7ae96a2b657c0710}

// invert sets f = a⁻¹ (zero for zero) through InvertField: public values
// only.
func (f *fe) invert(a *fe) {
	var b [32]byte
	a.putBytes(&b)
	var v secp256k1.FieldVal
	v.SetBytes(&b)
	inv, _ := InvertField(&v)
	inv.PutBytes(&b)
	f.setBytes(&b)
}
