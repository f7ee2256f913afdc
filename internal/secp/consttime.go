package secp

import (
	"encoding/binary"
	"math/bits"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file is the constant-time half of the package: arithmetic on values
// derived from secrets (private keys, nonces, their points). It uses the
// library's constant-time operations (FieldVal multiplication, squaring and
// FieldVal.Inverse) and, for the one operation the library lacks, a
// multiplication modulo n written with math/bits, whose Mul64, Add64 and
// Sub64 are constant-time instructions. It branches and indexes only on
// public constants, never on its inputs. Nothing here may use math/big or
// the variable-time functions of field.go.

// Modulo n, the group order, in Montgomery form with R = 2^256: four
// little-endian 64-bit limbs.
var (
	orderN  = [4]uint64{0xbfd25e8cd0364141, 0xbaaedce6af48a03b, 0xfffffffffffffffe, 0xffffffffffffffff}
	montR   = [4]uint64{0x402da1732fc9bebf, 0x4551231950b75fc4, 0x1, 0x0}                               // R mod n
	montR2  = [4]uint64{0x896cf21467d7d140, 0x741496c20e7cf878, 0xe697f5e45bcd07c6, 0x9d671cd581c69bc5} // R² mod n
	montOne = [4]uint64{1, 0, 0, 0}
)

// montNInv is -n⁻¹ mod 2^64.
const montNInv = 0x4b0dff665588b13f

// montMul returns a·b·R⁻¹ mod n for a, b < n (CIOS Montgomery
// multiplication), in constant time: the same instructions whatever the
// values, and the final subtraction of n chosen by a mask.
func montMul(a, b *[4]uint64) [4]uint64 {
	var t [6]uint64
	for i := range 4 {
		// t += a·b[i]
		var c, carry uint64
		for j := range 4 {
			hi, lo := bits.Mul64(a[j], b[i])
			lo, carry = bits.Add64(lo, t[j], 0)
			hi += carry
			lo, carry = bits.Add64(lo, c, 0)
			hi += carry
			t[j], c = lo, hi
		}
		t[4], carry = bits.Add64(t[4], c, 0)
		t[5] = carry

		// t = (t + m·n) / 2^64 with m making the low word zero.
		m := t[0] * montNInv
		hi, lo := bits.Mul64(m, orderN[0])
		_, carry = bits.Add64(lo, t[0], 0)
		c = hi + carry
		for j := 1; j < 4; j++ {
			hi, lo = bits.Mul64(m, orderN[j])
			lo, carry = bits.Add64(lo, t[j], 0)
			hi += carry
			lo, carry = bits.Add64(lo, c, 0)
			hi += carry
			t[j-1], c = lo, hi
		}
		t[3], carry = bits.Add64(t[4], c, 0)
		t[4] = t[5] + carry
	}
	// t < 2n: subtract n unless that borrows.
	var r [4]uint64
	var borrow uint64
	r[0], borrow = bits.Sub64(t[0], orderN[0], 0)
	r[1], borrow = bits.Sub64(t[1], orderN[1], borrow)
	r[2], borrow = bits.Sub64(t[2], orderN[2], borrow)
	r[3], borrow = bits.Sub64(t[3], orderN[3], borrow)
	_, borrow = bits.Sub64(t[4], 0, borrow)
	keep := -borrow // all ones when t < n
	for i := range r {
		r[i] = t[i]&keep | r[i]&^keep
	}
	clear(t[:])
	return r
}

// orderMinus2 is n - 2 as 64 big-endian nibbles: s^(n-2) = s⁻¹ mod n.
var orderMinus2 = func() [64]byte {
	const hex = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD036413F"
	var out [64]byte
	for i := range hex {
		c := hex[i]
		switch {
		case c >= '0' && c <= '9':
			out[i] = c - '0'
		default:
			out[i] = c - 'A' + 10
		}
	}
	return out
}()

// InvertScalar returns s⁻¹ mod n (zero for zero) in constant time: s^(n-2)
// by a fixed 4-bit window over the public exponent (252 squarings and 75
// multiplications), in Montgomery form. The library has no constant-time
// scalar inversion (ModNScalar.InverseValNonConst goes through math/big,
// for public values only), and its ModNScalar multiplication is several
// times slower than its field multiplication, which would make the
// exponentiation cost as much as the signature's point multiplication.
func InvertScalar(s *secp256k1.ModNScalar) secp256k1.ModNScalar {
	var b [32]byte
	s.PutBytes(&b)
	var x [4]uint64
	for i := range 4 {
		x[i] = binary.BigEndian.Uint64(b[24-8*i:])
	}
	var table [16][4]uint64 // s^i·R
	table[0] = montR
	table[1] = montMul(&x, &montR2)
	for i := 2; i < 16; i++ {
		table[i] = montMul(&table[i-1], &table[1])
	}
	r := table[orderMinus2[0]]
	for _, nib := range orderMinus2[1:] {
		for range 4 {
			r = montMul(&r, &r)
		}
		if nib != 0 {
			r = montMul(&r, &table[nib])
		}
	}
	r = montMul(&r, &montOne)
	for i := range 4 {
		binary.BigEndian.PutUint64(b[24-8*i:], r[i])
	}
	var out secp256k1.ModNScalar
	out.SetBytes(&b)
	clear(b[:])
	clear(x[:])
	clear(r[:])
	for i := range table {
		clear(table[i][:])
	}
	return out
}

// ToAffineBatch brings every point to affine form (X and Y normalized,
// Z = 1), as JacobianPoint.ToAffine does, with one constant-time field
// inversion for the whole batch (Montgomery's trick: the inverse of the
// product of the Z coordinates, then each Z⁻¹ from the prefix products).
// scratch must hold at least len(points) values; it is cleared before
// returning. It reports false, converting nothing, when a point is the
// point at infinity (Z = 0), which for k·G means k = 0.
func ToAffineBatch(points []secp256k1.JacobianPoint, scratch []secp256k1.FieldVal) bool {
	n := len(points)
	if n == 0 {
		return true
	}
	prefix := scratch[:n]
	defer clear(prefix)
	// prefix[i] = Z_0 · … · Z_i
	prefix[0].Set(&points[0].Z)
	for i := 1; i < n; i++ {
		prefix[i].Mul2(&prefix[i-1], &points[i].Z)
	}
	var inv secp256k1.FieldVal
	inv.Set(&prefix[n-1]).Normalize()
	if inv.IsZero() {
		return false
	}
	inv.Inverse() // (Z_0 · … · Z_{n-1})⁻¹
	var zInv, z2 secp256k1.FieldVal
	for i := n - 1; i >= 0; i-- {
		p := &points[i]
		if i > 0 {
			zInv.Mul2(&inv, &prefix[i-1]) // Z_i⁻¹
			inv.Mul(&p.Z)                 // (Z_0 · … · Z_{i-1})⁻¹
		} else {
			zInv.Set(&inv)
		}
		z2.SquareVal(&zInv)
		p.X.Mul(&z2).Normalize()
		p.Y.Mul(z2.Mul(&zInv)).Normalize()
		p.Z.SetInt(1)
	}
	inv.Zero()
	zInv.Zero()
	z2.Zero()
	return true
}
