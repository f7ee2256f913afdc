package secp

import (
	"bytes"
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestFieldInvertExp checks the exponentiation against math/big's inverse
// over the edge and hashed values, weakly reduced ones included, and zero
// against zero.
func TestFieldInvertExp(t *testing.T) {
	for i, a := range feValues() {
		var inv fe
		inv.invertExp(&a)
		v := new(big.Int).Mod(feToBig(&a), bigP)
		if v.Sign() == 0 {
			if !inv.isZero() {
				t.Fatalf("value %d: zero inverted to non-zero", i)
			}
			continue
		}
		want := feFromBig(new(big.Int).ModInverse(v, bigP))
		if !inv.equal(&want) {
			t.Fatalf("value %d: %x, want %x", i, feToBig(&inv), feToBig(&want))
		}
	}
}

// testPoint returns k·G in affine form through the library.
func testPoint(k uint64) (secp256k1.JacobianPoint, AffinePoint) {
	h := sha256.Sum256(big.NewInt(int64(k)).Bytes())
	var s secp256k1.ModNScalar
	s.SetBytes(&h)
	var j secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&s, &j)
	j.ToAffine()
	var a AffinePoint
	a.SetFieldVals(&j.X, &j.Y)
	return j, a
}

// TestBatchAdder adds batches of pairs of points and compares each sum
// with the library's addition; pairs with equal x (a doubling, a sum at
// infinity) are reported bad and left as they were, without disturbing
// the others' shared inversion.
func TestBatchAdder(t *testing.T) {
	var b BatchAdder
	for _, n := range []int{1, 2, 7, 64} {
		acc := make([]*AffinePoint, n)
		add := make([]*AffinePoint, n)
		bad := make([]bool, n)
		want := make([]*[33]byte, n)
		for i := range n {
			pj, pa := testPoint(uint64(1000*n + 2*i))
			qj, qa := testPoint(uint64(1000*n + 2*i + 1))
			switch {
			case n > 2 && i == 1: // P + P
				qj, qa = pj, pa
			case n > 2 && i == n-1: // P + (-P)
				qj = pj
				qj.Y.Negate(1).Normalize()
				qa.SetFieldVals(&qj.X, &qj.Y)
			}
			acc[i], add[i] = &pa, &qa
			var sum secp256k1.JacobianPoint
			secp256k1.AddNonConst(&pj, &qj, &sum)
			if sum.Z.IsZero() || (n > 2 && i == 1) {
				continue
			}
			sum.ToAffine()
			want[i] = new([33]byte)
			copy(want[i][:], secp256k1.NewPublicKey(&sum.X, &sum.Y).SerializeCompressed())
		}
		before := make([][33]byte, n)
		for i := range n {
			acc[i].PutCompressed(&before[i])
		}
		b.Add(acc, add, bad)
		for i := range n {
			var got [33]byte
			acc[i].PutCompressed(&got)
			special := n > 2 && (i == 1 || i == n-1)
			switch {
			case special && (!bad[i] || got != before[i]):
				t.Errorf("n=%d pair %d: equal x not reported (bad %v) or point changed", n, i, bad[i])
			case !special && (bad[i] || !bytes.Equal(got[:], want[i][:])):
				t.Errorf("n=%d pair %d: %x, want %x (bad %v)", n, i, got, want[i], bad[i])
			}
		}
	}
}

// BenchmarkBatchAdder is one addition of a batch of 256, per pair.
func BenchmarkBatchAdder(b *testing.B) {
	const n = 256
	acc := make([]*AffinePoint, n)
	add := make([]*AffinePoint, n)
	bad := make([]bool, n)
	for i := range n {
		_, p := testPoint(uint64(2 * i))
		_, q := testPoint(uint64(2*i + 1))
		acc[i], add[i] = &p, &q
	}
	var ba BatchAdder
	b.ReportAllocs()
	for b.Loop() {
		ba.Add(acc, add, bad)
	}
}
