package sign

import (
	"encoding/binary"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/descwallet/descwallet/internal/secp"
)

// SignECDSA signs a 32-byte hash with priv the way Bitcoin Core does and
// returns the DER encoding of the signature (without a hash-type byte).
//
// The nonce is RFC 6979's (HMAC-SHA256) and S is made low (BIP 62). Core
// then grinds for a low R: while R's top bit is set, so that its DER
// integer would need a leading zero byte, it signs again with 32 bytes of
// extra nonce data holding a counter 1, 2, ... as a little-endian uint32 in
// the first four bytes. The result is byte-identical to Core's and at most
// 70 bytes long.
func SignECDSA(priv *secp256k1.PrivateKey, hash []byte) []byte {
	der, k := signECDSA(priv, hash)
	k.Zero()
	return der
}

// signECDSA is SignECDSA that also returns the nonce as the signature uses
// it: k with s = k^-1 (e + d*r), so negated together with s when s was made
// low. It is zero when the signature came from the exhaustive path (which
// keeps no nonce); such a signature cannot be proven by proveECDSA.
func signECDSA(priv *secp256k1.PrivateKey, hash []byte) ([]byte, secp256k1.ModNScalar) {
	var d [32]byte
	priv.Key.PutBytes(&d)
	defer zero32(&d)

	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	var extra [32]byte
	k, r := nonceRFC6979(d[:], hash, nil)
	for counter := uint32(1); !lowR(&r); counter++ {
		k.Zero()
		binary.LittleEndian.PutUint32(extra[:4], counter)
		k, r = nonceRFC6979(d[:], hash, extra[:])
	}

	// s = k^-1 (e + d*r) mod n, negated when above half the order.
	var kinv secp256k1.ModNScalar
	kinv.InverseValNonConst(&k)
	var s secp256k1.ModNScalar
	s.Mul2(&priv.Key, &r).Add(&e).Mul(&kinv)
	kinv.Zero()
	if s.IsZero() {
		// Probability 2^-256: RFC 6979 would move on to its next nonce
		// for this extra data; the exhaustive path does exactly that.
		k.Zero()
		return signExhaustive(&priv.Key, d[:], hash), k
	}
	if s.IsOverHalfOrder() {
		// (-s)(-k) = s*k: the negated pair satisfies the same equation.
		s.Negate()
		k.Negate()
	}
	return ecdsa.NewSignature(&r, &s).Serialize(), k
}

// proveECDSA reports whether der (a DER signature without hash-type byte)
// is a valid ECDSA signature of hash under the public key d*G, given the
// nonce k the signer used, without any curve arithmetic: it checks that r
// and s are in range, s is low, and s*k = e + r*d (mod n), e being the hash
// as a scalar. With r = x(kG) mod n, which is how the signer derived r from
// k, that equation is exactly what ECDSA verification establishes: the
// verifier's point (e/s)G + (r/s)(dG) is ((e + r*d)/s)G = kG.
func proveECDSA(der, hash []byte, d, k *secp256k1.ModNScalar) bool {
	if k.IsZero() || d.IsZero() || len(hash) != 32 {
		return false
	}
	sig, err := ecdsa.ParseDERSignature(der)
	if err != nil {
		return false
	}
	r, s := sig.R(), sig.S()
	if r.IsZero() || s.IsZero() || s.IsOverHalfOrder() {
		return false
	}
	var e, lhs, rhs secp256k1.ModNScalar
	e.SetByteSlice(hash)
	lhs.Mul2(&s, k)
	rhs.Mul2(&r, d).Add(&e)
	return lhs.Equals(&rhs)
}

// signExhaustive is Core's signing loop written out in full: for each
// extra data (none, then the counter 1, 2, ...), the first RFC 6979 nonce
// giving non-zero r and s, kept when R is low. SignECDSA skips computing s
// for nonces whose R is high; this is its fallback for the case that s is
// zero.
func signExhaustive(d *secp256k1.ModNScalar, dBytes, hash []byte) []byte {
	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	var extra []byte
	for counter := uint32(0); ; counter++ {
		if counter > 0 {
			extra = make([]byte, 32)
			binary.LittleEndian.PutUint32(extra[:4], counter)
		}
		for iteration := uint32(0); ; iteration++ {
			k, r := nonceAt(dBytes, hash, extra, iteration)
			if r.IsZero() {
				continue
			}
			kinv := new(secp256k1.ModNScalar).InverseValNonConst(&k)
			s := new(secp256k1.ModNScalar).Mul2(d, &r).Add(&e).Mul(kinv)
			if s.IsZero() {
				continue
			}
			if !lowR(&r) {
				break
			}
			if s.IsOverHalfOrder() {
				s.Negate()
			}
			return ecdsa.NewSignature(&r, s).Serialize()
		}
	}
}

// lowR reports whether r, as a 32-byte big-endian number, has its top bit
// clear (Core's SigHasLowR).
func lowR(r *secp256k1.ModNScalar) bool {
	var b [32]byte
	r.PutBytes(&b)
	return b[0] < 0x80
}

// nonceRFC6979 returns the first RFC 6979 nonce k for the key, the hash and
// the optional 32 bytes of extra data whose r = (kG).x mod n is not zero,
// and that r.
func nonceRFC6979(dBytes, hash, extra []byte) (secp256k1.ModNScalar, secp256k1.ModNScalar) {
	for iteration := uint32(0); ; iteration++ {
		k, r := nonceAt(dBytes, hash, extra, iteration)
		if !r.IsZero() {
			return k, r
		}
	}
}

