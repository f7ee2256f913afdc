package sign

import (
	"encoding/binary"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
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
	kinv := new(secp256k1.ModNScalar).InverseValNonConst(&k)
	k.Zero()
	s := new(secp256k1.ModNScalar).Mul2(&priv.Key, &r).Add(&e).Mul(kinv)
	if s.IsZero() {
		// Probability 2^-256: RFC 6979 would move on to its next nonce
		// for this extra data; the exhaustive path does exactly that.
		return signExhaustive(&priv.Key, d[:], hash)
	}
	if s.IsOverHalfOrder() {
		s.Negate()
	}
	return ecdsa.NewSignature(&r, s).Serialize()
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
	k := secp256k1.NonceRFC6979(dBytes, hash, extra, nil, iteration)

	// R = kG; r = R.x mod n, with only X brought to affine form.
	var kG secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(k, &kG)
	var zInv, x secp256k1.FieldVal
	zInv.Set(&kG.Z).Inverse()
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
	// t = bytes(d) xor tagged_hash("BIP0340/aux", a), with a all zero.
	var d [32]byte
	k.d.PutBytes(&d)
	defer zero32(&d)
	var t [32]byte
	for i := range t {
		t[i] = d[i] ^ auxZeroHash[i]
	}

	// k' = tagged_hash("BIP0340/nonce", t || P || m) mod n. BIP 340's
	// failure case k' = 0 has negligible probability; the loop below only
	// guards the arithmetic.
	rand := chainhash.TaggedHash(chainhash.TagBIP0340Nonce, t[:], k.xonly[:], hash)
	var nonce secp256k1.ModNScalar
	nonce.SetBytes((*[32]byte)(rand))
	zero32(&t)

	// R = k'G, with k negated when R.y is odd.
	var R secp256k1.JacobianPoint
	secp256k1.ScalarBaseMultNonConst(&nonce, &R)
	R.ToAffine()
	R.X.Normalize()
	R.Y.Normalize()
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
	s := new(secp256k1.ModNScalar).Mul2(&e, &k.d).Add(&nonce)
	nonce.Zero()

	var sig [64]byte
	copy(sig[:32], rx[:])
	s.PutBytesUnchecked(sig[32:])
	return sig
}

// auxZeroHash is tagged_hash("BIP0340/aux", 32 zero bytes).
var auxZeroHash = *chainhash.TaggedHash(chainhash.TagBIP0340Aux, make([]byte, 32))

func zero32(b *[32]byte) {
	for i := range b {
		b[i] = 0
	}
}
