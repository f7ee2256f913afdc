package base58

// This file is the constant-time kind (see the package comment): strings
// that carry a private key. Loops run over public bounds (the string's
// length, the buffer's size, the alphabet) and nothing branches on or
// indexes by a digit or a byte of the value.

// eq returns 1 when a == b and 0 otherwise, without a branch.
func eq(a, b uint32) uint32 {
	x := a ^ b
	return 1 ^ ((x | -x) >> 31)
}

// gtMask returns all ones when a > b and zero otherwise, for a, b < 2^31,
// without a branch.
func gtMask(a, b uint32) uint32 {
	return uint32(int32(b-a) >> 31)
}

// digitOf returns the value of the Base58 character c and 1, or 0 and 0
// when c is not in the alphabet, comparing c with every character.
func digitOf(c uint32) (d, ok uint32) {
	for j := range uint32(len(Alphabet)) {
		m := eq(c, uint32(Alphabet[j]))
		d |= j & -m
		ok |= m
	}
	return d, ok
}

// charOf returns the Base58 character of digit d < 58 by arithmetic: the
// alphabet is '1'..'9', 'A'..'Z' without 'I' and 'O', 'a'..'z' without
// 'l'.
func charOf(d uint32) byte {
	c := d + '1'
	c += 7 & gtMask(d, 8)  // '9' -> 'A'
	c += 1 & gtMask(d, 16) // skip 'I'
	c += 1 & gtMask(d, 21) // skip 'O'
	c += 6 & gtMask(d, 32) // 'Z' -> 'a'
	c += 1 & gtMask(d, 43) // skip 'l'
	return byte(c)
}

// DecodeCheckSecret decodes a Base58Check string that carries a secret
// (WIF, xprv) and returns its payload (without the checksum), at most
// maxLen bytes, or false. It accepts what btcd's base58.Decode followed by
// a checksum check accepts, within the length: no whitespace, every
// character in the alphabet. Every character costs the same work, a
// multiplication of the whole (maxLen+4)-byte buffer; a string longer
// than 2·(maxLen+4) characters, which cannot decode to maxLen+4 bytes, is
// refused at once. The caller clears the payload when done.
func DecodeCheckSecret(s string, maxLen int) ([]byte, bool) {
	n := maxLen + 4
	if maxLen < 0 || len(s) == 0 || len(s) > 2*n {
		return nil, false
	}
	num := make([]byte, n) // little-endian value of the digits
	defer clear(num)
	var bad, overflow uint32
	lead := uint32(1) // still in the leading '1's
	zeroes := 0
	for i := 0; i < len(s); i++ {
		c := uint32(s[i])
		d, ok := digitOf(c)
		bad |= ok ^ 1
		lead &= eq(c, '1')
		zeroes += int(lead)
		carry := d
		for k := range num {
			carry += 58 * uint32(num[k])
			num[k] = byte(carry)
			carry >>= 8
		}
		overflow |= carry
	}
	if bad|overflow != 0 {
		return nil, false
	}
	// Significant bytes of the value.
	length := uint32(0)
	for k := range num {
		nz := 1 ^ eq(uint32(num[k]), 0)
		length ^= (length ^ uint32(k+1)) & -nz
	}
	total := zeroes + int(length)
	if total > n || total < 4 {
		return nil, false
	}
	out := make([]byte, total)
	for k := range int(length) {
		out[total-1-k] = num[k]
	}
	payload := out[:total-4]
	if Checksum(payload) != [4]byte(out[total-4:]) {
		clear(out)
		return nil, false
	}
	return payload, true
}

// EncodeCheckSecret encodes payload, a secret (WIF, xprv), followed by
// its checksum, as EncodeCheck does, with the same work for every payload
// of a length: each byte multiplies the whole digit buffer, and digits
// become characters by arithmetic.
func EncodeCheckSecret(payload []byte) string {
	sum := Checksum(payload)
	data := append(append(make([]byte, 0, len(payload)+4), payload...), sum[:]...)
	defer clear(data)

	lead := uint32(1)
	zeroes := 0
	for _, c := range data {
		lead &= eq(uint32(c), 0)
		zeroes += int(lead)
	}
	digits := make([]byte, len(data)*138/100+1) // little-endian base 58
	defer clear(digits)
	for _, c := range data {
		carry := uint32(c)
		for k := range digits {
			carry += uint32(digits[k]) << 8
			digits[k] = byte(carry % 58)
			carry /= 58
		}
	}
	length := uint32(0)
	for k := range digits {
		nz := 1 ^ eq(uint32(digits[k]), 0)
		length ^= (length ^ uint32(k+1)) & -nz
	}
	out := make([]byte, zeroes+int(length))
	for i := range zeroes {
		out[i] = '1'
	}
	for k := range int(length) {
		out[len(out)-1-k] = charOf(uint32(digits[k]))
	}
	str := string(out)
	clear(out)
	return str
}
