package sign

import (
	"crypto/sha256"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// hmacSHA256 is HMAC-SHA256 with a 32-byte key over a || b || c (at most
// 129 bytes in all), computed in buffers on the stack: the library's RFC
// 6979 allocates a hasher and its state for every step.
func hmacSHA256(key *[32]byte, a, b, c []byte) [32]byte {
	var in [64 + 129]byte
	for i := range 32 {
		in[i] = key[i] ^ 0x36
	}
	for i := 32; i < 64; i++ {
		in[i] = 0x36
	}
	n := 64
	n += copy(in[n:], a)
	n += copy(in[n:], b)
	n += copy(in[n:], c)
	inner := sha256.Sum256(in[:n])
	var out [64 + 32]byte
	for i := range 32 {
		out[i] = key[i] ^ 0x5c
	}
	for i := 32; i < 64; i++ {
		out[i] = 0x5c
	}
	copy(out[64:], inner[:])
	sum := sha256.Sum256(out[:])
	clear(in[:])
	clear(out[:])
	return sum
}

var (
	byteZero = []byte{0x00}
	byteOne  = []byte{0x01}
)

// nonceRFC6979At returns RFC 6979's nonce number iteration (counting
// from 0) for the 32-byte key and hash and the optional 32 bytes of extra
// data, exactly as secp256k1.NonceRFC6979 does without version data (and
// as Core's nonce function does); other lengths go to the library.
func nonceRFC6979At(dBytes, hash, extra []byte, iteration uint32) secp256k1.ModNScalar {
	if len(dBytes) != 32 || len(hash) != 32 || (len(extra) != 0 && len(extra) != 32) {
		k := secp256k1.NonceRFC6979(dBytes, hash, extra, nil, iteration)
		out := *k
		k.Zero()
		return out
	}
	var keyBuf [96]byte
	n := copy(keyBuf[:], dBytes)
	n += copy(keyBuf[n:], hash)
	n += copy(keyBuf[n:], extra)
	key := keyBuf[:n]
	defer clear(keyBuf[:])

	// RFC 6979 section 3.2, steps b to h.
	var v, k [32]byte
	for i := range v {
		v[i] = 0x01
	}
	defer clear(k[:])
	k = hmacSHA256(&k, v[:], byteZero, key)
	v = hmacSHA256(&k, v[:], nil, nil)
	k = hmacSHA256(&k, v[:], byteOne, key)
	v = hmacSHA256(&k, v[:], nil, nil)
	var generated uint32
	for {
		v = hmacSHA256(&k, v[:], nil, nil)
		var secret secp256k1.ModNScalar
		overflow := secret.SetBytes(&v)
		if overflow == 0 && !secret.IsZero() {
			generated++
			if generated > iteration {
				clear(v[:])
				return secret
			}
		}
		k = hmacSHA256(&k, v[:], byteZero, nil)
		v = hmacSHA256(&k, v[:], nil, nil)
	}
}
