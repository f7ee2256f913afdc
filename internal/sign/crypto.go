package sign

import (
	"crypto/subtle"
	"encoding/binary"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/descwallet/descwallet/internal/secp"
)

// Every computation in this file that involves a private key, a nonce or a
// point derived from one uses the secp256k1 library's constant-time
// arithmetic (ModNScalar, FieldVal, FieldVal.Inverse through
// JacobianPoint.ToAffine), secp.ScalarBaseMultConst for k·G and
// secp.InvertScalar; never math/big, never the library's variable-time
// ScalarBaseMultNonConst, and never
// the variable-time half of package secp (internal/archtest checks this
// over the call graph).

// faults are test hooks that corrupt a signature while it is made; nil in
// use. noncePoint alters each nonce point R = k·G right after it is
// computed; sig alters the finished signature (DER for ECDSA, 64 bytes for
// BIP 340) before it is verified.
type faults struct {
	noncePoint func(*secp256k1.JacobianPoint)
	sig        func([]byte)
}

func (f *faults) point(p *secp256k1.JacobianPoint) {
	if f != nil && f.noncePoint != nil {
		f.noncePoint(p)
	}
}

func (f *faults) signature(b []byte) {
	if f != nil && f.sig != nil {
		f.sig(b)
	}
}

// SignECDSA signs a 32-byte hash with priv the way Bitcoin Core does,
// verifies the signature against pub (verifyECDSA), and
// returns its DER encoding (without a hash-type byte). When the
// verification fails (pub is not priv's public key, or the computation
// went wrong) it returns false and no signature, as Core's CKey::Sign does.
//
// The nonce is RFC 6979's (HMAC-SHA256) and S is made low (BIP 62). Core
// grinds for a low R: while R's top bit is set, so that its DER integer
// would need a leading zero byte, it signs again with 32 bytes of extra
// nonce data holding a counter 1, 2, ... as a little-endian uint32 in the
// first four bytes. The result is byte-identical to Core's and at most 70
// bytes long.
func SignECDSA(priv *secp256k1.PrivateKey, pub *secp256k1.PublicKey, hash []byte) ([]byte, bool) {
	return signECDSAVerified(&priv.Key, pub, hash, nil)
}

// signECDSAVerified is SignECDSA with the test hooks.
func signECDSAVerified(d *secp256k1.ModNScalar, pub *secp256k1.PublicKey, hash []byte, f *faults) ([]byte, bool) {
	der := signECDSA(d, hash, f)
	f.signature(der)
	if !verifyECDSA(der, hash, pub) {
		return nil, false
	}
	return der, true
}

// verifyECDSA reports whether der is a valid signature of hash by pub,
// by secp.VerifyECDSA: the library verifier's rules (tested and fuzzed
// against it), in a fraction of its time. It is variable time, and all
// its inputs are public: the finished signature, the signature hash and
// the public key (internal/archtest checks the parameter types).
func verifyECDSA(der, hash []byte, pub *secp256k1.PublicKey) bool {
	sig, err := ecdsa.ParseDERSignature(der)
	if err != nil {
		return false
	}
	r, s := sig.R(), sig.S()
	return secp.VerifyECDSA(&r, &s, hash, pub)
}

// verifyECDSABatch reports, for each i, whether ders[i] is a valid
// signature of hashes[i] by pubs[i], as verifyECDSA does, each on its own
// but sharing the verifications' inversions (secp.VerifyECDSABatch). Like
// verifyECDSA it is variable time and takes public inputs only.
func verifyECDSABatch(ders, hashes [][]byte, pubs []*secp256k1.PublicKey) []bool {
	checks := make([]secp.ECDSACheck, 0, len(ders))
	idx := make([]int, 0, len(ders))
	out := make([]bool, len(ders))
	for i, der := range ders {
		sig, err := ecdsa.ParseDERSignature(der)
		if err != nil {
			continue
		}
		checks = append(checks, secp.ECDSACheck{R: sig.R(), S: sig.S(), Hash: hashes[i], Pub: pubs[i]})
		idx = append(idx, i)
	}
	ok := make([]bool, len(checks))
	secp.VerifyECDSABatch(checks, ok)
	for j, i := range idx {
		out[i] = ok[j]
	}
	return out
}

