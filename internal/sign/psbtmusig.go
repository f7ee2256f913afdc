package sign

import (
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/psbt"
)

// This file aggregates the MuSig2 partial signatures a PSBT input holds
// into the BIP 340 signature of its aggregate key (BIP 327's NonceAgg,
// session values and PartialSigAgg), as Core's SignMuSig2 does through
// CreateMuSig2AggregateSig when every participant's public nonce and
// partial signature are present. Only public data is involved. Making
// nonces and partial signatures (which need secret nonces) is not done,
// nor aggregation for a key derived from the aggregate by BIP 32 steps.

// tagMuSigNonceCoef is BIP 327's tag of the nonce coefficient hash.
var tagMuSigNonceCoef = []byte("MuSig/noncecoef")

// signMuSig2 is Core's SignMuSig2 for the key path (leaf nil) or a leaf:
// for each aggregate key of the input whose x-only form is scriptKey, the
// participants' origins are recorded and their partial signatures
// aggregated, with the taproot tweak by merkleRoot when tweak is set.
func (d *psbtInput) signMuSig2(scriptKey [32]byte, tweak bool, merkleRoot [32]byte, leafHash *[32]byte) []byte {
	for agg, parts := range d.in.MuSig2Participants {
		if len(parts) == 0 {
			continue
		}
		for _, p := range parts {
			if e, ok := d.pc.ps.keyOrigin(script.Hash160(p[:])); ok {
				x := [32]byte(p[1:])
				o, have := d.tapMisc[x]
				if !have {
					o = psbt.TapKeyOrigin{Origin: e.origin}
				}
				if leafHash != nil {
					o.LeafHashes = addLeafHash(o.LeafHashes, *leafHash)
				}
				d.tapMisc[x] = o
			}
		}
		if [32]byte(agg[1:]) != scriptKey {
			continue // derived by BIP 32 steps: not aggregated here
		}
		var tweaks [][32]byte
		plain := agg
		if tweak {
			var root []byte
			if merkleRoot != ([32]byte{}) {
				root = merkleRoot[:]
			}
			t := chainhash.TaggedHash(chainhash.TagTapTweak, scriptKey[:], root)
			tweaks = append(tweaks, [32]byte(*t))
			q, ok := tweakedPoint(agg, tweaks)
			if !ok {
				continue
			}
			plain = q
		}
		if sig, ok := d.aggregateMuSig2(agg, plain, tweaks, parts, leafHash); ok {
			return sig
		}
	}
	return nil
}

func addLeafHash(hs [][32]byte, h [32]byte) [][32]byte {
	for _, x := range hs {
		if x == h {
			return hs
		}
	}
	out := append(append([][32]byte(nil), hs...), h)
	sortHashes(out)
	return out
}

// tweakedPoint applies x-only tweaks to an aggregate key and returns the
// result compressed.
func tweakedPoint(agg [33]byte, tweaks [][32]byte) ([33]byte, bool) {
	q, _, _, ok := applyTweaks(agg, tweaks)
	if !ok {
		return [33]byte{}, false
	}
	q.ToAffine()
	return [33]byte(secp256k1.NewPublicKey(&q.X, &q.Y).SerializeCompressed()), true
}

// applyTweaks is BIP 327's ApplyTweak over x-only tweaks: Q, gacc, tacc.
func applyTweaks(agg [33]byte, tweaks [][32]byte) (secp256k1.JacobianPoint, secp256k1.ModNScalar, secp256k1.ModNScalar, bool) {
	var q secp256k1.JacobianPoint
	var gacc, tacc secp256k1.ModNScalar
	gacc.SetInt(1)
	pk, err := secp256k1.ParsePubKey(agg[:])
	if err != nil {
		return q, gacc, tacc, false
	}
	pk.AsJacobian(&q)
	for _, t := range tweaks {
		var ts secp256k1.ModNScalar
		if ts.SetBytes(&t) != 0 {
			return q, gacc, tacc, false
		}
		q.ToAffine()
		if q.Y.IsOdd() {
			q.Y.Negate(1).Normalize()
			gacc.Negate()
			tacc.Negate()
		}
		var tg secp256k1.JacobianPoint
		secp256k1.ScalarBaseMultNonConst(&ts, &tg)
		secp256k1.AddNonConst(&q, &tg, &q)
		if isInfinity(&q) {
			return q, gacc, tacc, false
		}
		tacc.Add(&ts)
	}
	return q, gacc, tacc, true
}

