package secp

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// libraryVerify is the library's verifier on the same inputs.
func libraryVerify(r, s *secp256k1.ModNScalar, hash []byte, pub *secp256k1.PublicKey) bool {
	return ecdsa.NewSignature(r, s).Verify(hash, pub)
}

// sigParts returns r and s of a library signature.
func sigParts(sig *ecdsa.Signature) (secp256k1.ModNScalar, secp256k1.ModNScalar) {
	return sig.R(), sig.S()
}

// hashed returns a deterministic 32-byte value.
func hashed(parts ...any) []byte {
	h := sha256.New()
	for _, p := range parts {
		_ = binary.Write(h, binary.LittleEndian, p)
	}
	return h.Sum(nil)
}

// TestVerifyECDSAMatchesLibrary signs random hashes with random keys and
// checks that VerifyECDSA accepts them as the library does, with low and
// high S, and rejects, as the library does, every variant: another hash,
// another key, r or s altered, swapped, zero, one, n-1, and the hash
// truncated or longer than 32 bytes.
func TestVerifyECDSAMatchesLibrary(t *testing.T) {
	count := 400
	if testing.Short() {
		count = 100
	}
	var one, nm1 secp256k1.ModNScalar
	one.SetInt(1)
	nm1.SetInt(1).Negate()
	for i := range count {
		priv := secp256k1.PrivKeyFromBytes(hashed(i, "key"))
		pub := priv.PubKey()
		other := secp256k1.PrivKeyFromBytes(hashed(i, "other")).PubKey()
		hash := hashed(i, "msg")
		r, s := sigParts(ecdsa.Sign(priv, hash))
		if !VerifyECDSA(&r, &s, hash, pub) {
			t.Fatalf("case %d: valid signature refused", i)
		}
		var highS secp256k1.ModNScalar
		highS.NegateVal(&s)
		if !VerifyECDSA(&r, &highS, hash, pub) {
			t.Fatalf("case %d: high-S signature refused", i)
		}

		type variant struct {
			name string
			r, s secp256k1.ModNScalar
			hash []byte
			pub  *secp256k1.PublicKey
		}
		bump := func(v secp256k1.ModNScalar) secp256k1.ModNScalar { return *v.Add(&one) }
		flipped := append([]byte(nil), hash...)
		flipped[i%32] ^= 1 << (i % 8)
		vs := []variant{
			{"other hash", r, s, flipped, pub},
			{"other key", r, s, hash, other},
			{"r+1", bump(r), s, hash, pub},
			{"s+1", r, bump(s), hash, pub},
			{"swapped", s, r, hash, pub},
			{"r=0", secp256k1.ModNScalar{}, s, hash, pub},
			{"s=0", r, secp256k1.ModNScalar{}, hash, pub},
			{"r=1", one, s, hash, pub},
			{"s=n-1", r, nm1, hash, pub},
			{"short hash", r, s, hash[:20], pub},
			{"long hash", r, s, append(append([]byte(nil), hash...), 0xff), pub},
			{"empty hash", r, s, nil, pub},
		}
		for _, v := range vs {
			got := VerifyECDSA(&v.r, &v.s, v.hash, v.pub)
			want := libraryVerify(&v.r, &v.s, v.hash, v.pub)
			if got != want {
				t.Fatalf("case %d %s: VerifyECDSA %v, library %v", i, v.name, got, want)
			}
		}
	}
}

