package secp

import (
	"crypto/sha256"
	"math/big"
	"math/bits"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

var (
	bigP = new(big.Int).Set(secp256k1.Params().P)
	bigN = new(big.Int).Set(secp256k1.Params().N)
)

func feToBig(f *fe) *big.Int {
	v := new(big.Int)
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(f[i]))
	}
	return v
}

func scalarToBig(s *secp256k1.ModNScalar) *big.Int {
	b := s.Bytes()
	return new(big.Int).SetBytes(b[:])
}

func feFromBig(v *big.Int) fe {
	var b [32]byte
	v.FillBytes(b[:])
	var f fe
	f.setBytes(&b)
	return f
}

// feValues are the edges of the four-limb field (0, 1, p-1, p, p+1,
// 2^256-1: the last three are weakly reduced forms of 0, 1 and 2^32+976,
// values with carries across every limb) and hashed values.
func feValues() []fe {
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(feC),
		new(big.Int).Sub(bigP, big.NewInt(1)), bigP, new(big.Int).Add(bigP, big.NewInt(1)),
		new(big.Int).Sub(two256, big.NewInt(1)), new(big.Int).Sub(two256, big.NewInt(feC)),
		new(big.Int).Lsh(big.NewInt(1), 255), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 192), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1)),
	}
	for i := range 60 {
		h := sha256.Sum256([]byte{byte(i), 'e'})
		vals = append(vals, new(big.Int).SetBytes(h[:]))
	}
	out := make([]fe, len(vals))
	for i, v := range vals {
		out[i] = feFromBig(v)
	}
	return out
}

// TestFieldOps compares every operation of the four-limb field with
// math/big over all pairs of edge and hashed values, weakly reduced inputs
// included, and checks that results stay weakly reduced (a value below
// 2^256 is all a limb array can hold) and that normalize reaches [0, p).
func TestFieldOps(t *testing.T) {
	vals := feValues()
	mod := func(v *big.Int) *big.Int { return new(big.Int).Mod(v, bigP) }
	check := func(op string, i, j int, got *fe, want *big.Int) {
		t.Helper()
		if mod(feToBig(got)).Cmp(mod(want)) != 0 {
			t.Fatalf("%s(%d, %d) = %x, want %x", op, i, j, mod(feToBig(got)), mod(want))
		}
		n := *got
		n.normalize()
		if feToBig(&n).Cmp(bigP) >= 0 || feToBig(&n).Cmp(mod(want)) != 0 {
			t.Fatalf("%s(%d, %d): normalize gives %x", op, i, j, feToBig(&n))
		}
	}
	for i := range vals {
		a := vals[i]
		ab := feToBig(&a)
		var r fe
		r.sqr(&a)
		check("sqr", i, i, &r, new(big.Int).Mul(ab, ab))
		r.neg(&a)
		check("neg", i, i, &r, new(big.Int).Neg(ab))
		r.double(&a)
		check("double", i, i, &r, new(big.Int).Lsh(ab, 1))
		r.mulBeta(&a)
		check("mulBeta", i, i, &r, new(big.Int).Mul(ab, feToBig(&feBeta)))
		if a.isZero() != (mod(ab).Sign() == 0) {
			t.Fatalf("isZero(%d) wrong", i)
		}
		var bb [32]byte
		a.putBytes(&bb)
		if new(big.Int).SetBytes(bb[:]).Cmp(mod(ab)) != 0 {
			t.Fatalf("putBytes(%d) wrong", i)
		}
		for j := range vals {
			b := vals[j]
			bbig := feToBig(&b)
			r.add(&a, &b)
			check("add", i, j, &r, new(big.Int).Add(ab, bbig))
			r.sub(&a, &b)
			check("sub", i, j, &r, new(big.Int).Sub(ab, bbig))
			r.mul(&a, &b)
			check("mul", i, j, &r, new(big.Int).Mul(ab, bbig))
			if a.equal(&b) != (mod(ab).Cmp(mod(bbig)) == 0) {
				t.Fatalf("equal(%d, %d) wrong", i, j)
			}
			// Aliased destination.
			c := a
			c.mul(&c, &b)
			check("mul aliased", i, j, &c, new(big.Int).Mul(ab, bbig))
		}
	}
}

