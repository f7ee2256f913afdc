package secp

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Batched affine additions of public points on the four-limb field, for
// the descriptor engine's public derivation (an xpub's children): the
// additions of a batch share one field inversion (Montgomery's trick), and
// that inversion is an exponentiation on the four-limb field, so a batch
// allocates nothing and uses no math/big. Variable time: public data only
// (see the package comment).

// AffinePoint is an affine point of the curve (never the point at
// infinity), public data only.
type AffinePoint struct {
	x, y fe
}

// SetFieldVals sets p to (x, y); the values need not be normalized.
func (p *AffinePoint) SetFieldVals(x, y *secp256k1.FieldVal) {
	p.x.setFieldVal(x)
	p.y.setFieldVal(y)
}

// PutCompressed writes p's 33-byte compressed encoding (02 or 03 by the
// parity of y, then x).
func (p *AffinePoint) PutCompressed(b *[33]byte) {
	y := p.y
	y.normalize()
	b[0] = 2 | byte(y[0]&1)
	var x [32]byte
	p.x.putBytes(&x)
	copy(b[1:], x[:])
}

// BatchAdder adds affine points in batches. Its working memory grows to
// the largest batch and is reused; one adder serves one goroutine.
type BatchAdder struct {
	diff, prod []fe
}

// Add sets *acc[i] = *acc[i] + *add[i] for every i, with one field
// inversion for the whole batch. Where the two points of a pair have the
// same x (a doubling, or a sum at infinity: practically never for the
// public derivations it serves) it sets bad[i] and leaves *acc[i] as it
// was; the caller computes that sum another way. bad has acc's length; add
// at least.
func (b *BatchAdder) Add(acc, add []*AffinePoint, bad []bool) {
	n := len(acc)
	if n == 0 {
		return
	}
	if cap(b.diff) < n {
		b.diff = make([]fe, n)
		b.prod = make([]fe, n)
	}
	diff, prod := b.diff[:n], b.prod[:n]
	// diff[i] = x2 - x1; prod[i] = the product of the non-zero diffs
	// through i.
	running := fe{1}
	for i := range n {
		diff[i].sub(&add[i].x, &acc[i].x)
		bad[i] = diff[i].isZero()
		if !bad[i] {
			running.mul(&running, &diff[i])
		}
		prod[i] = running
	}
	// running is a product of non-zero field elements: never zero.
	var inv fe
	inv.invertExp(&running)
	for i := n - 1; i >= 0; i-- {
		if bad[i] {
			continue
		}
		// 1/diff[i] = inv · prod[i-1] (a skipped pair leaves the product
		// unchanged); then inv becomes the inverse of prod[i-1].
		var dinv fe
		if i > 0 {
			dinv.mul(&inv, &prod[i-1])
		} else {
			dinv = inv
		}
		inv.mul(&inv, &diff[i])

		p, q := acc[i], add[i]
		var lambda, t, x3, y3 fe
		t.sub(&q.y, &p.y)
		lambda.mul(&t, &dinv) // (y2 - y1) / (x2 - x1)
		x3.sqr(&lambda)
		x3.sub(&x3, &p.x)
		x3.sub(&x3, &q.x) // λ² - x1 - x2
		t.sub(&p.x, &x3)
		y3.mul(&lambda, &t)
		y3.sub(&y3, &p.y) // λ(x1 - x3) - y1
		p.x, p.y = x3, y3
	}
}

// invertExp sets f = a⁻¹ as a^(p-2) (zero for zero): 255 squarings and
// 15 multiplications on the four-limb field, libsecp256k1's addition
// chain. It allocates nothing; public values only, like the rest of the
// four-limb field.
func (f *fe) invertExp(a *fe) {
	// x_k = a^(2^k - 1).
	var x2, x3, x6, x9, x11, x22, x44, x88, x176, x220, x223, t fe
	sqrN := func(dst, src *fe, n int) {
		*dst = *src
		for range n {
			dst.sqr(dst)
		}
	}
	x2.sqr(a)
	x2.mul(&x2, a)
	x3.sqr(&x2)
	x3.mul(&x3, a)
	sqrN(&x6, &x3, 3)
	x6.mul(&x6, &x3)
	sqrN(&x9, &x6, 3)
	x9.mul(&x9, &x3)
	sqrN(&x11, &x9, 2)
	x11.mul(&x11, &x2)
	sqrN(&x22, &x11, 11)
	x22.mul(&x22, &x11)
	sqrN(&x44, &x22, 22)
	x44.mul(&x44, &x22)
	sqrN(&x88, &x44, 44)
	x88.mul(&x88, &x44)
	sqrN(&x176, &x88, 88)
	x176.mul(&x176, &x88)
	sqrN(&x220, &x176, 44)
	x220.mul(&x220, &x44)
	sqrN(&x223, &x220, 3)
	x223.mul(&x223, &x3)
	// p - 2 = 2^256 - 2^32 - 979: 223 ones, a zero, 22 ones, four zeros,
	// then 101101 in binary.
	sqrN(&t, &x223, 23)
	t.mul(&t, &x22)
	sqrN(&t, &t, 5)
	t.mul(&t, a)
	sqrN(&t, &t, 3)
	t.mul(&t, &x2)
	sqrN(&t, &t, 2)
	f.mul(&t, a)
}
