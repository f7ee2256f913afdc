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
// of two, scalars whose digits after the offset are all zero or have long
// runs of zero windows, one window set) and on hashed random scalars.
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
	// -c: every signed digit is zero, the sum stays at infinity until the
	// end. ±c, ±2c, and c plus or minus single windows.
	baseTableOnce.Do(initBaseTable)
	var negC secp256k1.ModNScalar
	negC.NegateVal(&baseOffset)
	vals = append(vals, negC, baseOffset)
	var twoC secp256k1.ModNScalar
	twoC.Add2(&baseOffset, &baseOffset)
	vals = append(vals, twoC)
	for i := range baseWindows {
		for _, d := range []uint32{1, baseHalf - 1, baseHalf} {
			// -c + d·2^(w·i) and -c - d·2^(w·i): one nonzero digit.
			var s, p secp256k1.ModNScalar
			p.SetInt(d)
			for range i {
				var r secp256k1.ModNScalar
				r.SetInt(1 << baseW)
				p.Mul(&r)
			}
			s.Add2(&negC, &p)
			vals = append(vals, s)
			p.Negate()
			s.Add2(&negC, &p)
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