// signECDSA makes Core's ECDSA signature (unverified; see SignECDSA).
func signECDSA(d *secp256k1.ModNScalar, hash []byte, f *faults) []byte {
	var dBytes [32]byte
	d.PutBytes(&dBytes)
	defer zero32(&dBytes)

	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	var extra [32]byte
	k, r := nonceRFC6979(dBytes[:], hash, nil, f)
	for counter := uint32(1); !lowR(&r); counter++ {
		k.Zero()
		binary.LittleEndian.PutUint32(extra[:4], counter)
		k, r = nonceRFC6979(dBytes[:], hash, extra[:], f)
	}

	// s = k^-1 (e + d*r) mod n, negated when above half the order.
	kinv := secp.InvertScalar(&k)
	k.Zero()
	var s secp256k1.ModNScalar
	s.Mul2(d, &r).Add(&e).Mul(&kinv)
	kinv.Zero()
	if s.IsZero() {
		// Probability 2^-256: RFC 6979 would move on to its next nonce
		// for this extra data; the exhaustive path does exactly that.
		return signExhaustive(d, dBytes[:], hash, f)
	}
	if s.IsOverHalfOrder() {
		s.Negate()
	}
	return ecdsa.NewSignature(&r, &s).Serialize()
}

// ecdsaJob is one signature of a batch (signECDSABatch): the private key,
// its public key and the 32-byte hash; der receives the verified DER
// signature, or nil when the verification refused it.
type ecdsaJob struct {
	d    *secp256k1.ModNScalar
	pub  *secp256k1.PublicKey
	hash []byte
	der  []byte
}