// TestVerifyECDSAOverflowR covers the rare valid signature whose nonce
// point's x coordinate is at least n (r = x - n, checked as
// (r + n)·Z² = X): such a signature is built backwards from a point R with
// x ≥ n, choosing u1 and u2 and solving for the key (P = u2⁻¹·(R - u1·G)),
// s (r·u2⁻¹) and the hash (u1·s). Both verifiers must accept it and refuse
// it under a changed hash; a signature with r ≥ p - n must never take
// that path.
func TestVerifyECDSAOverflowR(t *testing.T) {
	built := 0
	for i := 1; built < 20; i++ {
		// x = n + i, if x³ + 7 is a square.
		var xb [32]byte
		nb := [32]byte{}
		var nS secp256k1.ModNScalar
		nS.SetInt(1).Negate() // n - 1
		nb = nS.Bytes()
		var xf secp256k1.FieldVal
		xf.SetBytes(&nb)
		xf.AddInt(uint16(1 + i)).Normalize() // n + i
		xf.PutBytes(&xb)
		var y secp256k1.FieldVal
		if !secp256k1.DecompressY(&xf, false, &y) {
			continue
		}
		R := secp256k1.MakeJacobianPoint(&xf, &y, new(secp256k1.FieldVal).SetInt(1))
		var r secp256k1.ModNScalar
		r.SetBytes(&xb) // x mod n = i

		var u1, u2 secp256k1.ModNScalar
		h1, h2 := hashed(i, "u1"), hashed(i, "u2")
		u1.SetByteSlice(h1)
		u2.SetByteSlice(h2)
		var u2inv secp256k1.ModNScalar
		u2inv.InverseValNonConst(&u2)
		var u1G, diff, P secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(&u1, &u1G)
		u1G.Y.Negate(1).Normalize()
		secp256k1.AddNonConst(&R, &u1G, &diff)
		secp256k1.ScalarMultNonConst(&u2inv, &diff, &P)
		P.ToAffine()
		pub := secp256k1.NewPublicKey(&P.X, &P.Y)

		var s, e secp256k1.ModNScalar
		s.Mul2(&r, &u2inv)
		e.Mul2(&u1, &s)
		eb := e.Bytes()
		hash := eb[:]

		if !libraryVerify(&r, &s, hash, pub) {
			t.Fatalf("case %d: the library refuses the constructed signature", i)
		}
		if !VerifyECDSA(&r, &s, hash, pub) {
			t.Fatalf("case %d: VerifyECDSA refuses a signature with R.x ≥ n", i)
		}
		bad := append([]byte(nil), hash...)
		bad[31] ^= 1
		if VerifyECDSA(&r, &s, bad, pub) || libraryVerify(&r, &s, bad, pub) {
			t.Fatalf("case %d: signature accepted for another hash", i)
		}
		built++
	}

	// r + n ≥ p: with r = p - n + j the only candidate x is r itself.
	for j := range 8 {
		priv := secp256k1.PrivKeyFromBytes(hashed(j, "big r"))
		pub := priv.PubKey()
		hash := hashed(j, "h")
		var r, s secp256k1.ModNScalar
		// p - n = 0x14551231950b75fc4402da1722fc9baee
		var b [32]byte
		copy(b[15:], []byte{0x01, 0x45, 0x51, 0x23, 0x19, 0x50, 0xb7, 0x5f, 0xc4, 0x40, 0x2d, 0xa1, 0x72, 0x2f, 0xc9, 0xba, 0xee})
		r.SetBytes(&b)
		r.Add(new(secp256k1.ModNScalar).SetInt(uint32(j)))
		s.SetByteSlice(hashed(j, "s"))
		if got, want := VerifyECDSA(&r, &s, hash, pub), libraryVerify(&r, &s, hash, pub); got != want {
			t.Fatalf("r = p-n+%d: VerifyECDSA %v, library %v", j, got, want)
		}
	}
}

// TestVerifyECDSAPointEdges checks keys whose tables hit the special
// cases of the addition (the key G itself and small multiples, whose odd
// multiples coincide with G's table; keys n-1 and n-2, whose points are
// negations of G's) against the library.
func TestVerifyECDSAPointEdges(t *testing.T) {
	var ks []secp256k1.ModNScalar
	for _, v := range []uint32{1, 2, 3, 5, 7, 15} {
		var k secp256k1.ModNScalar
		k.SetInt(v)
		ks = append(ks, k)
		k.Negate()
		ks = append(ks, k)
	}
	ks = append(ks, scalarLambda)
	for i, d := range ks {
		priv := secp256k1.NewPrivateKey(&d)
		pub := priv.PubKey()
		for j := range 20 {
			hash := hashed(i, j, "edge")
			r, s := sigParts(ecdsa.Sign(priv, hash))
			if !VerifyECDSA(&r, &s, hash, pub) {
				t.Fatalf("key %d message %d: refused", i, j)
			}
			// u1 = u2·d makes u1·G + u2·P = 2·u1·G: a doubling inside
			// the sum. With e = r·d, u1 = e/s and u2 = r/s.
			var e secp256k1.ModNScalar
			e.Mul2(&r, &d)
			eb := e.Bytes()
			got, want := VerifyECDSA(&r, &s, eb[:], pub), libraryVerify(&r, &s, eb[:], pub)
			if got != want {
				t.Fatalf("key %d message %d (e = r·d): VerifyECDSA %v, library %v", i, j, got, want)
			}
			// e = -r·d makes the sum the point at infinity.
			e.Negate()
			eb = e.Bytes()
			if VerifyECDSA(&r, &s, eb[:], pub) || libraryVerify(&r, &s, eb[:], pub) {
				t.Fatalf("key %d message %d (e = -r·d): accepted", i, j)
			}
		}
	}
}

