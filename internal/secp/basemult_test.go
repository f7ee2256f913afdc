package secp

import (
	"crypto/sha256"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// baseMultAffine returns k·G by f in affine form, and whether it is the
// point at infinity.
func baseMultAffine(k *secp256k1.ModNScalar, f func(*secp256k1.ModNScalar, *secp256k1.JacobianPoint)) (x, y [32]byte, inf bool) {
	var p secp256k1.JacobianPoint
	f(k, &p)
	// The library writes infinity as X = Y = 0 or Z = 0.
	if p.Z.Normalize().IsZero() || (p.X.Normalize().IsZero() && p.Y.Normalize().IsZero()) {
		return x, y, true
	}
	p.ToAffine()
	p.X.PutBytes(&x)
	p.Y.PutBytes(&y)
	return x, y, false
}

func checkBaseMult(t testing.TB, k *secp256k1.ModNScalar) {
	t.Helper()
	in := *k
	gx, gy, ginf := baseMultAffine(k, ScalarBaseMultConst)
	wx, wy, winf := baseMultAffine(k, secp256k1.ScalarBaseMultNonConst)
	if !in.Equals(k) {
		t.Fatalf("k %x modified", in.Bytes())
	}
	if ginf != winf || gx != wx || gy != wy {
		t.Fatalf("k = %x: got (%x, %x, inf %v), want (%x, %x, inf %v)", k.Bytes(), gx, gy, ginf, wx, wy, winf)
	}
	if ginf {
		var p secp256k1.JacobianPoint
		ScalarBaseMultConst(k, &p)
		if !p.X.IsZero() || !p.Y.IsZero() || !p.Z.IsZero() {
			t.Fatalf("k = %x: infinity is not (0, 0, 0)", k.Bytes())
		}
	}
}

func scalarHex(t *testing.T, h string) secp256k1.ModNScalar {
	t.Helper()
	var s secp256k1.ModNScalar
	if s.SetByteSlice(hexBytes(t, h)) {
		t.Fatalf("%s overflows", h)
	}
	return s
}

func hexBytes(t testing.TB, h string) []byte {
	t.Helper()
	if len(h)%2 != 0 {
		h = "0" + h
	}
	out := make([]byte, len(h)/2)
	for i := range out {
		var v byte
		for _, c := range []byte(h[2*i : 2*i+2]) {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | (c - '0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | (c - 'a' + 10)
			default:
				t.Fatalf("bad hex %q", h)
			}
		}
		out[i] = v
	}
	return out
}

// TestScalarBaseMultConst compares ScalarBaseMultConst with the library's
// ScalarBaseMultNonConst on edge scalars (0, small values, n-1, n-2, powers
// of two, extreme odd digits in every window, every top digit) and on
// hashed random scalars.
func TestScalarBaseMultConst(t *testing.T) {
	var vals []secp256k1.ModNScalar
	for _, v := range []uint32{0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 255, 256, 65535} {
		var s secp256k1.ModNScalar
		s.SetInt(v)
		vals = append(vals, s)
		s.Negate()
		vals = append(vals, s) // n - v
	}
	for k := range 256 {
		var b [32]byte
		b[31-k/8] = 1 << (k % 8)
		var s secp256k1.ModNScalar
		s.SetBytes(&b)
		vals = append(vals, s)
		s.Negate()
		vals = append(vals, s)
	}
	// Scalars at the edges of the odd-digit recoding, for every window i:
	// ±m·2^(w·i) and ±m·2^(w·i) ± 1 for m = 1, 2^(w-1), 2^w - 1, 2^w, so
	// that t (k or n - k) has extreme digits e_i = ±1, ±63 around window i
	// and a small or large running sum before it; and the top window's
	// e_42 from 1 to 15 with the running sum near ±e_42·2^252.
	for i := range baseWindows {
		for _, m := range []uint32{1, baseHalf, 2*baseHalf - 1, 2 * baseHalf} {
			var p secp256k1.ModNScalar
			p.SetInt(m)
			for range i {
				var r secp256k1.ModNScalar
				r.SetInt(1 << baseW)
				p.Mul(&r)
			}
			var one secp256k1.ModNScalar
			one.SetInt(1)
			for range 2 {
				var s secp256k1.ModNScalar
				vals = append(vals, p)
				s.Add2(&p, &one)
				vals = append(vals, s)
				s.NegateVal(&one).Add(&p)
				vals = append(vals, s)
				p.Negate()
			}
		}
	}
	for e := range 16 {
		for _, low := range []string{
			"0000000000000000000000000000000000000000000000000000000000000001",
			"0fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
			"0800000000000000000000000000000000000000000000000000000000000001",
			"07ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		} {
			b := hexBytes(t, low)
			b[0] |= byte(e) << 4
			var s secp256k1.ModNScalar
			s.SetByteSlice(b) // reduced modulo n
			vals = append(vals, s)
			s.Negate()
			vals = append(vals, s)
		}
	}
	// Runs of zero bytes and of 0xff bytes.
	for _, h := range []string{
		"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
		"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd036413f",
		"8000000000000000000000000000000000000000000000000000000000000000",
		"ff00000000000000000000000000000000000000000000000000000000000001",
		"00000000000000000000000000000000ffffffffffffffffffffffffffffffff",
		"fffffffffffffffffffffffffffffffe00000000000000000000000000000000",
		"7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0", // (n-1)/2
		"7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1",
		// t = 30·2^252 - n and n - t: the running sum before the top
		// window equals the addend (15·2^252 - n ≡ 15·2^252), a doubling.
		"e00000000000000000000000000000014551231950b75fc4402da1732fc9bebf",
		"1ffffffffffffffffffffffffffffffd755db9cd5e9140777fa4bd19a06c8282",
	} {
		vals = append(vals, scalarHex(t, h))
	}
	for i := range 500 {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'g'})
		var s secp256k1.ModNScalar
		s.SetBytes(&h)
		vals = append(vals, s)
	}
	for i := range vals {
		checkBaseMult(t, &vals[i])
	}
}

