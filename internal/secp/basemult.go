package secp

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file belongs to the constant-time half of the package (see
// consttime.go): k·G for a secret k.
//
// Recoding. Let t = k when k is odd and t = n - k when k is even (n is
// odd, so t is odd unless k = 0, where t = 1 is used and the result
// cleared at the end); k·G is t·G, negated when k is even. An odd
// t < 2^256 is written with baseWindows = 43 odd digits of baseW = 6 bits,
// t = Σ e_i·2^(w·i), e_i ∈ {±1, ±3, .., ±63}: with
// u = (t + 2^258 - 1)/2 = (t >> 1) + 2^257 (t is odd), whose base-64 digits
// are u_i, e_i = 2·u_i - 63. Each window has a table of the affine points
// j·2^(w·i)·G for the odd j = 1..63 (32 entries), computed once from
// public data. Every entry of a window is read and the wanted one kept by
// a mask; its Y is negated under a mask (p - y on the packed words).
//
// Exceptional cases. The running sum before window i is a_i·G with
// a_i = Σ_{j<i} e_j·2^(w·j): odd, so nonzero, and |a_i| ≤ 2^(w·i) - 1.
// The addend is e_i·2^(w·i)·G; the plain addition fails when
// a_i ∓ e_i·2^(w·i) ≡ 0 (mod n). For 1 ≤ i ≤ 41 that number is odd and
// below 2^(w·i+w) ≤ 2^252 < n in absolute value, so it is not 0 modulo
// n, and the plain Jacobian-plus-affine addition (3 squarings, 8
// multiplications, no branch) is exact. For the top window t < 2^256
// forces e_42 ∈ {1, .., 15}; a_42 + e_42·2^252 = t is in [1, n), but
// a_42 - e_42·2^252 lies in (-2^256, 0) and is -n for exactly one t
// (30·2^252 - n, e_42 = 15, a_42 = 15·2^252 - n): the sum equals the
// addend, a doubling. The top window is therefore added with the complete
// mixed formula of Renes, Costello and Batina (2016, algorithm 8, a = 0)
// in projective coordinates, which has no exceptional case. Window 0
// starts the sum directly.
//
// All arithmetic is the library's FieldVal arithmetic, whose operations
// are constant time; the final negation and the clearing for k = 0 are
// done by multiplying by 0 or 1 (FieldVal.MulInt) and adding. Nothing
// branches on or indexes by the scalar.
//
// 43 windows of 32 entries (88 KiB, built on first use), 41 plain
// additions and one complete one.

const (
	baseW       = 6
	baseHalf    = 1 << (baseW - 1)
	baseWindows = (258 + baseW - 1) / baseW
)

// ctAffine is an affine point as its X and Y in 32-byte big-endian form,
// packed in eight 64-bit words (most significant first): a window's
// entries are selected by masking whole words, then unpacked into field
// values once.
type ctAffine [8]uint64

var (
	baseTableOnce sync.Once
	baseTable     *[baseWindows][baseHalf]ctAffine
)

// fieldPrimeWords is p in the packed word order of ctAffine.
var fieldPrimeWords = [4]uint64{
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xfffffffefffffc2f,
}

// generator returns G in Jacobian form (Z = 1), from its coordinates.
func generator() secp256k1.JacobianPoint {
	gx := [32]byte{
		0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0, 0x62, 0x95, 0xce, 0x87, 0x0b, 0x07,
		0x02, 0x9b, 0xfc, 0xdb, 0x2d, 0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98,
	}
	gy := [32]byte{
		0x48, 0x3a, 0xda, 0x77, 0x26, 0xa3, 0xc4, 0x65, 0x5d, 0xa4, 0xfb, 0xfc, 0x0e, 0x11, 0x08, 0xa8,
		0xfd, 0x17, 0xb4, 0x48, 0xa6, 0x85, 0x54, 0x19, 0x9c, 0x47, 0xd0, 0x8f, 0xfb, 0x10, 0xd4, 0xb8,
	}
	var g secp256k1.JacobianPoint
	g.X.SetBytes(&gx)
	g.Y.SetBytes(&gy)
	g.Z.SetInt(1)
	return g
}

// initBaseTable computes the window tables: entry j of window i is
// (2j+1)·2^(w·i)·G. Public data only; the library's point arithmetic
// serves.
func initBaseTable() {
	var pts [baseWindows * baseHalf]secp256k1.JacobianPoint
	base := generator()
	for i := range baseWindows {
		row := pts[i*baseHalf : (i+1)*baseHalf]
		var two secp256k1.JacobianPoint
		secp256k1.DoubleNonConst(&base, &two)
		row[0] = base
		for j := 1; j < baseHalf; j++ {
			secp256k1.AddNonConst(&row[j-1], &two, &row[j])
		}
		var next secp256k1.JacobianPoint
		secp256k1.AddNonConst(&row[baseHalf-1], &base, &next) // 2^w·base
		base = next
	}
	scratch := make([]secp256k1.FieldVal, len(pts))
	if !ToAffineBatch(pts[:], scratch) {
		panic("secp: point at infinity in the base table")
	}
	t := new([baseWindows][baseHalf]ctAffine)
	for i := range baseWindows {
		for j := range baseHalf {
			p := &pts[i*baseHalf+j]
			var b [32]byte
			p.X.PutBytes(&b)
			for k := range 4 {
				t[i][j][k] = binary.BigEndian.Uint64(b[8*k:])
			}
			p.Y.PutBytes(&b)
			for k := range 4 {
				t[i][j][4+k] = binary.BigEndian.Uint64(b[8*k:])
			}
		}
	}
	baseTable = t
}

// eqMask returns 1 when a == b and 0 otherwise, without a branch.
func eqMask(a, b uint32) uint8 {
	x := a ^ b
	return uint8(1 ^ ((x | -x) >> 31))
}

// ScalarBaseMultConst sets result to k·G in constant time; zero gives the
// point at infinity (X = Y = Z = 0), as the library's
// ScalarBaseMultNonConst does. The result is in Jacobian form with an
// arbitrary Z, normalized, equal as an affine point to the library's.
// Neither the time taken nor the memory touched depends on k.
func ScalarBaseMultConst(k *secp256k1.ModNScalar, result *secp256k1.JacobianPoint) {
	baseTableOnce.Do(initBaseTable)
	tbl := baseTable

	// t = k or n - k, whichever is odd (1 for k = 0).
	var kb, nb [32]byte
	k.PutBytes(&kb)
	var nk secp256k1.ModNScalar
	nk.NegateVal(k)
	nk.PutBytes(&nb)
	nk.Zero()
	even := 1 ^ kb[31]&1
	isZero := uint8(k.IsZeroBit())
	em := -even         // 0xff when k is even
	var limbs [5]uint64 // u = (t >> 1) + 2^257, little-endian
	for i := range 4 {
		for j := range 8 {
			b := kb[31-8*i-j]&^em | nb[31-8*i-j]&em
			limbs[i] |= uint64(b) << (8 * j)
		}
	}
	clear(kb[:])
	clear(nb[:])
	limbs[0] |= 1
	for i := range 4 {
		limbs[i] = limbs[i]>>1 | limbs[(i+1)%5]<<63
	}
	limbs[4] = 2 // bit 257

	// Jacobian sum (X, Y, Z); magnitudes X ≤ 6, Y ≤ 3, Z = 1 between
	// windows.
	var X, Y, Z, qx, qy secp256k1.FieldVal
	var px, py, pz, zz, sx, sy, sz secp256k1.FieldVal
	var qb [32]byte
	for i := range baseWindows {
		// Digit i (bit positions are public).
		off := uint(i * baseW)
		l, sh := off/64, off%64
		d := limbs[l] >> sh
		if sh+baseW > 64 {
			d |= limbs[l+1] << (64 - sh)
		}
		u := uint32(d & (1<<baseW - 1))
		pos := u >> (baseW - 1) // e_i > 0
		idx := (u & (baseHalf - 1)) ^ ((pos ^ 1) * (baseHalf - 1))

		// Q = e_i·2^(w·i)·G, every entry read.
		// Eight words in locals, so that they stay in registers.
		var q0, q1, q2, q3, q4, q5, q6, q7 uint64
		row := &tbl[i]
		for j := range row {
			m := -uint64(eqMask(idx, uint32(j)))
			e := &row[j]
			q0 |= e[0] & m
			q1 |= e[1] & m
			q2 |= e[2] & m
			q3 |= e[3] & m
			q4 |= e[4] & m
			q5 |= e[5] & m
			q6 |= e[6] & m
			q7 |= e[7] & m
		}
		q := ctAffine{q0, q1, q2, q3, q4, q5, q6, q7}
		// Y := p - Y when e_i < 0 (Y ≠ 0 on this curve, so p - Y < p).
		var ny [4]uint64
		var borrow uint64
		for k := 3; k >= 0; k-- {
			ny[k], borrow = bits.Sub64(fieldPrimeWords[k], q[4+k], borrow)
		}
		nm := uint64(pos) - 1 // all ones when negative
		for k := range 4 {
			q[4+k] = q[4+k]&^nm | ny[k]&nm
		}
		for k := range 4 {
			binary.BigEndian.PutUint64(qb[8*k:], q[k])
		}
		qx.SetBytes(&qb)
		for k := range 4 {
			binary.BigEndian.PutUint64(qb[8*k:], q[4+k])
		}
		qy.SetBytes(&qb)
		clear(q[:])
		clear(ny[:])

		if i == 0 {
			X.Set(&qx)
			Y.Set(&qy)
			Z.SetInt(1)
			continue
		}
		if i < baseWindows-1 {
			jacAddAffine(&X, &Y, &Z, &qx, &qy)
			continue
		}
		// The top window may be a doubling (see above): the complete
		// formula, on the projective (X·Z : Y : Z³), back to Jacobian
		// (X·Z, Y·Z², Z) after.
		px.Mul2(&X, &Z)
		py.Set(&Y).Normalize()
		zz.SquareVal(&Z)
		pz.Mul2(&zz, &Z)
		mixedAdd(&sx, &sy, &sz, &px, &py, &pz, &qx, &qy)
		X.Mul2(&sx, &sz)
		zz.SquareVal(&sz)
		Y.Mul2(&sy, &zz)
		Z.Set(&sz)
	}
	clear(limbs[:])
	clear(qb[:])

	// Negate when k is even; clear for k = 0.
	var negY secp256k1.FieldVal
	X.Normalize()
	Y.Normalize()
	Z.Normalize()
	negY.NegateVal(&Y, 1).MulInt(even)
	Y.MulInt(1 ^ even).Add(&negY).Normalize()
	keep := 1 ^ isZero
	result.X.Set(&X).MulInt(keep).Normalize()
	result.Y.Set(&Y).MulInt(keep).Normalize()
	result.Z.Set(&Z).MulInt(keep).Normalize()
	for _, f := range []*secp256k1.FieldVal{&X, &Y, &Z, &qx, &qy, &negY, &px, &py, &pz, &zz, &sx, &sy, &sz} {
		f.Zero()
	}
}

// jacAddAffine sets (x1, y1, z1) to (x1, y1, z1) + (x2, y2), Jacobian plus
// affine, with 3 squarings and 8 multiplications. Input magnitudes:
// x1 ≤ 6, y1 ≤ 3, z1 ≤ 8, x2 ≤ 1, y2 ≤ 8; the outputs are x1 ≤ 6, y1 ≤ 3,
// z1 = 1. The addition is not complete: (x1, y1, z1) must not be the point
// at infinity nor ±(x2, y2) (ScalarBaseMultConst's recoding rules both
// out below its top window); otherwise the result is garbage.
func jacAddAffine(x1, y1, z1, x2, y2 *secp256k1.FieldVal) {
	var zz, zzz, h, r, hh, hhh, v, t secp256k1.FieldVal
	zz.SquareVal(z1)             // 1
	zzz.Mul2(&zz, z1)            // 1
	h.Mul2(x2, &zz)              // U2: 1
	h.Add(t.NegateVal(x1, 6))    // H = U2 - X1: 8
	r.Mul2(y2, &zzz)             // S2: 1
	r.Add(t.NegateVal(y1, 3))    // R = S2 - Y1: 5
	hh.SquareVal(&h)             // 1
	hhh.Mul2(&hh, &h)            // 1
	v.Mul2(x1, &hh)              // V = X1·H²: 1
	x1.SquareVal(&r)             // R²: 1
	x1.Add(t.NegateVal(&hhh, 1)) // 3
	t.Add2(&v, &v).Negate(2)     // -2V: 3
	x1.Add(&t)                   // X3 = R² - H³ - 2V: 6
	t.NegateVal(x1, 6).Add(&v)   // V - X3: 8
	hhh.Mul(y1)                  // Y1·H³: 1
	y1.Mul2(&r, &t)              // 1
	y1.Add(hhh.Negate(1))        // Y3 = R·(V - X3) - Y1·H³: 3
	z1.Mul(&h)                   // Z3 = Z1·H: 1
	for _, f := range []*secp256k1.FieldVal{&zz, &zzz, &h, &r, &hh, &hhh, &v, &t} {
		f.Zero()
	}
}

// mixedAdd sets (x3:y3:z3) = (x1:y1:z1) + (x2, y2) by the complete mixed
// addition for a = 0 (Renes-Costello-Batina 2016, algorithm 8), b3 = 3·7.
// Input magnitudes: x1 ≤ 3, y1 ≤ 2, z1 = 1, x2 = 1, y2 ≤ 2; the output has
// the same bounds. (x2, y2) must not be the point at infinity; the sum may
// be anything.
func mixedAdd(x3, y3, z3, x1, y1, z1, x2, y2 *secp256k1.FieldVal) {
	const b3 = 21
	var t0, t1, t2, t3, t4, u secp256k1.FieldVal
	t0.Mul2(x1, x2)             // 1
	t1.Mul2(y1, y2)             // 1
	t3.Add2(x2, y2)             // 3
	t4.Add2(x1, y1)             // 5
	t3.Mul(&t4)                 // 1
	t4.Add2(&t0, &t1)           // 2
	t3.Add(u.NegateVal(&t4, 2)) // 4
	t4.Mul2(y2, z1).Add(y1)     // 3
	u.Mul2(x2, z1).Add(x1)      // Y3 in the paper: 4
	x3.Add2(&t0, &t0)           // 2
	t0.Add(x3)                  // 3
	t2.Set(z1).MulInt(b3).Normalize()
	z3.Add2(&t1, &t2)                    // 2
	t1.Add(t2.Negate(1))                 // 3
	u.Normalize().MulInt(b3).Normalize() // 1
	x3.Mul2(&t4, &u)                     // 1
	t2.Mul2(&t3, &t1)                    // 1
	x3.Negate(1).Add(&t2)                // 3
	y3.Mul2(&u, &t0)                     // 1
	t1.Mul(z3)                           // 1
	y3.Add(&t1)                          // 2
	t0.Mul(&t3)                          // 1
	z3.Mul(&t4).Add(&t0).Normalize()     // 1
	for _, f := range []*secp256k1.FieldVal{&t0, &t1, &t2, &t3, &t4, &u} {
		f.Zero()
	}
}
