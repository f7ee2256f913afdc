package descriptor

import "strings"

// BIP 380 checksum: every group of three characters of the input becomes four
// symbols of GF(32) (the low five bits of each character's position in
// inputCharset, then one symbol holding the three high parts), and the
// symbols feed a degree-8 BCH-like code whose remainder is the checksum.

const inputCharset = "0123456789()[],'/*abcdefgh@:$%{}" +
	"IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~" +
	"ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "

const checksumCharset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// charPos maps a byte to its position in inputCharset plus one (0: absent).
var charPos = func() (t [256]byte) {
	for i := 0; i < len(inputCharset); i++ {
		t[inputCharset[i]] = byte(i + 1)
	}
	return t
}()

// polyMod multiplies the degree-8 polynomial packed in c by x, reduces it by
// the generator and adds val.
func polyMod(c uint64, val uint64) uint64 {
	c0 := c >> 35
	c = ((c & 0x7ffffffff) << 5) ^ val
	if c0&1 != 0 {
		c ^= 0xf5dee51989
	}
	if c0&2 != 0 {
		c ^= 0xa9fdca3312
	}
	if c0&4 != 0 {
		c ^= 0x1bab10e32d
	}
	if c0&8 != 0 {
		c ^= 0x3706b1677a
	}
	if c0&16 != 0 {
		c ^= 0x644d626ffd
	}
	return c
}

// computeChecksum returns the checksum of s, or "" when s holds a character
// outside the BIP 380 set.
func computeChecksum(s string) string {
	c := uint64(1)
	cls, clsCount := uint64(0), 0
	for i := 0; i < len(s); i++ {
		p := charPos[s[i]]
		if p == 0 {
			return ""
		}
		pos := uint64(p - 1)
		c = polyMod(c, pos&31)
		cls = cls*3 + pos>>5
		clsCount++
		if clsCount == 3 {
			c = polyMod(c, cls)
			cls, clsCount = 0, 0
		}
	}
	if clsCount > 0 {
		c = polyMod(c, cls)
	}
	for j := 0; j < 8; j++ {
		c = polyMod(c, 0)
	}
	c ^= 1
	var out [8]byte
	for j := 0; j < 8; j++ {
		out[j] = checksumCharset[(c>>(5*(7-j)))&31]
	}
	return string(out[:])
}

// Checksum returns the BIP 380 checksum of the descriptor s. A '#' suffix in s
// is checked (with Core's messages) and not included; an error is returned
// for characters outside the descriptor character set.
func Checksum(s string) (string, error) {
	_, sum, err := splitChecksum(s, false)
	return sum, err
}

// AddChecksum returns s followed by '#' and its checksum. s must not carry a
// checksum already; for a string with characters outside the descriptor
// character set the checksum part is empty, as in Core.
func AddChecksum(s string) string {
	return s + "#" + computeChecksum(s)
}

// splitChecksum checks the checksum part of s, if any, and returns the
// descriptor text before it and the computed checksum.
func splitChecksum(s string, require bool) (string, string, error) {
	parts := strings.Split(s, "#")
	if len(parts) > 2 {
		return "", "", makeError(ErrMultipleHash, "Multiple '#' symbols")
	}
	if len(parts) == 1 && require {
		return "", "", makeError(ErrMissingChecksum, "Missing checksum")
	}
	if len(parts) == 2 && len(parts[1]) != 8 {
		return "", "", makeError(ErrChecksumLength,
			sprintf("Expected 8 character checksum, not %d characters", len(parts[1])))
	}
	sum := computeChecksum(parts[0])
	if sum == "" {
		return "", "", makeError(ErrInvalidCharacters, "Invalid characters in payload")
	}
	if len(parts) == 2 && parts[1] != sum {
		return "", "", makeError(ErrChecksumMismatch,
			sprintf("Provided checksum '%s' does not match computed checksum '%s'", parts[1], sum))
	}
	return parts[0], sum, nil
}
