package secp

import (
	"crypto/sha256"
	"math/bits"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file is a variable-time ECDSA verifier: public data only (the
// signature, the hash and the public key). It computes u1·G + u2·P as the
// library's verifier does, but in one pass (Strauss): each scalar is split
// by the endomorphism into two halves of about 128 bits (k = k1 + k2·λ,
// λ·(x, y) = (β·x, y)), each half is written in width-w NAF, and the four
// halves share one chain of about 130 doublings. G's odd multiples are
// precomputed once (in affine form), P's are computed per call; all
// arithmetic is on the four-limb field of fe.go. The x coordinate of the
// result is compared with r in Jacobian form, without an inversion
// (r·Z² = X, or (r + n)·Z² = X when r + n < p).

// Window widths: digits of the NAF are odd and below 2^(w-1) in absolute
// value, so a table holds 2^(w-2) odd multiples.
const (
	windowP = 5
	windowG = 12
)

// affinePoint is a point in affine coordinates (never the point at
// infinity).
type affinePoint struct {
	x, y fe
}

// jacPoint is a point in Jacobian coordinates (x/z², y/z³), or the point
// at infinity when inf is set.
type jacPoint struct {
	x, y, z fe
	inf     bool
}

// setAffine sets p to a.
func (p *jacPoint) setAffine(a *affinePoint) {
	p.x, p.y = a.x, a.y
	p.z = fe{1}
	p.inf = false
}

// double sets p = 2a (a may be p). No point of secp256k1 has y = 0 (the
// group has odd order), so only the point at infinity doubles to itself.
func (p *jacPoint) double(a *jacPoint) {
	if a.inf {
		p.inf = true
		return
	}
	// A = X², B = Y², C = B², D = 2·((X + B)² - A - C), E = 3·A,
	// X3 = E² - 2·D, Y3 = E·(D - X3) - 8·C, Z3 = 2·Y·Z.
	var aa, bb, cc, d, e, t fe
	aa.sqr(&a.x)
	bb.sqr(&a.y)
	cc.sqr(&bb)
	d.add(&a.x, &bb)
	d.sqr(&d)
	d.sub(&d, &aa)
	d.sub(&d, &cc)
	d.double(&d)
	e.double(&aa)
	e.add(&e, &aa)
	var z3 fe
	z3.mul(&a.y, &a.z)
	p.z.double(&z3)
	var x3 fe
	x3.sqr(&e)
	t.double(&d)
	x3.sub(&x3, &t)
	t.sub(&d, &x3)
	p.y.mul(&e, &t)
	cc.double(&cc)
	cc.double(&cc)
	cc.double(&cc)
	p.y.sub(&p.y, &cc)
	p.x = x3
	p.inf = false
}

// addAffine sets p = a + b for an affine b, negated when negY is set (a
// may be p).
func (p *jacPoint) addAffine(a *jacPoint, b *affinePoint, negY bool) {
	by := b.y
	if negY {
		by.neg(&b.y)
	}
	if a.inf {
		p.x, p.y, p.z = b.x, by, fe{1}
		p.inf = false
		return
	}
	// Z1Z1 = Z1², U2 = X2·Z1Z1, S2 = Y2·Z1·Z1Z1, H = U2 - X1, R = S2 - Y1,
	// X3 = R² - H³ - 2·X1·H², Y3 = R·(X1·H² - X3) - Y1·H³, Z3 = Z1·H.
	var z1z1, u2, s2, h, r fe
	z1z1.sqr(&a.z)
	u2.mul(&b.x, &z1z1)
	s2.mul(&by, &a.z)
	s2.mul(&s2, &z1z1)
	h.sub(&u2, &a.x)
	r.sub(&s2, &a.y)
	if h.isZero() {
		if r.isZero() {
			var q jacPoint
			q.setAffine(&affinePoint{b.x, by})
			p.double(&q)
			return
		}
		p.inf = true
		return
	}
	var hh, hhh, v, t fe
	hh.sqr(&h)
	hhh.mul(&h, &hh)
	v.mul(&a.x, &hh)
	var x3, y3 fe
	x3.sqr(&r)
	x3.sub(&x3, &hhh)
	t.double(&v)
	x3.sub(&x3, &t)
	t.sub(&v, &x3)
	y3.mul(&r, &t)
	t.mul(&a.y, &hhh)
	y3.sub(&y3, &t)
	p.z.mul(&a.z, &h)
	p.x, p.y = x3, y3
	p.inf = false
}

// add sets p = a + b for Jacobian a and b.
func (p *jacPoint) add(a, b *jacPoint) {
	switch {
	case a.inf:
		*p = *b
		return
	case b.inf:
		*p = *a
		return
	}
	// U1 = X1·Z2², U2 = X2·Z1², S1 = Y1·Z2³, S2 = Y2·Z1³,
	// H = U2 - U1, R = S2 - S1,
	// X3 = R² - H³ - 2·U1·H², Y3 = R·(U1·H² - X3) - S1·H³, Z3 = Z1·Z2·H.
	var z1z1, z2z2, u1, u2, s1, s2, h, r fe
	z1z1.sqr(&a.z)
	z2z2.sqr(&b.z)
	u1.mul(&a.x, &z2z2)
	u2.mul(&b.x, &z1z1)
	s1.mul(&a.y, &b.z)
	s1.mul(&s1, &z2z2)
	s2.mul(&b.y, &a.z)
	s2.mul(&s2, &z1z1)
	h.sub(&u2, &u1)
	r.sub(&s2, &s1)
	if h.isZero() {
		if r.isZero() {
			p.double(a)
			return
		}
		p.inf = true
		return
	}
	var hh, hhh, v, t, x3, y3, z3 fe
	hh.sqr(&h)
	hhh.mul(&h, &hh)
	v.mul(&u1, &hh)
	x3.sqr(&r)
	x3.sub(&x3, &hhh)
	t.double(&v)
	x3.sub(&x3, &t)
	t.sub(&v, &x3)
	y3.mul(&r, &t)
	t.mul(&s1, &hhh)
	y3.sub(&y3, &t)
	z3.mul(&a.z, &b.z)
	z3.mul(&z3, &h)
	p.x, p.y, p.z = x3, y3, z3
	p.inf = false
}

// toAffineBatch converts points (none at infinity) to affine form with one
// inversion; prefix is scratch space of len(pts) elements.
func toAffineBatch(pts []jacPoint, out []affinePoint, prefix []fe) {
	n := len(pts)
	prefix[0] = pts[0].z
	for i := 1; i < n; i++ {
		prefix[i].mul(&prefix[i-1], &pts[i].z)
	}
	var inv fe
	inv.invert(&prefix[n-1])
	for i := n - 1; i >= 0; i-- {
		var zi fe
		if i > 0 {
			zi.mul(&inv, &prefix[i-1])
			inv.mul(&inv, &pts[i].z)
		} else {
			zi = inv
		}
		var z2, z3 fe
		z2.sqr(&zi)
		z3.mul(&z2, &zi)
		out[i].x.mul(&pts[i].x, &z2)
		out[i].y.mul(&pts[i].y, &z3)
		out[i].x.normalize()
		out[i].y.normalize()
	}
}

// oddMultiples sets out to P, 3P, 5P, ..., (2·len(out) - 1)P in affine
// form; pts and prefix are scratch space of len(out) elements.
func oddMultiples(p *affinePoint, out []affinePoint, pts []jacPoint, prefix []fe) {
	oddMultiplesJacobian(p, pts)
	toAffineBatch(pts, out, prefix)
}

// oddMultiplesJacobian sets pts to P, 3P, 5P, ... in Jacobian form.
func oddMultiplesJacobian(p *affinePoint, pts []jacPoint) {
	pts[0].setAffine(p)
	var d jacPoint
	d.double(&pts[0])
	for i := 1; i < len(pts); i++ {
		pts[i].add(&pts[i-1], &d)
	}
}

// gTables are the odd multiples of G and of λ·G = (β·Gx, Gy), built on
// first use.
var gTables = sync.OnceValue(func() *[2][1 << (windowG - 2)]affinePoint {
	var t [2][1 << (windowG - 2)]affinePoint
	var one secp256k1.ModNScalar
	one.SetInt(1)
	var gj secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&one, &gj)
	gj.ToAffine()
	var g affinePoint
	g.x.setFieldVal(&gj.X)
	g.y.setFieldVal(&gj.Y)
	n := len(t[0])
	oddMultiples(&g, t[0][:], make([]jacPoint, n), make([]fe, n))
	for i := range t[0] {
		t[1][i].x.mulBeta(&t[0][i].x)
		t[1][i].x.normalize()
		t[1][i].y = t[0][i].y
	}
	return &t
})

// The endomorphism's scalar λ (λ³ = 1 mod n) and the constants of the
// split k = k1 + k2·λ (as in the GLV method): the lattice vectors' -b1 and
// -b2 modulo n, and g1 = round(2^384·b2/n), g2 = round(2^384·(-b1)/n) as
// little-endian limbs.
var (
	scalarLambda  = scalarFromHex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	scalarMinusB1 = scalarFromHex("00000000000000000000000000000000e4437ed6010e88286f547fa90abfe4c3")
	scalarMinusB2 = scalarFromHex("fffffffffffffffffffffffffffffffe8a280ac50774346dd765cda83db1562c")
	splitG1       = [4]uint64{0xe893209a45dbb031, 0x3daa8a1471e8ca7f, 0xe86c90e49284eb15, 0x3086d221a7d46bcd}
	splitG2       = [4]uint64{0x1571b4ae8ac47f71, 0x221208ac9df506c6, 0x6f547fa90abfe4c4, 0xe4437ed6010e8828}
)

func scalarFromHex(h string) secp256k1.ModNScalar {
	var b [32]byte
	for i := range b {
		b[i] = unhex(h[2*i])<<4 | unhex(h[2*i+1])
	}
	var s secp256k1.ModNScalar
	s.SetBytes(&b)
	return s
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// scalarLimbs returns s as four little-endian 64-bit limbs.
func scalarLimbs(s *secp256k1.ModNScalar) [4]uint64 {
	var b [32]byte
	s.PutBytes(&b)
	var f fe
	f.setBytes(&b)
	return f
}

// mulShift384 returns round(k·g / 2^384) for a 256-bit k and g.
func mulShift384(k, g *[4]uint64) secp256k1.ModNScalar {
	var t [8]uint64
	for i := range 4 {
		var carry uint64
		for j := range 4 {
			hi, lo := bits.Mul64(k[i], g[j])
			var c uint64
			lo, c = bits.Add64(lo, t[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			t[i+j] = lo
			carry = hi
		}
		t[i+4] = carry
	}
	// Bits 384..511, plus bit 383 for the rounding.
	var c uint64
	lo, c := bits.Add64(t[6], t[5]>>63, 0)
	hi := t[7] + c
	var b [32]byte
	for i := range 8 {
		b[31-i] = byte(lo >> (8 * i))
		b[23-i] = byte(hi >> (8 * i))
	}
	var s secp256k1.ModNScalar
	s.SetBytes(&b)
	return s
}

// splitScalar returns k1 and k2 with k = k1 + k2·λ (mod n), each of about
// 128 bits in absolute value: the values and whether each is negative.
func splitScalar(k *secp256k1.ModNScalar) (k1, k2 secp256k1.ModNScalar, neg1, neg2 bool) {
	kl := scalarLimbs(k)
	c1 := mulShift384(&kl, &splitG1)
	c2 := mulShift384(&kl, &splitG2)
	c1.Mul(&scalarMinusB1)
	c2.Mul(&scalarMinusB2)
	k2.Add2(&c1, &c2)
	k1.Mul2(&k2, &scalarLambda).Negate().Add(k)
	if k1.IsOverHalfOrder() {
		k1.Negate()
		neg1 = true
	}
	if k2.IsOverHalfOrder() {
		k2.Negate()
		neg2 = true
	}
	return k1, k2, neg1, neg2
}

// maxNAF is the most digits a NAF of a scalar below 2^256 can have.
const maxNAF = 257

// wnaf writes the width-w NAF of s into out (digit i is the coefficient
// of 2^i) and returns the number of digits up to the last non-zero one.
func wnaf(s *secp256k1.ModNScalar, w uint, out *[maxNAF]int16) int {
	*out = [maxNAF]int16{}
	v := scalarLimbs(s)
	bit := func(i int) uint64 {
		if i >= 256 {
			return 0
		}
		return v[i>>6] >> (i & 63) & 1
	}
	bitsAt := func(i int, n uint) uint64 {
		// n < 64 bits from position i (zero beyond 256).
		var r uint64
		if i < 256 {
			r = v[i>>6] >> (i & 63)
			if i&63+int(n) > 64 && i>>6 < 3 {
				r |= v[i>>6+1] << (64 - i&63)
			}
		}
		return r & (1<<n - 1)
	}
	length := 0
	carry := uint64(0)
	for i := 0; i < maxNAF; {
		if bit(i) == carry {
			i++
			continue
		}
		word := bitsAt(i, w) + carry
		carry = word >> (w - 1) & 1
		d := int(word) - int(carry<<w)
		out[i] = int16(d)
		length = i + 1
		i += int(w)
	}
	return length
}

// VerifyECDSA reports whether (r, s) is a valid ECDSA signature of hash by
// pub, with the library verifier's rules (ecdsa.Signature.Verify): r and s
// in [1, n-1], hash read as Core does (the first 32 bytes, big-endian,
// modulo n), any S. It is several times faster than the library's and
// takes time that depends on its inputs: public data only.
func VerifyECDSA(r, s *secp256k1.ModNScalar, hash []byte, pub *secp256k1.PublicKey) bool {
	if r.IsZero() || s.IsZero() {
		return false
	}
	var w secp256k1.ModNScalar
	w.InverseValNonConst(s)

	// The odd multiples of P.
	var tp [1 << (windowP - 2)]affinePoint
	var scratchP [1 << (windowP - 2)]jacPoint
	var scratchF [1 << (windowP - 2)]fe
	var pa affinePoint
	pubAffine(pub, &pa)
	oddMultiples(&pa, tp[:], scratchP[:], scratchF[:])
	return verifyWith(r, &w, hash, &tp)
}

// ECDSACheck is one signature for VerifyECDSABatch: r, s, the hash and
// the public key, as VerifyECDSA takes them.
type ECDSACheck struct {
	R, S secp256k1.ModNScalar
	Hash []byte
	Pub  *secp256k1.PublicKey
}

// VerifyECDSABatch sets ok[i] to what VerifyECDSA answers for checks[i],
// for each i. Every signature is verified on its own, and a bad one fails
// alone; the batch only shares the two inversions of each verification
// (s⁻¹ modulo n, and the affine form of the public key's odd multiples):
// one of each for the whole batch. ok must be as long as checks.
func VerifyECDSABatch(checks []ECDSACheck, ok []bool) {
	var valid []int
	for i := range checks {
		ok[i] = false
		if !checks[i].R.IsZero() && !checks[i].S.IsZero() {
			valid = append(valid, i)
		}
	}
	m := len(valid)
	if m == 0 {
		return
	}

	// s⁻¹ for each: prefix products, one inversion, and each inverse
	// from its neighbours' products.
	prefix := make([]secp256k1.ModNScalar, m)
	for j, i := range valid {
		prefix[j] = checks[i].S
		if j > 0 {
			prefix[j].Mul(&prefix[j-1])
		}
	}
	ws := make([]secp256k1.ModNScalar, m)
	var inv secp256k1.ModNScalar
	inv.InverseValNonConst(&prefix[m-1])
	for j := m - 1; j > 0; j-- {
		ws[j].Mul2(&inv, &prefix[j-1])
		inv.Mul(&checks[valid[j]].S)
	}
	ws[0] = inv

	// Every key's odd multiples, to affine form together.
	const size = 1 << (windowP - 2)
	pts := make([]jacPoint, m*size)
	aff := make([]affinePoint, m*size)
	for j, i := range valid {
		var pa affinePoint
		pubAffine(checks[i].Pub, &pa)
		oddMultiplesJacobian(&pa, pts[j*size:(j+1)*size])
	}
	toAffineBatch(pts, aff, make([]fe, m*size))

	for j, i := range valid {
		ok[i] = verifyWith(&checks[i].R, &ws[j], checks[i].Hash, (*[size]affinePoint)(aff[j*size:]))
	}
}

// pubAffine sets a to the public key's point.
func pubAffine(pub *secp256k1.PublicKey, a *affinePoint) {
	var q secp256k1.JacobianPoint
	pub.AsJacobian(&q)
	a.x.setFieldVal(&q.X)
	a.y.setFieldVal(&q.Y)
}

// verifyWith is the verification of a signature with r ≠ 0 and w = s⁻¹
// of hash, by the key whose odd multiples are tp.
func verifyWith(r, w *secp256k1.ModNScalar, hash []byte, tp *[1 << (windowP - 2)]affinePoint) bool {
	var e, u1, u2 secp256k1.ModNScalar
	e.SetByteSlice(hash)
	u1.Mul2(&e, w)
	u2.Mul2(r, w)
	acc := mulAdd(&u1, &u2, tp)
	if acc.inf {
		return false
	}

	// r·Z² = X, or, when r + n < p, (r + n)·Z² = X.
	var rb [32]byte
	r.PutBytes(&rb)
	var rf, zz, x fe
	rf.setBytes(&rb)
	zz.sqr(&acc.z)
	x.mul(&rf, &zz)
	if x.equal(&acc.x) {
		return true
	}
	var rn fe
	var c uint64
	rn[0], c = bits.Add64(rf[0], orderN[0], 0)
	rn[1], c = bits.Add64(rf[1], orderN[1], c)
	rn[2], c = bits.Add64(rf[2], orderN[2], c)
	rn[3], c = bits.Add64(rf[3], orderN[3], c)
	if c != 0 || !lessThanP(&rn) {
		return false
	}
	x.mul(&rn, &zz)
	return x.equal(&acc.x)
}

// mulAdd returns u1·G + u2·P in Jacobian form, P being the point whose
// odd multiples are tp: one Strauss chain over the four halves of the
// scalars split by the endomorphism.
func mulAdd(u1, u2 *secp256k1.ModNScalar, tp *[1 << (windowP - 2)]affinePoint) jacPoint {
	// λ·P's odd multiples: (β·x, y).
	var tl [1 << (windowP - 2)]affinePoint
	for i := range tp {
		tl[i].x.mulBeta(&tp[i].x)
		tl[i].y = tp[i].y
	}
	tg := gTables()

	// u1 = g1 + g2·λ, u2 = p1 + p2·λ, each half in NAF.
	var nafs [4][maxNAF]int16
	var neg [4]bool
	var lens [4]int
	var halves [4]secp256k1.ModNScalar
	halves[0], halves[1], neg[0], neg[1] = splitScalar(u1)
	halves[2], halves[3], neg[2], neg[3] = splitScalar(u2)
	for i := range halves {
		wd := uint(windowG)
		if i >= 2 {
			wd = windowP
		}
		lens[i] = wnaf(&halves[i], wd, &nafs[i])
	}
	tables := [4][]affinePoint{tg[0][:], tg[1][:], tp[:], tl[:]}
	top := max(lens[0], lens[1], lens[2], lens[3])

	var acc jacPoint
	acc.inf = true
	for i := top - 1; i >= 0; i-- {
		acc.double(&acc)
		for j := range nafs {
			d := nafs[j][i]
			if d == 0 {
				continue
			}
			negY := neg[j]
			if d < 0 {
				d = -d
				negY = !negY
			}
			acc.addAffine(&acc, &tables[j][d>>1], negY)
		}
	}
	return acc
}

// bip340Challenge is SHA256("BIP0340/challenge"), the tag of BIP 340's
// challenge hash.
var bip340Challenge = sha256.Sum256([]byte("BIP0340/challenge"))

// VerifySchnorr reports whether sig (64 bytes: r, then s) is a valid
// BIP 340 signature of the 32-byte hash by the X coordinate of pub, with
// the rules of the library's BIP 340 verifier (btcec's
// schnorr.Signature.Verify): r below p, s below n, P the point of that X
// with an even Y, e = tagged_hash("BIP0340/challenge", r || x(P) || hash)
// mod n, and R = s·G - e·P not at infinity, with an even Y and X equal to
// r. It computes R in one Strauss chain (mulAdd) and takes time that
// depends on its inputs: public data only.
func VerifySchnorr(sig, hash []byte, pub *secp256k1.PublicKey) bool {
	if len(sig) != 64 || len(hash) != 32 || pub == nil {
		return false
	}
	var rf fe
	rf.setBytes((*[32]byte)(sig[:32]))
	if !lessThanP(&rf) {
		return false
	}
	var s secp256k1.ModNScalar
	if s.SetByteSlice(sig[32:]) {
		return false
	}

	// P with an even Y.
	var pa affinePoint
	pubAffine(pub, &pa)
	if pa.y[0]&1 != 0 {
		pa.y.neg(&pa.y)
		pa.y.normalize()
	}
	var px [32]byte
	pa.x.putBytes(&px)

	h := sha256.New()
	h.Write(bip340Challenge[:])
	h.Write(bip340Challenge[:])
	h.Write(sig[:32])
	h.Write(px[:])
	h.Write(hash)
	var digest [32]byte
	h.Sum(digest[:0])
	var e secp256k1.ModNScalar
	e.SetByteSlice(digest[:])
	e.Negate()

	var tp [1 << (windowP - 2)]affinePoint
	var scratchP [1 << (windowP - 2)]jacPoint
	var scratchF [1 << (windowP - 2)]fe
	oddMultiples(&pa, tp[:], scratchP[:], scratchF[:])
	acc := mulAdd(&s, &e, &tp)
	if acc.inf {
		return false
	}

	// R in affine form (one inversion, of public data).
	var zi, z2, z3, x, y fe
	zi.invert(&acc.z)
	z2.sqr(&zi)
	z3.mul(&z2, &zi)
	x.mul(&acc.x, &z2)
	y.mul(&acc.y, &z3)
	x.normalize()
	y.normalize()
	return y[0]&1 == 0 && x == rf
}

// lessThanP reports whether f, as a 256-bit number, is below p.
func lessThanP(f *fe) bool {
	var w uint64
	_, w = bits.Sub64(f[0], feP[0], 0)
	_, w = bits.Sub64(f[1], feP[1], w)
	_, w = bits.Sub64(f[2], feP[2], w)
	_, w = bits.Sub64(f[3], feP[3], w)
	return w != 0
}