// aggregateMuSig2 is Core's CreateMuSig2AggregateSig: the nonces and
// partial signatures stored under the signing key (plain) and leaf, one per
// participant, aggregated over this input's BIP 341 or 342 message.
func (d *psbtInput) aggregateMuSig2(agg, plain [33]byte, tweaks [][32]byte, parts [][33]byte, leafHash *[32]byte) ([]byte, bool) {
	id := psbt.MuSig2Key{Aggregate: plain}
	if leafHash != nil {
		id.LeafHash = *leafHash
	}
	nonces, psigs := d.in.MuSig2PubNonces[id], d.in.MuSig2PartialSigs[id]
	if len(nonces) != len(parts) || len(psigs) != len(parts) {
		return nil, false
	}
	if leafHash != nil || !d.ctx.allKnown {
		// Script-path aggregation would need the leaf's message; only the
		// key path is aggregated.
		return nil, false
	}
	msg, err := d.taprootSigHash(d.ctx.hashType)
	if err != nil {
		return nil, false
	}
	q, _, tacc, ok := applyTweaks(agg, tweaks)
	if !ok {
		return nil, false
	}
	q.ToAffine()
	qx := q.X.Bytes()

	// NonceAgg.
	var r1, r2 secp256k1.JacobianPoint
	for _, n := range nonces {
		if len(n) != 66 {
			return nil, false
		}
		for j, sum := range []*secp256k1.JacobianPoint{&r1, &r2} {
			pk, err := secp256k1.ParsePubKey(n[33*j : 33*j+33])
			if err != nil {
				return nil, false
			}
			var p secp256k1.JacobianPoint
			pk.AsJacobian(&p)
			secp256k1.AddNonConst(sum, &p, sum)
		}
	}
	aggNonce := append(cbytesExt(&r1), cbytesExt(&r2)...)

	// Session values: b, R, e.
	var b, e secp256k1.ModNScalar
	b.SetByteSlice(chainhash.TaggedHash(tagMuSigNonceCoef, aggNonce, qx[:], msg)[:])
	var r secp256k1.JacobianPoint
	secp256k1.ScalarMultNonConst(&b, &r2, &r)
	secp256k1.AddNonConst(&r1, &r, &r)
	if isInfinity(&r) {
		secp256k1.ScalarBaseMultNonConst(new(secp256k1.ModNScalar).SetInt(1), &r)
	}
	r.ToAffine()
	rx := r.X.Bytes()
	e.SetByteSlice(chainhash.TaggedHash(chainhash.TagBIP0340Challenge, rx[:], qx[:], msg)[:])

	// PartialSigAgg: s = sum s_i + e*g*tacc.
	var s secp256k1.ModNScalar
	for _, ps := range psigs {
		var si secp256k1.ModNScalar
		if si.SetBytes(&ps) != 0 {
			return nil, false
		}
		s.Add(&si)
	}
	if q.Y.IsOdd() {
		tacc.Negate()
	}
	et := new(secp256k1.ModNScalar).Mul2(&e, &tacc)
	s.Add(et)
	sb := s.Bytes()
	sig := append(rx[:], sb[:]...)
	if d.ctx.hashType != SigHashDefault {
		sig = append(sig, byte(d.ctx.hashType))
	}
	return sig, true
}

// cbytesExt is BIP 327's cbytes_ext: 33 zero bytes for infinity.
func cbytesExt(p *secp256k1.JacobianPoint) []byte {
	if isInfinity(p) {
		return make([]byte, 33)
	}
	a := *p
	a.ToAffine()
	return secp256k1.NewPublicKey(&a.X, &a.Y).SerializeCompressed()
}

// isInfinity reports whether p is the point at infinity (the library's
// convention: all-zero coordinates or a zero Z).
func isInfinity(p *secp256k1.JacobianPoint) bool {
	return (p.X.IsZero() && p.Y.IsZero()) || p.Z.IsZero()
}