// TestReduce checks the reduction of 512-bit products against math/big,
// with crafted inputs whose first fold wraps past 2^256 (low half just
// below 2^256, high half large) and whose second fold then carries out of
// the low limb.
func TestReduce(t *testing.T) {
	const ones = ^uint64(0)
	cases := [][8]uint64{
		{ones, ones, ones, ones, ones, ones, ones, ones},
		{ones, ones, ones, ones, 0, 0, 0, 0},
		{ones - feC, ones, ones, ones, 1, 0, 0, 0},
		{ones, ones, ones, ones, 1 << 34, 0, 0, 0},
		{0, 0, 0, 0, ones, ones, ones, ones},
		{ones - 5, ones, ones, ones, ones >> 30, 0, 0, 0},
		{0xffffffff00000000, ones, ones, ones, ones, ones, ones, 3},
	}
	// The high half (0, 0, 0, ones) with t3 = feC - 1 leaves, after the
	// first fold, (t0, ones, ones, ones) and top = 2^32 + 976; top·feC is
	// above 2^64, so the second fold wraps, and t0 is chosen so that it
	// wraps to at least 2^64 - feC in the low limb: the last addition of
	// feC then carries into the next limb.
	c := uint64(feC)
	top, _ := bits.Mul64(ones, c)
	hi, lo := bits.Mul64(top, c)
	if hi != 1 {
		t.Fatal("crafted case: top·feC is not just above 2^64")
	}
	for d := uint64(0); d < 4; d++ {
		t0 := -c - lo + d // 2^64 - feC - (top·feC - 2^64) + d
		cases = append(cases, [8]uint64{t0, ones, ones, c - 1, 0, 0, 0, ones})
	}
	for i := range 200 {
		h1 := sha256.Sum256([]byte{byte(i), 'r', '1'})
		h2 := sha256.Sum256([]byte{byte(i), 'r', '2'})
		var c [8]uint64
		for j := range 4 {
			c[j] = ones - uint64(h1[j])             // low half near 2^256
			c[4+j] = uint64(h2[j]) << (8 * (j % 8)) // assorted high half
		}
		cases = append(cases, c)
	}
	for i, c := range cases {
		want := new(big.Int)
		for j := 7; j >= 0; j-- {
			want.Lsh(want, 64).Or(want, new(big.Int).SetUint64(c[j]))
		}
		want.Mod(want, bigP)
		var got fe
		got.reduce(&c)
		if new(big.Int).Mod(feToBig(&got), bigP).Cmp(want) != 0 {
			t.Fatalf("case %d: reduce gives %x, want %x", i, feToBig(&got), want)
		}
	}
}

// TestFieldInvert checks invert against a·a⁻¹ = 1 and zero against zero.
func TestFieldInvert(t *testing.T) {
	for i, a := range feValues() {
		var inv, one fe
		inv.invert(&a)
		if a.isZero() {
			if !inv.isZero() {
				t.Fatalf("value %d: zero inverted to non-zero", i)
			}
			continue
		}
		one.mul(&a, &inv)
		if !one.equal(&fe{1}) {
			t.Fatalf("value %d: a·a⁻¹ ≠ 1", i)
		}
	}
}

// TestEndomorphismConstants checks β and λ (non-trivial cube roots of one
// modulo p and n, with λ·G = (β·Gx, Gy)) and the split constants against
// their definitions.
func TestEndomorphismConstants(t *testing.T) {
	beta := feToBig(&feBeta)
	if beta.Cmp(big.NewInt(1)) == 0 || new(big.Int).Exp(beta, big.NewInt(3), bigP).Cmp(big.NewInt(1)) != 0 {
		t.Fatal("β is not a non-trivial cube root of 1 mod p")
	}
	lb := scalarFromHex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	lambda := scalarToBig(&lb)
	if new(big.Int).Exp(lambda, big.NewInt(3), bigN).Cmp(big.NewInt(1)) != 0 {
		t.Fatal("λ is not a cube root of 1 mod n")
	}
	var lg secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&scalarLambda, &lg)
	lg.ToAffine()
	var gx, gy secp256k1.FieldVal
	gx.SetByteSlice(secp256k1.Params().Gx.Bytes())
	gy.SetByteSlice(secp256k1.Params().Gy.Bytes())
	var bgx fe
	bgx.setFieldVal(&gx)
	bgx.mulBeta(&bgx)
	var lx fe
	lx.setFieldVal(&lg.X)
	if !lx.equal(&bgx) || !lg.Y.Equals(gy.Normalize()) {
		t.Fatal("λ·G is not (β·Gx, Gy)")
	}

	// The lattice: (a1, b1) and (a2, b2) with a + b·λ = 0 mod n.
	hex := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	a1 := hex("3086d221a7d46bcde86c90e49284eb15")
	b1 := new(big.Int).Neg(hex("e4437ed6010e88286f547fa90abfe4c3"))
	a2 := hex("114ca50f7a8e2f3f657c1108d9d44cfd8")
	b2 := new(big.Int).Set(a1)
	for _, v := range [][2]*big.Int{{a1, b1}, {a2, b2}} {
		s := new(big.Int).Mul(v[1], lambda)
		if s.Add(s, v[0]).Mod(s, bigN).Sign() != 0 {
			t.Fatal("lattice vector is not in the kernel")
		}
	}
	scalarBig := func(s secp256k1.ModNScalar) *big.Int { b := s.Bytes(); return new(big.Int).SetBytes(b[:]) }
	if scalarBig(scalarMinusB1).Cmp(new(big.Int).Mod(new(big.Int).Neg(b1), bigN)) != 0 {
		t.Fatal("-b1 wrong")
	}
	if scalarBig(scalarMinusB2).Cmp(new(big.Int).Mod(new(big.Int).Neg(b2), bigN)) != 0 {
		t.Fatal("-b2 wrong")
	}
	round := func(num *big.Int) *big.Int {
		// round(num / n) for num >= 0
		q := new(big.Int).Lsh(num, 1)
		q.Add(q, bigN)
		return q.Div(q, new(big.Int).Lsh(bigN, 1))
	}
	two384 := new(big.Int).Lsh(big.NewInt(1), 384)
	g1 := fe(splitG1)
	g2 := fe(splitG2)
	if feToBig(&g1).Cmp(round(new(big.Int).Mul(two384, b2))) != 0 {
		t.Fatal("g1 wrong")
	}
	if feToBig(&g2).Cmp(round(new(big.Int).Mul(two384, new(big.Int).Neg(b1)))) != 0 {
		t.Fatal("g2 wrong")
	}
}

