package secp

import (
	"math/big"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// fieldPrime is the order of secp256k1's base field.
var fieldPrime = secp256k1.Params().P

// inverter is the working memory of one inversion, pooled so that an
// inversion allocates only what math/big's GCD allocates inside.
type inverter struct {
	v   big.Int
	buf [32]byte
}

var inverters = sync.Pool{New: func() any { return new(inverter) }}

// InvertField returns z⁻¹ mod p, and false when z is zero (mod p). z is
// not modified and need not be normalized. It takes time that depends on
// z: public values only (see the package comment).
func InvertField(z *secp256k1.FieldVal) (secp256k1.FieldVal, bool) {
	var inv secp256k1.FieldVal
	zn := *z
	zn.Normalize()
	if zn.IsZero() {
		return inv, false
	}
	w := inverters.Get().(*inverter)
	zn.PutBytes(&w.buf)
	w.v.SetBytes(w.buf[:])
	if w.v.ModInverse(&w.v, fieldPrime) != nil {
		w.v.FillBytes(w.buf[:])
		inv.SetBytes(&w.buf)
		var check secp256k1.FieldVal
		if check.Mul2(&zn, &inv).Normalize().IsOne() {
			inverters.Put(w)
			return inv, true
		}
	}
	inverters.Put(w)
	inv.Set(&zn).Inverse()
	return inv, true
}

// ToAffine is JacobianPoint.ToAffine with InvertField: it leaves X and Y
// normalized and Z = 1. Public points only (see the package comment). It reports false, leaving p unchanged, for the
// point at infinity (Z = 0).
func ToAffine(p *secp256k1.JacobianPoint) bool {
	zInv, ok := InvertField(&p.Z)
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
