// Package base58 owns the module's Base58 and Base58Check encodings
// (Bitcoin's alphabet), without math/big, in two kinds.
//
// Decode and EncodeCheck serve public data (addresses): Decode follows
// Core's DecodeBase58 rules (surrounding whitespace ignored, a NUL byte
// fails, output bounded by a maximum length, work bounded whatever the
// input) and takes time that depends on the value.
//
// DecodeCheckSecret and EncodeCheckSecret serve strings that carry a
// private key (WIF, xprv): the same arithmetic done over the whole
// fixed-size buffer for every character, characters mapped to digits and
// back by comparisons rather than table lookups, so that the time taken
// and the memory touched depend only on the string's length (and the
// validity of its characters), not on the key. They accept exactly what
// btcd's base58.Decode followed by a checksum check accepts (no
// whitespace).
//
// # Errors
//
// None: a string that does not decode gives false.
//
// The package is a leaf: it imports the standard library only.
package base58
