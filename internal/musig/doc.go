// Package musig provides the MuSig2 pieces that musig() descriptor key
// expressions (BIP 390) need: BIP 327 key aggregation and the BIP 328
// synthetic extended public key of an aggregate key.
//
// # Model
//
// KeyAgg aggregates 33-byte compressed public keys, in the order given, into
// the plain (untweaked) BIP 327 aggregate key. BIP 390 requires the keys of a
// musig() expression to be sorted with KeySort after all their derivation
// and before aggregation; Sort does that, and callers aggregate Sort(keys).
// Repeated keys are allowed.
//
// SyntheticXPub turns an aggregate key into the BIP 328 extended public key:
// depth 0, parent fingerprint 0, child number 0, the aggregate key, and the
// fixed chain code SyntheticChainCode (SHA256 of "MuSig2MuSig2MuSig2"). A
// musig(...)/a/b/* expression derives its per-index keys from it with
// ordinary unhardened BIP 32 derivation; hardened steps are impossible, as
// there is no aggregate private key.
//
// Typical use by the descriptor engine, for one derivation index:
//
//	keys := [][]byte{...}                 // participants' derived keys
//	agg, err := musig.KeyAgg(musig.Sort(keys))
//	xpub := musig.SyntheticXPub(agg, net) // only for musig(...)/path
//	child, err := xpub.Derive(0)          // then the wildcard index
//
// Aggregation is delegated to btcd's btcec/v2/schnorr/musig2 package, which
// implements the published BIP 327 (33-byte key serialization in the hashes);
// the tests hold it to the BIP's key_agg vectors.
//
// # Errors
//
// KeyAgg returns an *Error whose Kind is ErrNoKeys, ErrInvalidPubKey (with
// Index naming the offending participant, as BIP 327's invalid_contribution
// does) or ErrInfinity, for errors.Is.
//
// # Concurrency
//
// All functions are safe for concurrent use.
package musig
