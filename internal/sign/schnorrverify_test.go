package sign

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// oddRSig signs hash with d as BIP 340 would, except that the nonce is
// chosen so that R has an odd Y and is not negated: s = k + e·d with r =
// x(R). Such a signature must be refused.
func oddRSig(sk *schnorrKey, hash []byte, seed byte) []byte {
	k := sha256.Sum256([]byte{seed, 'o', 'd', 'd'})
	var nonce secp256k1.ModNScalar
	nonce.SetBytes(&k)
	var R secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&nonce, &R)
	R.ToAffine()
	if !R.Y.IsOdd() {
		nonce.Negate()
		secp256k1.ScalarBaseMultNonConst(&nonce, &R)
		R.ToAffine()
	}
	var rx [32]byte
	R.X.PutBytes(&rx)
	eh := chainhash.TaggedHash(chainhash.TagBIP0340Challenge, rx[:], sk.xonly[:], hash)
	var e, s secp256k1.ModNScalar
	e.SetBytes((*[32]byte)(eh))
	s.Mul2(&e, &sk.d).Add(&nonce)
	out := make([]byte, 64)
	copy(out, rx[:])
	s.PutBytesUnchecked(out[32:])
	return out
}

// TestVerifySchnorrMatchesLibrary checks verifySchnorr against the
// library's BIP 340 verifier: signatures made here (keys with odd and even
// Y) are accepted by both, and each variant (every byte of the signature
// altered, another hash, another key, the key's negation, r at or above p,
// s at or above n, zero r or s, an R with an odd Y, random bytes) gets the
// library's answer.
func TestVerifySchnorrMatchesLibrary(t *testing.T) {
	n := secp256k1.Params().N.Bytes()
	p := secp256k1.Params().P.Bytes()
	addSmall := func(b []byte, d byte) []byte {
		out := bytes.Clone(b)
		for i := len(out) - 1; i >= 0; i-- {
			v := int(out[i]) + int(d)
			out[i] = byte(v)
			if v < 256 {
				break
			}
			d = 1
		}
		return out
	}
	odd, even := 0, 0
	for i := range 12 {
		k := benchKey(byte(200 + i))
		plain, tweaked := k.schnorrKeys()
		if k.PubKey()[0] == 0x03 {
			odd++
		} else {
			even++
		}
		other := benchKey(byte(i))
		var negD secp256k1.ModNScalar
		negD.NegateVal(&k.priv.Key)
		negPub := pubKeyOf(&negD)
		for j, sk := range []*schnorrKey{plain, tweaked} {
			hash := sha256.Sum256([]byte{byte(i), byte(j), 's'})
			sig := sk.signSchnorrRaw(hash[:], nil)
			type variant struct {
				name      string
				sig, hash []byte
				pub       *secp256k1.PublicKey
			}
			vs := []variant{
				{"valid", sig[:], hash[:], sk.pub},
				{"negated key", sig[:], hash[:], nil},
				{"other hash", sig[:], addSmall(hash[:], 1), sk.pub},
				{"other key", sig[:], hash[:], other.pub},
				{"odd R", oddRSig(sk, hash[:], byte(i)), hash[:], sk.pub},
				{"r = p", append(bytes.Clone(p), sig[32:]...), hash[:], sk.pub},
				{"r = p+1", append(addSmall(p, 1), sig[32:]...), hash[:], sk.pub},
				{"r = 0", append(make([]byte, 32), sig[32:]...), hash[:], sk.pub},
				{"s = n", append(bytes.Clone(sig[:32]), n...), hash[:], sk.pub},
				{"s = n+1", append(bytes.Clone(sig[:32]), addSmall(n, 1)...), hash[:], sk.pub},
				{"s = 0", append(bytes.Clone(sig[:32]), make([]byte, 32)...), hash[:], sk.pub},
				{"short", sig[:63], hash[:], sk.pub},
			}
			if j == 0 {
				vs[1].pub = negPub
			} else {
				vs[1].pub = sk.pub
			}
			for b := range 64 {
				for _, x := range []byte{0x01} {
					m := bytes.Clone(sig[:])
					m[b] ^= x
					vs = append(vs, variant{"byte altered", m, hash[:], sk.pub})
				}
			}
			for r := range 8 {
				rb := sha256.Sum256([]byte{byte(i), byte(j), byte(r), 'r'})
				sb := sha256.Sum256(rb[:])
				vs = append(vs, variant{"random", append(rb[:], sb[:]...), hash[:], sk.pub})
			}
			if !verifySchnorrLibrary(sig[:], hash[:], sk.pub) {
				t.Fatalf("key %d/%d: the library refuses the signature", i, j)
			}
			for _, v := range vs {
				got, want := verifySchnorr(v.sig, v.hash, v.pub), verifySchnorrLibrary(v.sig, v.hash, v.pub)
				if got != want {
					t.Fatalf("key %d/%d %s: verifySchnorr %v, library %v", i, j, v.name, got, want)
				}
				if v.name == "odd R" && got {
					t.Fatalf("key %d/%d: an R with an odd Y accepted", i, j)
				}
			}
		}
	}
	if odd == 0 || even == 0 {
		t.Fatalf("keys of one parity only (%d odd, %d even)", odd, even)
	}
}

// FuzzVerifySchnorr compares verifySchnorr with the library's BIP 340
// verifier on arbitrary signatures, hashes and keys (the key is the
// public key of a scalar taken from keySeed).
func FuzzVerifySchnorr(f *testing.F) {
	k := benchKey(7)
	plain, _ := k.schnorrKeys()
	hash := sha256.Sum256([]byte("fuzz"))
	sig := plain.signSchnorrRaw(hash[:], nil)
	f.Add(sig[:], hash[:], []byte{7})
	f.Add(make([]byte, 64), hash[:], []byte{1})
	f.Fuzz(func(t *testing.T, sig, hash, keySeed []byte) {
		if len(hash) != 32 {
			return
		}
		d := benchKey(7).priv.Key
		if len(keySeed) > 0 && keySeed[0] != 7 {
			s := sha256.Sum256(keySeed)
			if d.SetBytes(&s) != 0 || d.IsZero() {
				return
			}
		}
		pub := pubKeyOf(&d)
		if got, want := verifySchnorr(sig, hash, pub), verifySchnorrLibrary(sig, hash, pub); got != want {
			t.Fatalf("verifySchnorr %v, library %v", got, want)
		}
	})
}
