package secp

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// This file is the constant-time half of the package: arithmetic on values
// derived from secrets (private keys, nonces, their points). It uses only
// the library's constant-time operations (ModNScalar and FieldVal
// multiplication, squaring and FieldVal.Inverse); it branches and indexes
// only on public constants, never on its inputs. Nothing here may use
// math/big or the variable-time functions of field.go.

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
// by a fixed 4-bit window over the public exponent: 252 squarings and 75
// multiplications of the library's constant-time ModNScalar arithmetic.
// The library's own ModNScalar.InverseValNonConst goes through math/big
// and takes time that depends on s, so it is for public values only.
func InvertScalar(s *secp256k1.ModNScalar) secp256k1.ModNScalar {
	var table [16]secp256k1.ModNScalar
	table[0].SetInt(1)
	table[1].Set(s)
	for i := 2; i < 16; i++ {
		table[i].Mul2(&table[i-1], s)
	}
	var r secp256k1.ModNScalar
	r.Set(&table[orderMinus2[0]])
	for _, nib := range orderMinus2[1:] {
		r.Square().Square().Square().Square()
		if nib != 0 {
			r.Mul(&table[nib])
		}
	}
	for i := range table {
		table[i].Zero()
	}
	return r
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