// TestSplitScalar checks k = k1 + k2·λ (mod n) with both halves below
// 2^129, for edge and hashed scalars.
func TestSplitScalar(t *testing.T) {
	lambda := scalarToBig(&scalarLambda)
	var ks []secp256k1.ModNScalar
	for _, v := range []uint32{0, 1, 2, 3} {
		var s secp256k1.ModNScalar
		s.SetInt(v)
		ks = append(ks, s)
		s.Negate()
		ks = append(ks, s)
	}
	ks = append(ks, scalarLambda, scalarMinusB1, scalarMinusB2)
	for i := range 2000 {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8), 'k'})
		var s secp256k1.ModNScalar
		s.SetBytes(&h)
		ks = append(ks, s)
	}
	limit := new(big.Int).Lsh(big.NewInt(1), 129)
	for i, k := range ks {
		k1, k2, n1, n2 := splitScalar(&k)
		b1 := scalarToBig(&k1)
		b2 := scalarToBig(&k2)
		if b1.Cmp(limit) >= 0 || b2.Cmp(limit) >= 0 {
			t.Fatalf("scalar %d: halves of %d and %d bits", i, b1.BitLen(), b2.BitLen())
		}
		if n1 {
			b1.Neg(b1)
		}
		if n2 {
			b2.Neg(b2)
		}
		sum := new(big.Int).Mul(b2, lambda)
		sum.Add(sum, b1).Mod(sum, bigN)
		kb := k.Bytes()
		if sum.Cmp(new(big.Int).SetBytes(kb[:])) != 0 {
			t.Fatalf("scalar %d: k1 + k2·λ ≠ k", i)
		}
	}
}

// TestWNAF checks the width-w NAF of edge and hashed scalars: the digits
// sum to the scalar, each is odd and below 2^(w-1) in absolute value, any
// two non-zero digits are at least w positions apart, and the length is
// that of the last non-zero digit.
func TestWNAF(t *testing.T) {
	var ks []secp256k1.ModNScalar
	for _, v := range []uint32{0, 1, 2, 3, 15, 16, 17, 31, 0xffff} {
		var s secp256k1.ModNScalar
		s.SetInt(v)
		ks = append(ks, s)
		s.Negate()
		ks = append(ks, s)
	}
	for i := range 300 {
		h := sha256.Sum256([]byte{byte(i), 'w'})
		var s secp256k1.ModNScalar
		s.SetBytes(&h)
		ks = append(ks, s)
	}
	for _, w := range []uint{2, 4, windowP, 8, windowG} {
		for i, k := range ks {
			var digits [maxNAF]int16
			n := wnaf(&k, w, &digits)
			sum := new(big.Int)
			last := -1
			for j := maxNAF - 1; j >= 0; j-- {
				d := int64(digits[j])
				sum.Lsh(sum, 1).Add(sum, big.NewInt(d))
				if d == 0 {
					continue
				}
				if d%2 == 0 || d >= 1<<(w-1) || d <= -(1<<(w-1)) {
					t.Fatalf("w=%d scalar %d: digit %d at %d", w, i, d, j)
				}
				if last >= 0 && last-j < int(w) {
					t.Fatalf("w=%d scalar %d: digits at %d and %d", w, i, j, last)
				}
				if last < 0 && n != j+1 {
					t.Fatalf("w=%d scalar %d: length %d, last digit at %d", w, i, n, j)
				}
				last = j
			}
			if last < 0 && n != 0 {
				t.Fatalf("w=%d scalar %d: length %d for zero", w, i, n)
			}
			kb := k.Bytes()
			if sum.Cmp(new(big.Int).SetBytes(kb[:])) != 0 {
				t.Fatalf("w=%d scalar %d: digits sum to %x", w, i, sum)
			}
		}
	}
}