// signECDSABatch makes each job's signature exactly as signECDSAVerified
// does (the same bytes: RFC 6979, Core's low-R grinding, low S), verifies
// it against the job's public key, and leaves it in der. The batch shares
// its inversions, all constant time: the nonce points of each grinding
// round go to affine form together (secp.ToAffineBatch, one field
// inversion), and the final nonces are inverted together (Montgomery's
// trick around one secp.InvertScalar). A job whose nonce is unusable (r
// = 0, the point at infinity, s = 0; probability 2^-256 each) is signed
// alone by signECDSAVerified, which handles those cases as Core does.
func signECDSABatch(jobs []ecdsaJob, f *faults) {
	n := len(jobs)
	type state struct {
		dBytes  [32]byte
		k, r    secp256k1.ModNScalar
		counter uint32
		alone   bool
	}
	st := make([]state, n)
	defer func() {
		for i := range st {
			zero32(&st[i].dBytes)
			st[i].k.Zero()
		}
	}()
	pending := make([]int, n)
	for i := range jobs {
		jobs[i].d.PutBytes(&st[i].dBytes)
		pending[i] = i
	}

	// Grinding rounds: each pending job's next nonce (counter 0 is no
	// extra data) and its point, all brought to affine form at once; a
	// job is done when its r is low.
	pts := make([]secp256k1.JacobianPoint, n)
	defer clear(pts) // nonce points, also when left unconverted
	scratch := make([]secp256k1.FieldVal, n)
	var extra [32]byte
	for len(pending) > 0 {
		for j, i := range pending {
			var ex []byte
			if st[i].counter > 0 {
				binary.LittleEndian.PutUint32(extra[:4], st[i].counter)
				ex = extra[:]
			}
			st[i].k = nonceRFC6979At(st[i].dBytes[:], jobs[i].hash, ex, 0)
			secp.ScalarBaseMultConst(&st[i].k, &pts[j])
			f.point(&pts[j])
		}
		batch := pts[:len(pending)]
		affine := secp.ToAffineBatch(batch, scratch)
		next := pending[:0]
		for j, i := range pending {
			if !affine {
				st[i].alone = true
				st[i].k.Zero()
				continue
			}
			var xb [32]byte
			batch[j].X.PutBytes(&xb)
			var r secp256k1.ModNScalar
			r.SetBytes(&xb)
			zero32(&xb)
			batch[j].X.Zero()
			batch[j].Y.Zero()
			switch {
			case r.IsZero():
				st[i].alone = true
				st[i].k.Zero()
			case lowR(&r):
				st[i].r = r
			default:
				st[i].k.Zero()
				st[i].counter++
				next = append(next, i)
			}
		}
		pending = next
	}

	// The nonces' inverses: prefix products, one inversion, and each
	// inverse from its neighbours' products.
	var done []int
	for i := range st {
		if !st[i].alone {
			done = append(done, i)
		}
	}
	prefix := make([]secp256k1.ModNScalar, len(done))
	defer func() {
		for i := range prefix {
			prefix[i].Zero()
		}
	}()
	for j, i := range done {
		prefix[j] = st[i].k
		if j > 0 {
			prefix[j].Mul(&prefix[j-1])
		}
	}
	var inv secp256k1.ModNScalar
	if len(done) > 0 {
		inv = secp.InvertScalar(&prefix[len(done)-1])
	}
	defer inv.Zero()
	var made []int
	var ders, hashes [][]byte
	var pubs []*secp256k1.PublicKey
	for j := len(done) - 1; j >= 0; j-- {
		i := done[j]
		var kinv secp256k1.ModNScalar
		if j > 0 {
			kinv.Mul2(&inv, &prefix[j-1])
			inv.Mul(&st[i].k)
		} else {
			kinv = inv
		}

		// s = k^-1 (e + d*r) mod n, negated when above half the order.
		var e, s secp256k1.ModNScalar
		e.SetByteSlice(jobs[i].hash)
		s.Mul2(jobs[i].d, &st[i].r).Add(&e).Mul(&kinv)
		kinv.Zero()
		if s.IsZero() {
			st[i].alone = true
			continue
		}
		if s.IsOverHalfOrder() {
			s.Negate()
		}
		der := ecdsa.NewSignature(&st[i].r, &s).Serialize()
		f.signature(der)
		made = append(made, i)
		ders = append(ders, der)
		hashes = append(hashes, jobs[i].hash)
		pubs = append(pubs, jobs[i].pub)
	}

	// Each signature verified with its public key.
	for j, ok := range verifyECDSABatch(ders, hashes, pubs) {
		if ok {
			jobs[made[j]].der = ders[j]
		}
	}

	for i := range jobs {
		if st[i].alone {
			jobs[i].der, _ = signECDSAVerified(jobs[i].d, jobs[i].pub, jobs[i].hash, f)
		}
	}
}

// signExhaustive is Core's signing loop written out in full: for each
// extra data (none, then the counter 1, 2, ...), the first RFC 6979 nonce
// giving non-zero r and s, kept when R is low. signECDSA skips computing s
// for nonces whose R is high; this is its fallback for the case that s is
// zero.
func signExhaustive(d *secp256k1.ModNScalar, dBytes, hash []byte, f *faults) []byte {
	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	var extra []byte
	for counter := uint32(0); ; counter++ {
		if counter > 0 {
			extra = make([]byte, 32)
			binary.LittleEndian.PutUint32(extra[:4], counter)
		}
		for iteration := uint32(0); ; iteration++ {
			k, r := nonceAt(dBytes, hash, extra, iteration, f)
			if r.IsZero() {
				k.Zero()
				continue
			}
			kinv := secp.InvertScalar(&k)
			k.Zero()
			var s secp256k1.ModNScalar
			s.Mul2(d, &r).Add(&e).Mul(&kinv)
			kinv.Zero()
			if s.IsZero() {
				continue
			}
			if !lowR(&r) {
				break
			}
			if s.IsOverHalfOrder() {
				s.Negate()
			}
			return ecdsa.NewSignature(&r, &s).Serialize()
		}
	}
}