// nonceAt returns the RFC 6979 nonce number iteration and its r (zero when
// the nonce is unusable).
func nonceAt(dBytes, hash, extra []byte, iteration uint32) (secp256k1.ModNScalar, secp256k1.ModNScalar) {
	kv := nonceRFC6979At(dBytes, hash, extra, iteration)
	k := &kv

	// R = kG; r = R.x mod n, with only X brought to affine form.
	var kG secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(k, &kG)
	zInv, ok := secp.InvertField(&kG.Z)
	if !ok {
		k.Zero()
		return secp256k1.ModNScalar{}, secp256k1.ModNScalar{}
	}
	var x secp256k1.FieldVal
	zInv.Square()
	x.Mul2(&kG.X, &zInv).Normalize()
	var xb [32]byte
	x.PutBytes(&xb)
	var r secp256k1.ModNScalar
	r.SetBytes(&xb)
	out := *k
	k.Zero()
	return out, r
}

// schnorrKey is a private key prepared for BIP 340 signing: the scalar
// negated if needed so that its public key has an even Y, and that key's
// 32-byte X coordinate.
type schnorrKey struct {
	d     secp256k1.ModNScalar
	xonly [32]byte
}

// newSchnorrKey prepares d for BIP 340 signing; pub is d*G.
func newSchnorrKey(d *secp256k1.ModNScalar, pub *secp256k1.PublicKey) *schnorrKey {
	k := &schnorrKey{d: *d}
	c := pub.SerializeCompressed()
	if c[0] == secp256k1.PubKeyFormatCompressedOdd {
		k.d.Negate()
	}
	copy(k.xonly[:], c[1:])
	return k
}

// signSchnorr makes a BIP 340 signature of the 32-byte hash with 32 zero
// bytes of auxiliary randomness, as Core does.
func (k *schnorrKey) signSchnorr(hash []byte) [64]byte {
	sig, nonce := k.signSchnorrNonce(hash)
	nonce.Zero()
	return sig
}

// signSchnorrNonce is signSchnorr that also returns the nonce as the
// signature uses it (negated when k'G has an odd Y).
func (k *schnorrKey) signSchnorrNonce(hash []byte) ([64]byte, secp256k1.ModNScalar) {
	// t = bytes(d) xor tagged_hash("BIP0340/aux", a), with a all zero.
	var d [32]byte
	k.d.PutBytes(&d)
	defer zero32(&d)
	var t [32]byte
	for i := range t {
		t[i] = d[i] ^ auxZeroHash[i]
	}

	// k' = tagged_hash("BIP0340/nonce", t || P || m) mod n. BIP 340's
	// failure case k' = 0 has negligible probability.
	rand := chainhash.TaggedHash(chainhash.TagBIP0340Nonce, t[:], k.xonly[:], hash)
	var nonce secp256k1.ModNScalar
	nonce.SetBytes((*[32]byte)(rand))
	zero32(&t)

	// R = k'G, with k negated when R.y is odd.
	var R secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&nonce, &R)
	if !secp.ToAffine(&R) {
		R.ToAffine()
	}
	if R.Y.IsOdd() {
		nonce.Negate()
	}
	var rx [32]byte
	R.X.PutBytes(&rx)

	// e = tagged_hash("BIP0340/challenge", R.x || P || m) mod n;
	// s = k + e*d mod n.
	eh := chainhash.TaggedHash(chainhash.TagBIP0340Challenge, rx[:], k.xonly[:], hash)
	var e secp256k1.ModNScalar
	e.SetBytes((*[32]byte)(eh))
	var s secp256k1.ModNScalar
	s.Mul2(&e, &k.d).Add(&nonce)

	var sig [64]byte
	copy(sig[:32], rx[:])
	s.PutBytesUnchecked(sig[32:])
	return sig, nonce
}

// proveSchnorr reports whether sig (64 bytes, or 65 with a hash-type byte)
// is a valid BIP 340 signature of hash by the key, given the nonce the
// signer used (after its parity adjustment), without curve arithmetic: s
// is below n and s = k + e*d (mod n), with e the challenge hash of sig's R,
// the key and the message. With R = kG, as the signer derived it, that is
// what BIP 340 verification establishes: sG - eP = kG = R.
func (k *schnorrKey) proveSchnorr(sig, hash []byte, nonce *secp256k1.ModNScalar) bool {
	if (len(sig) != 64 && len(sig) != 65) || len(hash) != 32 || nonce.IsZero() || k.d.IsZero() {
		return false
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(sig[32:64]); overflow {
		return false
	}
	eh := chainhash.TaggedHash(chainhash.TagBIP0340Challenge, sig[:32], k.xonly[:], hash)
	var e, want secp256k1.ModNScalar
	e.SetBytes((*[32]byte)(eh))
	want.Mul2(&e, &k.d).Add(nonce)
	return s.Equals(&want)
}

// auxZeroHash is tagged_hash("BIP0340/aux", 32 zero bytes).
var auxZeroHash = *chainhash.TaggedHash(chainhash.TagBIP0340Aux, make([]byte, 32))

func zero32(b *[32]byte) {
	for i := range b {
		b[i] = 0
	}
}
