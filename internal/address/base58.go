package address

import "github.com/descwallet/descwallet/internal/base58"

// decodeBase58 decodes s with Core's DecodeBase58 rules (base58.Decode):
// surrounding whitespace ignored, a NUL byte fails, at most maxLen bytes.
func decodeBase58(s string, maxLen int) ([]byte, bool) {
	return base58.Decode(s, maxLen)
}

// decodeBase58Check decodes a Base58Check string whose payload (before the
// 4-byte checksum) is at most maxLen bytes, as Core's DecodeBase58Check.
func decodeBase58Check(s string, maxLen int) ([]byte, bool) {
	raw, ok := base58.Decode(s, maxLen+4)
	if !ok || len(raw) < 4 {
		return nil, false
	}
	payload := raw[:len(raw)-4]
	if base58.Checksum(payload) != [4]byte(raw[len(raw)-4:]) {
		return nil, false
	}
	return payload, true
}

// encodeBase58Check encodes payload followed by its checksum.
func encodeBase58Check(payload []byte) string {
	return base58.EncodeCheck(payload)
}