// signCompact makes Core's compact recoverable signature of hash
// (CKey::SignCompact, unverified; SignMessage checks it): the first RFC
// 6979 nonce (no extra data) giving non-zero r and s, low S, and a header
// byte 27 + recovery id (+ 4 for a compressed key). The recovery id holds
// R.y's parity and whether R.x overflowed n, flipped with s when s is
// negated; it is public, being part of the signature.
func signCompact(d *secp256k1.ModNScalar, hash []byte, compressed bool, f *faults) [65]byte {
	var dBytes [32]byte
	d.PutBytes(&dBytes)
	defer zero32(&dBytes)
	var e secp256k1.ModNScalar
	e.SetByteSlice(hash)
	for iteration := uint32(0); ; iteration++ {
		k := nonceRFC6979At(dBytes[:], hash, nil, iteration)
		var R secp256k1.JacobianPoint
		secp.ScalarBaseMultConst(&k, &R)
		f.point(&R)
		R.ToAffine()
		var xb [32]byte
		R.X.PutBytes(&xb)
		var r secp256k1.ModNScalar
		overflow := r.SetBytes(&xb)
		recID := byte(overflow<<1) | byte(R.Y.IsOddBit())
		R.Y.Zero()
		if r.IsZero() {
			k.Zero()
			continue
		}
		kinv := secp.InvertScalar(&k)
		k.Zero()
		var s secp256k1.ModNScalar
		s.Mul2(d, &r).Add(&e).Mul(&kinv)
		kinv.Zero()
		if s.IsZero() {
			continue
		}
		if s.IsOverHalfOrder() {
			s.Negate()
			recID ^= 1
		}
		var out [65]byte
		out[0] = 27 + recID
		if compressed {
			out[0] += 4
		}
		r.PutBytesUnchecked(out[1:33])
		s.PutBytesUnchecked(out[33:65])
		return out
	}
}

// lowR reports whether r, as a 32-byte big-endian number, has its top bit
// clear (Core's SigHasLowR). r is public: it is part of the signature.
func lowR(r *secp256k1.ModNScalar) bool {
	var b [32]byte
	r.PutBytes(&b)
	return b[0] < 0x80
}

// nonceRFC6979 returns the first RFC 6979 nonce k for the key, the hash and
// the optional 32 bytes of extra data whose r = (kG).x mod n is not zero,
// and that r.
func nonceRFC6979(dBytes, hash, extra []byte, f *faults) (secp256k1.ModNScalar, secp256k1.ModNScalar) {
	for iteration := uint32(0); ; iteration++ {
		k, r := nonceAt(dBytes, hash, extra, iteration, f)
		if !r.IsZero() {
			return k, r
		}
		k.Zero()
	}
}

// nonceAt returns the RFC 6979 nonce number iteration and its r (zero when
// the nonce is unusable).
func nonceAt(dBytes, hash, extra []byte, iteration uint32, f *faults) (secp256k1.ModNScalar, secp256k1.ModNScalar) {
	k := nonceRFC6979At(dBytes, hash, extra, iteration)

	// R = kG; r = R.x mod n. Only X is brought to affine form, with the
	// library's constant-time inversion: X / Z². The point at infinity
	// (Z = 0) inverts to zero and so gives r = 0, unusable.
	var R secp256k1.JacobianPoint
	secp.ScalarBaseMultConst(&k, &R)
	f.point(&R)
	var zInv, x secp256k1.FieldVal
	zInv.Set(&R.Z).Inverse().Square()
	x.Mul2(&R.X, &zInv).Normalize()
	var xb [32]byte
	x.PutBytes(&xb)
	var r secp256k1.ModNScalar
	r.SetBytes(&xb)
	zInv.Zero()
	x.Zero()
	zero32(&xb)
	R.X.Zero()
	R.Y.Zero()
	R.Z.Zero()
	return k, r
}

