package base58

import (
	"crypto/sha256"
	"strings"
)

// Alphabet is Bitcoin's Base58 alphabet.
const Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var rev = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(Alphabet); i++ {
		t[Alphabet[i]] = int8(i)
	}
	return t
}()

// isSpace is C's isspace in the "C" locale, which Core's decoder uses.
func isSpace(c byte) bool {
	return c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v'
}

// Decode decodes s with Core's DecodeBase58 rules: surrounding whitespace
// is ignored, a NUL byte anywhere fails, and the result may be at most
// maxLen bytes (the decoder stops as soon as it would be longer, so the
// work is bounded whatever the input). Public data only.
func Decode(s string, maxLen int) ([]byte, bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	zeroes := 0
	for i < len(s) && s[i] == '1' {
		zeroes++
		if zeroes > maxLen {
			return nil, false
		}
		i++
	}

	// Big-endian base-256 accumulator; a digit adds at most one byte and
	// the length is checked after each, so maxLen+1 bytes always suffice.
	b := make([]byte, maxLen+1)
	length := 0
	for ; i < len(s) && !isSpace(s[i]); i++ {
		carry := int(rev[s[i]])
		if carry < 0 {
			return nil, false
		}
		j := 0
		for k := len(b) - 1; (carry != 0 || j < length) && k >= 0; k, j = k-1, j+1 {
			carry += 58 * int(b[k])
			b[k] = byte(carry)
			carry >>= 8
		}
		length = j
		if length+zeroes > maxLen {
			return nil, false
		}
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return nil, false
	}
	out := make([]byte, zeroes+length)
	copy(out[zeroes:], b[len(b)-length:])
	return out, true
}

// Checksum is the Base58Check checksum of payload: the first four bytes
// of its double SHA-256.
func Checksum(payload []byte) [4]byte {
	h := sha256.Sum256(payload)
	h = sha256.Sum256(h[:])
	return [4]byte{h[0], h[1], h[2], h[3]}
}

// EncodeCheck encodes payload followed by its checksum. Public data only.
func EncodeCheck(payload []byte) string {
	sum := Checksum(payload)
	data := append(append(make([]byte, 0, len(payload)+4), payload...), sum[:]...)

	zeroes := 0
	for zeroes < len(data) && data[zeroes] == 0 {
		zeroes++
	}
	// Little-endian base-58 digits of the rest.
	digits := make([]byte, 0, len(data)*138/100+1)
	for _, c := range data[zeroes:] {
		carry := int(c)
		for k := range digits {
			carry += int(digits[k]) << 8
			digits[k] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	var sb strings.Builder
	sb.Grow(zeroes + len(digits))
	for range zeroes {
		sb.WriteByte('1')
	}
	for k := len(digits) - 1; k >= 0; k-- {
		sb.WriteByte(Alphabet[digits[k]])
	}
	return sb.String()
}
