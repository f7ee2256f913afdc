package sign

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/secp"
)

// pubKeyOf returns d*G, as PrivateKey.PubKey does, in constant time:
// secp.ScalarBaseMultConst and the library's constant-time conversion to
// affine form.
func pubKeyOf(d *secp256k1.ModNScalar) *secp256k1.PublicKey {
	var p secp256k1.JacobianPoint
	secp.ScalarBaseMultConst(d, &p)
	p.ToAffine()
	return secp256k1.NewPublicKey(&p.X, &p.Y)
}

// pubKeysOf returns d*G for each d, as pubKeyOf does, with one
// constant-time field inversion for the whole batch (secp.ToAffineBatch).
func pubKeysOf(ds []*secp256k1.ModNScalar) []*secp256k1.PublicKey {
	pts := make([]secp256k1.JacobianPoint, len(ds))
	for i, d := range ds {
		secp.ScalarBaseMultConst(d, &pts[i])
	}
	scratch := make([]secp256k1.FieldVal, len(ds))
	out := make([]*secp256k1.PublicKey, len(ds))
	if !secp.ToAffineBatch(pts, scratch) {
		// A zero scalar (never a valid key): one at a time.
		for i, d := range ds {
			out[i] = pubKeyOf(d)
		}
		return out
	}
	for i := range pts {
		out[i] = secp256k1.NewPublicKey(&pts[i].X, &pts[i].Y)
	}
	return out
}