// schnorrKey is a private key prepared for BIP 340 signing: the scalar
// negated if needed so that its public key has an even Y, that public key
// (for verifying each signature) and its 32-byte X coordinate.
type schnorrKey struct {
	d     secp256k1.ModNScalar
	pub   *secp256k1.PublicKey
	xonly [32]byte
}

// newSchnorrKey prepares d for BIP 340 signing; pub is d*G.
func newSchnorrKey(d *secp256k1.ModNScalar, pub *secp256k1.PublicKey) *schnorrKey {
	k := &schnorrKey{d: *d, pub: pub}
	c := pub.SerializeCompressed()
	if c[0] == secp256k1.PubKeyFormatCompressedOdd {
		k.d.Negate()
	}
	copy(k.xonly[:], c[1:])
	return k
}

// signSchnorr makes a BIP 340 signature of the 32-byte hash with 32 zero
// bytes of auxiliary randomness, as Core does, and verifies it against the
// key's public key (verifySchnorr, the library's BIP 340 rules), as BIP 340
// recommends and Core does. It returns false and no signature when the
// verification fails.
func (k *schnorrKey) signSchnorr(hash []byte, f *faults) ([64]byte, bool) {
	sig := k.signSchnorrRaw(hash, f)
	f.signature(sig[:])
	if !verifySchnorr(sig[:], hash, k.pub) {
		return [64]byte{}, false
	}
	return sig, true
}

// verifySchnorr reports whether sig (64 bytes) is a valid BIP 340
// signature of hash by the x-only form of pub, by secp.VerifySchnorr: the
// library verifier's rules (tested and fuzzed against it), in a fraction
// of its time. It is variable time, and all its inputs are public: the
// finished signature, the signature hash and the public key
// (internal/archtest checks the parameter types).
func verifySchnorr(sig, hash []byte, pub *secp256k1.PublicKey) bool {
	return secp.VerifySchnorr(sig, hash, pub)
}

// verifySchnorrLibrary is the library's BIP 340 verification, which
// verifySchnorr is tested against.
func verifySchnorrLibrary(sig, hash []byte, pub *secp256k1.PublicKey) bool {
	parsed, err := schnorr.ParseSignature(sig)
	return err == nil && parsed.Verify(hash, pub)
}

// signSchnorrRaw makes the BIP 340 signature (unverified; see
// signSchnorr).
func (k *schnorrKey) signSchnorrRaw(hash []byte, f *faults) [64]byte {
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
	zero32((*[32]byte)(rand))
	zero32(&t)
	defer nonce.Zero()

	// R = k'G (affine through the library's constant-time inversion),
	// with k negated when R.y is odd.
	var R secp256k1.JacobianPoint
	secp.ScalarBaseMultConst(&nonce, &R)
	f.point(&R)
	R.ToAffine()
	odd := R.Y.IsOddBit()
	var neg secp256k1.ModNScalar
	neg.NegateVal(&nonce)
	condSet(&nonce, &neg, odd)
	neg.Zero()
	var rx [32]byte
	R.X.PutBytes(&rx)
	R.Y.Zero()

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
	return sig
}

// condSet sets dst to src when cond is 1 and leaves it when cond is 0,
// in constant time.
func condSet(dst, src *secp256k1.ModNScalar, cond uint32) {
	var a, b [32]byte
	dst.PutBytes(&a)
	src.PutBytes(&b)
	subtle.ConstantTimeCopy(int(cond), a[:], b[:])
	dst.SetBytes(&a)
	zero32(&a)
	zero32(&b)
}

// auxZeroHash is tagged_hash("BIP0340/aux", 32 zero bytes).
var auxZeroHash = *chainhash.TaggedHash(chainhash.TagBIP0340Aux, make([]byte, 32))

func zero32(b *[32]byte) {
	for i := range b {
		b[i] = 0
	}
}
