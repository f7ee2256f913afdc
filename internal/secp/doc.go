// Package secp holds the secp256k1 arithmetic the signer and the descriptor
// engine share beyond what the secp256k1 library offers, in two halves kept
// apart by what they may touch.
//
// # Model
//
// Constant time (consttime.go, basemult.go), for private keys, nonces and
// the points derived from them: InvertScalar (s⁻¹ mod n by exponentiation,
// where the library only has a math/big inversion; in Montgomery form over
// math/bits, the library's ModNScalar multiplication being too slow for 330
// steps), ToAffineBatch (many points to affine form with one of the
// library's constant-time field inversions) and ScalarBaseMultConst (k·G
// by a signed fixed-window comb over a precomputed table, every entry of a
// window read and selected by masks, complete projective additions). Of the
// library (dcrd secp256k1 v4.4.1), ModNScalar and FieldVal arithmetic and
// FieldVal.Inverse (so JacobianPoint.ToAffine) are constant time;
// ModNScalar.InverseValNonConst is math/big; and it has no constant-time
// scalar multiplication: ScalarBaseMultNonConst, which its own signers use,
// looks up a table by each byte of the scalar, and its additions branch,
// so it serves public scalars only.
//
// Variable time (field.go, fe.go, verify.go, affine.go), for public data only: the
// library inverts a field element by exponentiation (about 270 field
// operations); InvertField computes the inverse with math/big's extended
// GCD instead, about a tenth of the time, and checks it with one
// multiplication (z·z⁻¹ = 1), falling back to the library should the check
// ever fail. ToAffine converts a Jacobian point with it. VerifyECDSA
// verifies an ECDSA signature with the library verifier's rules in well
// under half its time: one Strauss chain for u1·G + u2·P over the
// endomorphism's split scalars in width-w NAF, a precomputed table of G's
// odd multiples, and field arithmetic on four 64-bit limbs (fe.go) where
// the library uses ten 26-bit ones. VerifySchnorr verifies a BIP 340
// signature with the library's rules through the same chain (s·G - e·P)
// and one inversion for R's affine form. BatchAdder adds batches of
// affine points (AffinePoint) on the four-limb field with one inversion
// per batch, an exponentiation on that field (slower than math/big's GCD,
// but it allocates nothing, and a batch shares it): the descriptor fast
// path's child points.
// All of these take time that depends on
// their input: they serve public derivation (xpub children, the
// precomputed table of the descriptor fast path) and the signer's check of
// its own finished signatures, and must never see a value derived from a
// secret. A test of internal/archtest walks the call graph from the secret
// functions of the module and fails if it reaches them or math/big other
// than through a function declared to take public inputs only.
//
// The package is a leaf: it imports the secp256k1 library and the standard
// library only, nothing of this module.
//
// # Errors
//
// None: InvertField, ToAffine and ToAffineBatch report a point at infinity
// (or a zero input) with a false result; InvertScalar maps zero to zero,
// ScalarBaseMultConst to the point at infinity;
// VerifyECDSA and VerifySchnorr answer false for any invalid signature.
package secp
