package script

import (
	"crypto/sha256"

	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // HASH160 is RIPEMD-160 by consensus.
)

// Hash160 returns RIPEMD160(SHA256(b)), the hash of P2PKH, P2SH and P2WPKH
// outputs and Core's CKeyID.
func Hash160(b []byte) [20]byte {
	s := sha256.Sum256(b)
	return RIPEMD160(s[:])
}

// RIPEMD160 returns RIPEMD160(b). Applied to a P2WSH program (the SHA256 of
// a witness script) it gives the script's HASH160.
func RIPEMD160(b []byte) [20]byte {
	r := ripemd160.New()
	r.Write(b)
	var out [20]byte
	r.Sum(out[:0])
	return out
}
