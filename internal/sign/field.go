package sign

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/secp"
)

// pubKeyOf returns d*G, as PrivateKey.PubKey does, converting the point to
// affine form with the checked fast inversion.
func pubKeyOf(d *secp256k1.ModNScalar) *secp256k1.PublicKey {
	var p secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(d, &p)
	if !secp.ToAffine(&p) {
		return secp256k1.NewPrivateKey(d).PubKey()
	}
	return secp256k1.NewPublicKey(&p.X, &p.Y)
}
