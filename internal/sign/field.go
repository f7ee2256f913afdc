package sign

import (
	"math/big"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// fieldPrime is the order of secp256k1's base field.
var fieldPrime = secp256k1.Params().P

// invertField returns z^-1 mod p. The secp256k1 library inverts by
// exponentiation (about 270 field operations); an extended GCD over
// math/big takes a tenth of the time here. The result is checked with one
// multiplication (z * z^-1 = 1) and the library's inversion is used should
// that check ever fail. Like the non-constant-time scalar multiplication
// the inverted coordinates come from, its timing depends on its input.
// It reports false when z is zero.
func invertField(z *secp256k1.FieldVal) (secp256k1.FieldVal, bool) {
	var inv secp256k1.FieldVal
	zn := *z
	zn.Normalize()
	if zn.IsZero() {
		return inv, false
	}
	var b [32]byte
	zn.PutBytes(&b)
	v := new(big.Int).SetBytes(b[:])
	if v.ModInverse(v, fieldPrime) != nil {
		v.FillBytes(b[:])
		inv.SetBytes(&b)
		var check secp256k1.FieldVal
		if check.Mul2(&zn, &inv).Normalize().IsOne() {
			return inv, true
		}
	}
	inv.Set(&zn).Inverse()
	return inv, true
}

// toAffine is JacobianPoint.ToAffine with invertField; it reports false for
// the point at infinity.
func toAffine(p *secp256k1.JacobianPoint) bool {
	zInv, ok := invertField(&p.Z)
	if !ok {
		return false
	}
	var z2 secp256k1.FieldVal
	z2.SquareVal(&zInv)
	p.X.Mul(&z2).Normalize()
	p.Y.Mul(z2.Mul(&zInv)).Normalize()
	p.Z.SetInt(1)
	return true
}

// pubKeyOf returns d*G, as PrivateKey.PubKey does.
func pubKeyOf(d *secp256k1.ModNScalar) *secp256k1.PublicKey {
	var p secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(d, &p)
	if !toAffine(&p) {
		return secp256k1.NewPrivateKey(d).PubKey()
	}
	return secp256k1.NewPublicKey(&p.X, &p.Y)
}
