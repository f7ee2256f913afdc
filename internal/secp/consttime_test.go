package secp

import (
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestInvertScalar compares InvertScalar with the library's (variable
// time) inversion for 1, 2, n-1, n-2 and hashed scalars, checks s·s⁻¹ = 1,
// and that zero maps to zero.
func TestInvertScalar(t *testing.T) {
	var vals []secp256k1.ModNScalar
	for _, v := range []uint32{1, 2, 3, 16, 17} {
		var s secp256k1.ModNScalar
		s.SetInt(v)
		vals = append(vals, s)
		s.Negate()
		vals = append(vals, s) // n - v
	}
	for i := range 300 {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8), 's'})
		var s secp256k1.ModNScalar
		s.SetBytes(&h)
		vals = append(vals, s)
	}
	for i, s := range vals {
		in := s
		got := InvertScalar(&s)
		if s != in {
			t.Fatalf("value %d: input modified", i)
		}
		var want secp256k1.ModNScalar
		want.InverseValNonConst(&s)
		if !got.Equals(&want) {
			t.Fatalf("value %d: inverse differs", i)
		}
		var one secp256k1.ModNScalar
		if one.Mul2(&got, &s); !one.Equals(new(secp256k1.ModNScalar).SetInt(1)) {
			t.Fatalf("value %d: s·s⁻¹ ≠ 1", i)
		}
	}
	var zero secp256k1.ModNScalar
	if got := InvertScalar(&zero); !got.IsZero() {
		t.Fatal("zero inverted to non-zero")
	}
}

// TestToAffineBatch compares ToAffineBatch with the library's ToAffine,
// point by point, for batches of 1 to 40 sums k·G + P (Z ≠ 1), checks the
// scratch is cleared, and that a batch holding the point at infinity is
// refused untouched.
func TestToAffineBatch(t *testing.T) {
	var par secp256k1.JacobianPoint
	var seven secp256k1.ModNScalar
	seven.SetInt(7)
	secp256k1.ScalarBaseMultNonConst(&seven, &par)
	scratch := make([]secp256k1.FieldVal, 40)
	for n := 1; n <= 40; n++ {
		pts := make([]secp256k1.JacobianPoint, n)
		for i := range pts {
			h := sha256.Sum256([]byte{byte(n), byte(i), 'b'})
			var k secp256k1.ModNScalar
			k.SetBytes(&h)
			var kg secp256k1.JacobianPoint
			secp256k1.ScalarBaseMultNonConst(&k, &kg)
			secp256k1.AddNonConst(&kg, &par, &pts[i])
		}
		want := append([]secp256k1.JacobianPoint(nil), pts...)
		if !ToAffineBatch(pts, scratch) {
			t.Fatalf("batch %d: refused", n)
		}
		for i := range pts {
			want[i].ToAffine()
			if !pts[i].X.Equals(&want[i].X) || !pts[i].Y.Equals(&want[i].Y) || !pts[i].Z.IsOne() {
				t.Fatalf("batch %d point %d: affine form differs", n, i)
			}
		}
		for i := range scratch {
			if !scratch[i].IsZero() {
				t.Fatalf("batch %d: scratch %d not cleared", n, i)
			}
		}
	}
	pts := make([]secp256k1.JacobianPoint, 3)
	for i := range pts {
		var k secp256k1.ModNScalar
		k.SetInt(uint32(i + 1))
		secp256k1.ScalarBaseMultNonConst(&k, &pts[i])
	}
	pts[1] = secp256k1.JacobianPoint{} // infinity
	before := append([]secp256k1.JacobianPoint(nil), pts...)
	if ToAffineBatch(pts, scratch) {
		t.Fatal("batch with the point at infinity converted")
	}
	for i := range pts {
		if pts[i] != before[i] {
			t.Fatalf("point %d modified by a refused batch", i)
		}
	}
}

// BenchmarkInvertScalar is the constant-time scalar inversion beside the
// library's variable-time one.
func BenchmarkInvertScalar(b *testing.B) {
	h := sha256.Sum256([]byte("s"))
	var s secp256k1.ModNScalar
	s.SetBytes(&h)
	b.Run("consttime", func(b *testing.B) {
		for b.Loop() {
			InvertScalar(&s)
		}
	})
	b.Run("library-nonconst", func(b *testing.B) {
		for b.Loop() {
			var inv secp256k1.ModNScalar
			inv.InverseValNonConst(&s)
		}
	})
}

// TestMontMul checks the Montgomery multiplication modulo n against
// math/big, its constants against their definitions, and the edges
// (0, 1, n-1) with random values.
func TestMontMul(t *testing.T) {
	n := new(big.Int)
	n.SetString("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141", 16)
	toBig := func(x [4]uint64) *big.Int {
		v := new(big.Int)
		for i := 3; i >= 0; i-- {
			v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(x[i]))
		}
		return v
	}
	fromBig := func(v *big.Int) [4]uint64 {
		var x [4]uint64
		w := new(big.Int).Set(v)
		mask := new(big.Int).SetUint64(^uint64(0))
		for i := range 4 {
			x[i] = new(big.Int).And(w, mask).Uint64()
			w.Rsh(w, 64)
		}
		return x
	}
	if toBig(orderN).Cmp(n) != 0 {
		t.Fatal("orderN is not n")
	}
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	if toBig(montR).Cmp(new(big.Int).Mod(r, n)) != 0 {
		t.Fatal("montR is not 2^256 mod n")
	}
	if toBig(montR2).Cmp(new(big.Int).Mod(new(big.Int).Mul(r, r), n)) != 0 {
		t.Fatal("montR2 is not 2^512 mod n")
	}
	m := new(big.Int).Lsh(big.NewInt(1), 64)
	if ninv := new(big.Int).ModInverse(n, m); new(big.Int).Mod(new(big.Int).Neg(ninv), m).Uint64() != montNInv {
		t.Fatal("montNInv is not -n⁻¹ mod 2^64")
	}
	rInv := new(big.Int).ModInverse(r, n)
	nm1 := new(big.Int).Sub(n, big.NewInt(1))
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), nm1, new(big.Int).Sub(n, big.NewInt(2)),
		new(big.Int).Lsh(big.NewInt(1), 255), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 192), big.NewInt(1))}
	for i := range 200 {
		h := sha256.Sum256([]byte{byte(i), 'm'})
		vals = append(vals, new(big.Int).Mod(new(big.Int).SetBytes(h[:]), n))
	}
	for i, a := range vals {
		for j, b := range vals {
			if i > 20 && j > 20 && (i+j)%7 != 0 {
				continue
			}
			want := new(big.Int).Mul(a, b)
			want.Mul(want, rInv).Mod(want, n)
			x, y := fromBig(a), fromBig(b)
			if got := montMul(&x, &y); toBig(got).Cmp(want) != 0 {
				t.Fatalf("montMul(%d, %d) = %x, want %x", i, j, toBig(got), want)
			}
		}
	}
}