// TestVerifyECDSABatch checks that a batch answers, check by check, what
// VerifyECDSA answers, for batches of 1 to 40 mixing valid signatures
// with altered ones, zero r or s, wrong keys and repeated keys.
func TestVerifyECDSABatch(t *testing.T) {
	for _, n := range []int{1, 2, 5, 40} {
		checks := make([]ECDSACheck, n)
		for i := range checks {
			priv := secp256k1.PrivKeyFromBytes(hashed(i%7, "batch key"))
			hash := hashed(n, i, "batch msg")
			r, s := sigParts(ecdsa.Sign(priv, hash))
			c := ECDSACheck{R: r, S: s, Hash: hash, Pub: priv.PubKey()}
			switch i % 6 {
			case 1:
				c.Hash = hashed(n, i, "other")
			case 2:
				c.S = secp256k1.ModNScalar{}
			case 3:
				c.Pub = secp256k1.PrivKeyFromBytes(hashed(i, "wrong")).PubKey()
			case 4:
				c.R = secp256k1.ModNScalar{}
			}
			checks[i] = c
		}
		ok := make([]bool, n)
		for i := range ok {
			ok[i] = i%2 == 0 // overwritten
		}
		VerifyECDSABatch(checks, ok)
		valid := 0
		for i, c := range checks {
			want := VerifyECDSA(&c.R, &c.S, c.Hash, c.Pub)
			if ok[i] != want || want != libraryVerify(&c.R, &c.S, c.Hash, c.Pub) {
				t.Fatalf("batch %d check %d: batch %v, alone %v", n, i, ok[i], want)
			}
			if want {
				valid++
			}
		}
		if valid == 0 {
			t.Fatalf("batch %d: no valid signature met", n)
		}
	}
}

// FuzzVerifyECDSA compares VerifyECDSA with the library's verifier. The
// input is a key seed, a message, r and s, and a mode byte: odd modes sign
// the message with the key first (so that valid signatures are met) and
// then flip the bits given by the rest of the input; even modes take r and
// s as given.
func FuzzVerifyECDSA(f *testing.F) {
	f.Add(make([]byte, 129))
	f.Add(append(append(make([]byte, 128), 1), 0, 0, 0))
	f.Add(append(append(hashed("seed"), make([]byte, 96)...), 3, 5, 0xff))
	f.Add(append(append(hashed("seed2"), hashed("msg")...), append(make([]byte, 64), 1, 0x80, 1)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 129 || len(data) > 200 {
			return
		}
		var d secp256k1.ModNScalar
		d.SetByteSlice(data[:32])
		if d.IsZero() {
			d.SetInt(1)
		}
		priv := secp256k1.NewPrivateKey(&d)
		pub := priv.PubKey()
		hash := data[32:64]
		var r, s secp256k1.ModNScalar
		r.SetByteSlice(data[64:96])
		s.SetByteSlice(data[96:128])
		mode := data[128]
		if mode&1 == 1 {
			r, s = sigParts(ecdsa.Sign(priv, hash))
			rb, sb := r.Bytes(), s.Bytes()
			for k, m := range data[129:] {
				if k%2 == 0 {
					rb[int(m)%32] ^= 1 << (m >> 5 & 7)
				} else {
					sb[int(m)%32] ^= 1 << (m >> 5 & 7)
				}
			}
			r.SetBytes(&rb)
			s.SetBytes(&sb)
		}
		if mode&2 == 2 {
			s.Negate()
		}
		got := VerifyECDSA(&r, &s, hash, pub)
		want := libraryVerify(&r, &s, hash, pub)
		if got != want {
			t.Fatalf("VerifyECDSA %v, library %v", got, want)
		}
		// The same check in a batch, beside a valid signature.
		h2 := hashed(hash, "second")
		r2, s2 := sigParts(ecdsa.Sign(priv, h2))
		ok := make([]bool, 2)
		VerifyECDSABatch([]ECDSACheck{{R: r, S: s, Hash: hash, Pub: pub}, {R: r2, S: s2, Hash: h2, Pub: pub}}, ok)
		if ok[0] != want || !ok[1] {
			t.Fatalf("VerifyECDSABatch %v, library %v", ok, want)
		}
	})
}

// BenchmarkVerifyECDSA is the verifier beside the library's on the same
// signature.
func BenchmarkVerifyECDSA(b *testing.B) {
	priv := secp256k1.PrivKeyFromBytes(hashed("bench key"))
	pub := priv.PubKey()
	hash := hashed("bench msg")
	r, s := sigParts(ecdsa.Sign(priv, hash))
	VerifyECDSA(&r, &s, hash, pub) // the G tables
	b.Run("own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !VerifyECDSA(&r, &s, hash, pub) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !libraryVerify(&r, &s, hash, pub) {
				b.Fatal("refused")
			}
		}
	})
}
