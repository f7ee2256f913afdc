package secp

import (
	"encoding/binary"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file belongs to the constant-time half of the package (see
// consttime.go): k·G for a secret k.
//
// The scalar is written in baseWindows signed digits of baseW bits,
// e_i ∈ [-2^(w-1), 2^(w-1)), by adding the public constant
// c = Σ 2^(w-1)·2^(w·i) modulo n first: the unsigned digits d_i of
// t = k + c mod n give e_i = d_i - 2^(w-1), and Σ e_i·2^(w·i)·G =
// (t - c)·G = k·G because G has order n. Each window has a table of the
// affine points j·2^(w·i)·G, j = 1..2^(w-1), computed once from public
// data. For each window every entry is read and the wanted one kept by a
// mask, its Y negated under a mask, and it is added with the complete
// mixed formula of Renes, Costello and Batina (2016, algorithm 8, a = 0)
// in projective coordinates, which has no exceptional case for the
// running sum (the point at infinity, doubling); a zero digit keeps the
// previous sum, chosen by a mask after the addition is made anyway. All
// arithmetic is the library's FieldVal arithmetic, whose operations are
// constant time; table entries are selected by masking their packed words,
// field values by multiplying by 0 or 1 (FieldVal.MulInt) and adding.
// Nothing branches on or indexes by the scalar.
//
// With 6-bit digits: 43 windows of 32 entries (88 KiB, built on first
// use), 42 additions of 11 field multiplications each; 5- and 7-bit
// digits measured no faster, 8-bit ones slower (the selection grows).

const (
	baseW       = 6
	baseHalf    = 1 << (baseW - 1)
	baseWindows = (256 + baseW - 1) / baseW
)

// ctAffine is an affine point as its X and Y in 32-byte big-endian form,
// packed in eight 64-bit words: a window's entries are selected by masking
// whole words, then unpacked into field values once.
type ctAffine [8]uint64

var (
	baseTableOnce sync.Once
	baseTable     *[baseWindows][baseHalf]ctAffine
	baseOffset    secp256k1.ModNScalar // c mod n
)

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

// initBaseTable computes the window tables and the digit offset. Public
// data only; the library's point arithmetic serves.
func initBaseTable() {
	var pts [baseWindows * baseHalf]secp256k1.JacobianPoint
	base := generator()
	for i := range baseWindows {
		row := pts[i*baseHalf : (i+1)*baseHalf]
		row[0] = base
		for j := 1; j < baseHalf; j++ {
			secp256k1.AddNonConst(&row[j-1], &base, &row[j])
		}
		secp256k1.DoubleNonConst(&row[baseHalf-1], &base) // 2^w·base
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

	// c = Σ 2^(w-1)·2^(w·i), reduced modulo n, by Horner's rule.
	var radix, half secp256k1.ModNScalar
	radix.SetInt(1 << baseW)
	half.SetInt(baseHalf)
	for range baseWindows {
		baseOffset.Mul(&radix).Add(&half)
	}
}

// eqMask returns 1 when a == b and 0 otherwise, without a branch.
func eqMask(a, b uint32) uint8 {
	x := a ^ b
	return uint8(1 ^ ((x | -x) >> 31))
}

// selectField sets r to a when bit is 0 and to b when bit is 1, without a
// branch. The result's magnitude is the larger of the two.
func selectField(r, a, b *secp256k1.FieldVal, bit uint8) {
	var t secp256k1.FieldVal
	t.Set(b).MulInt(bit)
	r.Set(a).MulInt(1 ^ bit).Add(&t)
	t.Zero()
}

// ScalarBaseMultConst sets result to k·G in constant time; zero gives the
// point at infinity (X = Y = Z = 0), as the library's
// ScalarBaseMultNonConst does. The result is in Jacobian form with an
// arbitrary Z, equal as an affine point to the library's. Neither the
// time taken nor the memory touched depends on k.
func ScalarBaseMultConst(k *secp256k1.ModNScalar, result *secp256k1.JacobianPoint) {
	baseTableOnce.Do(initBaseTable)
	tbl := baseTable

	var t secp256k1.ModNScalar
	t.Add2(k, &baseOffset)
	var tb [32]byte
	t.PutBytes(&tb)
	t.Zero()
	var limbs [4]uint64 // little-endian
	for i := range 4 {
		for j := range 8 {
			limbs[i] |= uint64(tb[31-8*i-j]) << (8 * j)
		}
	}
	clear(tb[:])

	// Projective sum (X:Y:Z), magnitudes X ≤ 3, Y ≤ 2, Z = 1 between
	// windows.
	var X, Y, Z secp256k1.FieldVal
	var qx, qy, negY, tmp secp256k1.FieldVal
	var nx, ny, nz secp256k1.FieldVal
	var one secp256k1.FieldVal
	one.SetInt(1)
	var qb [32]byte
	for i := range baseWindows {
		// Digit i (bit positions are public).
		off := uint(i * baseW)
		l, sh := off/64, off%64
		d := limbs[l] >> sh
		if sh+baseW > 64 && l+1 < 4 {
			d |= limbs[l+1] << (64 - sh)
		}
		e := int32(d&(1<<baseW-1)) - baseHalf
		sign := uint32(e >> 31)
		abs := uint32((e ^ int32(sign)) - int32(sign))
		neg := uint8(sign & 1)
		zero := eqMask(abs, 0)

		// Q = ±|e|·2^(w·i)·G, every entry read.
		var q ctAffine
		row := &tbl[i]
		for j := range baseHalf {
			m := -uint64(eqMask(abs, uint32(j+1)))
			for k := range q {
				q[k] |= row[j][k] & m
			}
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
		negY.NegateVal(&qy, 1)
		selectField(&qy, &qy, &negY, neg) // magnitude ≤ 2

		if i == 0 {
			// The sum starts as Q, or the point at infinity (0:1:0) for a
			// zero digit.
			var zeroF secp256k1.FieldVal
			selectField(&X, &qx, &zeroF, zero)
			selectField(&Y, &qy, &one, zero)
			selectField(&Z, &one, &zeroF, zero)
			continue
		}
		mixedAdd(&nx, &ny, &nz, &X, &Y, &Z, &qx, &qy)
		selectField(&X, &nx, &X, zero)
		selectField(&Y, &ny, &Y, zero)
		selectField(&Z, &nz, &Z, zero)
	}
	clear(limbs[:])
	clear(qb[:])

	// Jacobian (X·Z, Y·Z², Z) is the projective (X:Y:Z).
	X.Normalize()
	Y.Normalize()
	Z.Normalize()
	result.X.Mul2(&X, &Z).Normalize()
	tmp.SquareVal(&Z)
	result.Y.Mul2(&Y, &tmp).Normalize()
	result.Z.Set(&Z)
	for _, f := range []*secp256k1.FieldVal{&X, &Y, &Z, &qx, &qy, &negY, &tmp, &nx, &ny, &nz} {
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
