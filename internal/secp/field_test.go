package secp

import (
	"crypto/sha256"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// fieldValues are the edges of the field (1, 2, 7, p-1, and p+1, an
// unnormalized 1) and hashed values.
func fieldValues() []secp256k1.FieldVal {
	var vals []secp256k1.FieldVal
	for _, v := range []uint16{1, 2, 7} {
		var f secp256k1.FieldVal
		f.SetInt(v)
		vals = append(vals, f)
	}
	var pm1 secp256k1.FieldVal
	pm1.SetInt(1).Negate(1).Normalize() // p - 1
	vals = append(vals, pm1)
	var pp1 secp256k1.FieldVal
	pp1.Set(&pm1).Add(new(secp256k1.FieldVal).SetInt(2)) // p + 1, not normalized
	vals = append(vals, pp1)
	for i := range 200 {
		h := sha256.Sum256([]byte{byte(i), 'f'})
		var f secp256k1.FieldVal
		f.SetBytes(&h)
		vals = append(vals, f)
	}
	return vals
}

// TestInvertField compares InvertField with the library's inversion, and
// checks that zero (also written as an unnormalized p) has no inverse.
func TestInvertField(t *testing.T) {
	for i, f := range fieldValues() {
		in := f
		got, ok := InvertField(&f)
		if f != in {
			t.Fatalf("value %d: input modified", i)
		}
		want := f
		want.Normalize()
		want.Inverse().Normalize()
		if !ok || !got.Normalize().Equals(&want) {
			t.Fatalf("value %d: inverse differs", i)
		}
	}
	var zero secp256k1.FieldVal
	if _, ok := InvertField(&zero); ok {
		t.Fatal("zero inverted")
	}
	var p secp256k1.FieldVal
	p.SetInt(1).Negate(1).Add(new(secp256k1.FieldVal).SetInt(1)) // p, not normalized
	if _, ok := InvertField(&p); ok {
		t.Fatal("p inverted")
	}
}

// TestToAffine compares ToAffine with the library's JacobianPoint.ToAffine
// for k·G + P sums (Z ≠ 1) and checks the point at infinity is refused.
func TestToAffine(t *testing.T) {
	var par secp256k1.JacobianPoint
	var seven secp256k1.ModNScalar
	seven.SetInt(7)
	secp256k1.ScalarBaseMultNonConst(&seven, &par)
	for i := range 100 {
		h := sha256.Sum256([]byte{byte(i), 'a'})
		var k secp256k1.ModNScalar
		k.SetBytes(&h)
		var kg, sum secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(&k, &kg)
		secp256k1.AddNonConst(&kg, &par, &sum)
		got, want := sum, sum
		if !ToAffine(&got) {
			t.Fatalf("point %d: refused", i)
		}
		want.ToAffine()
		if !got.X.Equals(&want.X) || !got.Y.Equals(&want.Y) || !got.Z.IsOne() {
			t.Fatalf("point %d: affine form differs", i)
		}
	}
	var inf secp256k1.JacobianPoint
	inf.X.SetInt(1)
	inf.Y.SetInt(1)
	if ToAffine(&inf) || !inf.X.IsOne() || !inf.Z.IsZero() {
		t.Fatal("point at infinity converted or modified")
	}
}

// BenchmarkInvertField is the checked inversion beside the library's.
func BenchmarkInvertField(b *testing.B) {
	h := sha256.Sum256([]byte("z"))
	var z secp256k1.FieldVal
	z.SetBytes(&h)
	b.Run("checked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			InvertField(&z)
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var inv secp256k1.FieldVal
			inv.Set(&z).Inverse()
		}
	})
	b.Run("four-limb exponentiation", func(b *testing.B) {
		var f, inv fe
		f.setFieldVal(&z)
		b.ReportAllocs()
		for b.Loop() {
			inv.invertExp(&f)
		}
	})
}