// TestJacAddAffine checks the Jacobian-plus-affine addition against the
// library on random points, with a Jacobian input whose Z is not 1 and
// whose X and Y have the largest magnitudes the caller allows.
func TestJacAddAffine(t *testing.T) {
	for i := range 200 {
		h1 := sha256.Sum256([]byte{byte(i), 'a'})
		h2 := sha256.Sum256([]byte{byte(i), 'b'})
		var s1, s2 secp256k1.ModNScalar
		s1.SetBytes(&h1)
		s2.SetBytes(&h2)
		var p1, p2 secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(&s1, &p1)
		secp256k1.ScalarBaseMultNonConst(&s2, &p2)
		p2.ToAffine()
		var want secp256k1.JacobianPoint
		secp256k1.AddNonConst(&p1, &p2, &want)
		want.ToAffine()

		// Rescale p1 by λ² and λ³ (λ from the hash), then raise the
		// magnitudes of X and Y to 6 and 3 by negating twice: (6p - (p' - X))
		// and (3p - (p' - Y)) with p' = 2p.
		var lam, l2, l3 secp256k1.FieldVal
		lam.SetBytes(&h1)
		l2.SquareVal(&lam)
		l3.Mul2(&l2, &lam)
		var x, y, z secp256k1.FieldVal
		x.Mul2(&p1.X, &l2).Normalize()
		y.Mul2(&p1.Y, &l3).Normalize()
		z.Mul2(&p1.Z, &lam).Normalize()
		x.Negate(1).Negate(5) // magnitude 6
		y.Negate(1).Negate(2) // magnitude 3
		jacAddAffine(&x, &y, &z, &p2.X, &p2.Y)
		got := secp256k1.JacobianPoint{X: x, Y: y, Z: z}
		got.X.Normalize()
		got.Y.Normalize()
		got.Z.Normalize()
		got.ToAffine()
		if !got.X.Equals(&want.X) || !got.Y.Equals(&want.Y) {
			t.Fatalf("case %d: got (%v, %v), want (%v, %v)", i, &got.X, &got.Y, &want.X, &want.Y)
		}
	}
}

// TestMixedAddExceptional checks the complete addition on the cases an
// incomplete one gets wrong: P + P (a doubling), P + (-P) (infinity) and
// infinity + P, against the library.
func TestMixedAddExceptional(t *testing.T) {
	for _, v := range []uint32{1, 2, 5, 1000} {
		var s secp256k1.ModNScalar
		s.SetInt(v)
		var p secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(&s, &p)
		p.ToAffine()
		var negY secp256k1.FieldVal
		negY.NegateVal(&p.Y, 1).Normalize()
		var one, zeroF secp256k1.FieldVal
		one.SetInt(1)
		var x3, y3, z3 secp256k1.FieldVal

		// P + P = 2P
		mixedAdd(&x3, &y3, &z3, &p.X, &p.Y, &one, &p.X, &p.Y)
		var want secp256k1.JacobianPoint
		secp256k1.DoubleNonConst(&p, &want)
		want.ToAffine()
		checkProjective(t, "P+P", &x3, &y3, &z3, &want)

		// P + (-P) = infinity
		mixedAdd(&x3, &y3, &z3, &p.X, &p.Y, &one, &p.X, &negY)
		if !z3.Normalize().IsZero() {
			t.Errorf("v=%d: P + (-P) has Z != 0", v)
		}
		// infinity + P = P
		mixedAdd(&x3, &y3, &z3, &zeroF, &one, &zeroF, &p.X, &p.Y)
		checkProjective(t, "O+P", &x3, &y3, &z3, &p)
	}
}

func checkProjective(t *testing.T, what string, x, y, z *secp256k1.FieldVal, want *secp256k1.JacobianPoint) {
	t.Helper()
	var zi, ax, ay secp256k1.FieldVal
	zi.Set(z).Normalize()
	if zi.IsZero() {
		t.Fatalf("%s: infinity", what)
	}
	zi.Inverse()
	ax.Set(x).Normalize().Mul(&zi).Normalize()
	ay.Set(y).Normalize().Mul(&zi).Normalize()
	if !ax.Equals(&want.X) || !ay.Equals(&want.Y) {
		t.Fatalf("%s: got (%v, %v), want (%v, %v)", what, &ax, &ay, &want.X, &want.Y)
	}
}

// FuzzScalarBaseMultConst compares ScalarBaseMultConst with the library
// on arbitrary 32-byte scalars (reduced modulo n).
func FuzzScalarBaseMultConst(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte{1})
	f.Add(hexBytes(f, "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140"))
	f.Add(hexBytes(f, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 32 {
			b = b[:32]
		}
		var s secp256k1.ModNScalar
		s.SetByteSlice(b)
		checkBaseMult(t, &s)
	})
}

func BenchmarkScalarBaseMult(b *testing.B) {
	h := sha256.Sum256([]byte("bench"))
	var k secp256k1.ModNScalar
	k.SetBytes(&h)
	var p secp256k1.JacobianPoint
	ScalarBaseMultConst(&k, &p)
	b.Run("Const", func(b *testing.B) {
		for range b.N {
			ScalarBaseMultConst(&k, &p)
		}
	})
	b.Run("LibraryNonConst", func(b *testing.B) {
		for range b.N {
			secp256k1.ScalarBaseMultNonConst(&k, &p)
		}
	})
}
