package secp

import (
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// BenchmarkFieldMul is a multiplication of the four-limb field beside the
// library's FieldVal multiplication.
func BenchmarkFieldMul(b *testing.B) {
	vals := feValues()
	x, y := vals[20], vals[21]
	b.Run("fe", func(b *testing.B) {
		for b.Loop() {
			x.mul(&x, &y)
		}
	})
	b.Run("fe-sqr", func(b *testing.B) {
		for b.Loop() {
			x.sqr(&x)
		}
	})
	var fx, fy secp256k1.FieldVal
	var bx, by [32]byte
	x.putBytes(&bx)
	y.putBytes(&by)
	fx.SetBytes(&bx)
	fy.SetBytes(&by)
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			fx.Mul2(&fx, &fy)
		}
	})
	b.Run("library-sqr", func(b *testing.B) {
		for b.Loop() {
			fx.SquareVal(&fx)
		}
	})
}
