// Package descriptor implements output script descriptors (BIP 380 to 390)
// as Bitcoin Core reads and prints them: parsing with Core's exact error
// messages, the BIP 380 checksum, the public, private and normalized string
// forms, expansion of a descriptor at an index into scriptPubKeys with all
// the data needed to solve and sign them, a derivation cache, and inference
// of a descriptor from a script and known keys.
//
// The package has no knowledge of wallets, storage or networking and does
// no I/O.
//
// # Model
//
// Parse reads a string in two steps, as Core does: the checksum part is
// checked and removed, then a recursive descent over the text builds a tree
// of script expressions (Kind: pk, pkh, wpkh, combo, multi, sortedmulti,
// multi_a, sortedmulti_a, sh, wsh, tr, rawtr, addr, raw, and miniscript
// fragments inside wsh() and tr() leaves). The descent carries a context
// (top level, inside sh(), wsh(), wpkh(), tr(), musig()) that decides which
// functions and key forms are allowed, and numbers the key expressions in
// the order they appear; that number is the position by which a Cache
// stores derived keys.
//
// A key expression is a hex public key (x-only inside tr()), a WIF private
// key, an extended key (xpub/xprv, or tpub/tprv on test networks) with a
// derivation path whose hardened steps are written ' or h, an optional
// final /* or /*' (/*h), and at most one multipath step <a;b;...> (BIP 389),
// optionally preceded by an origin [fingerprint/path]; or musig(KEY,...)
// (BIP 390) with optional unhardened derivation after it.
//
// Private keys found while parsing are kept in a KeyMap apart from the tree,
// so String never prints a secret; PrivateString does, when asked. Each key
// expression remembers whether the input spelled hardened steps with ' or h
// and prints them back the same way, as Core does; NormalizedString always
// uses h.
//
// A multipath descriptor stands for several descriptors, one per
// alternative of its <a;b;...> steps; Multipath returns them. Expansion is
// done on those branches.
//
// Expand(index, cache) derives every key at the index, builds the scripts
// bottom-up and returns one Output per scriptPubKey (four for combo()),
// with redeem and witness scripts, taproot spend data (internal key, output
// key, leaves with control blocks) and every public key with its origin and,
// when known, its private key. The parent of each wildcard step is derived
// once per descriptor and kept with its point decompressed, so a further
// index costs one HMAC-SHA512, one scalar base multiplication and one point
// addition per key; ExpandRange spreads a range over GOMAXPROCS goroutines.
// Hardened steps need the private key, or a Cache filled while it was
// known.
//
// Infer rebuilds the descriptor of a script from a Provider of known keys,
// origins, scripts and taproot spend data, as Core's InferDescriptor; its
// String is what getaddressinfo reports as desc.
//
// # Errors
//
// Every error is an *Error whose Description is Core's message for the same
// failure, word for word (RPC clients compare it), and whose Kind is one of
// the ErrorKind constants, usable with errors.Is. Parse errors carry the
// prefixes Core adds ("pkh(): ", "Multi: ", "tr(): musig(): ", ...).
// Expansion without a needed private key fails with ErrHardenedFromPublic
// ("Cannot derive script without private keys").
//
// # Concurrency
//
// A Descriptor is immutable after Parse and safe for concurrent use; so is a
// Cache.
package descriptor
