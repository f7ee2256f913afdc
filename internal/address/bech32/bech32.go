package bech32

import "strings"

// Encoding is the checksum variant of a Bech32 string.
type Encoding int

const (
	// Invalid is no valid encoding.
	Invalid Encoding = iota
	// Bech32 is BIP 173's encoding (checksum constant 1).
	Bech32
	// Bech32m is BIP 350's encoding (checksum constant 0x2bc830a3).
	Bech32m
)

// String returns "bech32", "bech32m" or "invalid".
func (e Encoding) String() string {
	switch e {
	case Bech32:
		return "bech32"
	case Bech32m:
		return "bech32m"
	}
	return "invalid"
}

// MaxLength is the longest string Decode accepts.
const MaxLength = 90

// checksumLength is the number of checksum characters.
const checksumLength = 6

const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// charsetRev maps an ASCII byte to its 5-bit value, or -1.
var charsetRev = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(charset); i++ {
		c := charset[i]
		t[c] = int8(i)
		if c >= 'a' && c <= 'z' {
			t[c-'a'+'A'] = int8(i)
		}
	}
	return t
}()

func constant(e Encoding) uint32 {
	if e == Bech32m {
		return 0x2bc830a3
	}
	return 1
}

// generator holds {1,2,4,8,16} times the generator's low coefficients, the
// values folded in when a coefficient leaves the top of the 30-bit state.
var generator = [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}

// polymodStep multiplies the checksum state by x and adds v (BIP 173).
func polymodStep(c uint32, v byte) uint32 {
	top := c >> 25
	c = (c&0x1ffffff)<<5 ^ uint32(v)
	for i := 0; i < 5; i++ {
		if (top>>i)&1 == 1 {
			c ^= generator[i]
		}
	}
	return c
}

// hrpPolymod returns the checksum state after the expanded HRP: the high
// bits of each character, a zero, then the low bits.
func hrpPolymod(hrp string) uint32 {
	c := uint32(1)
	for i := 0; i < len(hrp); i++ {
		c = polymodStep(c, hrp[i]>>5)
	}
	c = polymodStep(c, 0)
	for i := 0; i < len(hrp); i++ {
		c = polymodStep(c, hrp[i]&0x1f)
	}
	return c
}

func polymod(hrp string, values []byte) uint32 {
	c := hrpPolymod(hrp)
	for _, v := range values {
		c = polymodStep(c, v)
	}
	return c
}

// Encode returns the string of the given encoding for a lower-case HRP and
// 5-bit data values (each below 32). It panics on an upper-case HRP, a value
// of 32 or more, or an unknown encoding, which are programming errors.
func Encode(enc Encoding, hrp string, data []byte) string {
	if enc != Bech32 && enc != Bech32m {
		panic("bech32: invalid encoding")
	}
	if strings.ToLower(hrp) != hrp {
		panic("bech32: upper-case HRP")
	}
	c := hrpPolymod(hrp)
	var sb strings.Builder
	sb.Grow(len(hrp) + 1 + len(data) + checksumLength)
	sb.WriteString(hrp)
	sb.WriteByte('1')
	for _, v := range data {
		if v >= 32 {
			panic("bech32: data value out of range")
		}
		c = polymodStep(c, v)
		sb.WriteByte(charset[v])
	}
	for i := 0; i < checksumLength; i++ {
		c = polymodStep(c, 0)
	}
	c ^= constant(enc)
	for i := 0; i < checksumLength; i++ {
		sb.WriteByte(charset[(c>>(5*(5-i)))&31])
	}
	return sb.String()
}

// Decode decodes a Bech32 or Bech32m string. It returns the encoding, the
// HRP in lower case and the data values without the checksum; on failure an
// *Error with Core's message and error locations.
func Decode(s string) (Encoding, string, []byte, error) {
	hrp, values, err := split(s)
	if err != nil {
		return Invalid, "", nil, err
	}
	var enc Encoding
	switch polymod(hrp, values) {
	case constant(Bech32):
		enc = Bech32
	case constant(Bech32m):
		enc = Bech32m
	default:
		return Invalid, "", nil, locateChecksumErrors(s, hrp, values)
	}
	return enc, hrp, values[:len(values)-checksumLength], nil
}

// LocateErrors returns Core's message and error positions for a string that
// does not decode, and "" with no positions for one that does.
func LocateErrors(s string) (string, []int) {
	_, _, _, err := Decode(s)
	if err == nil {
		return "", nil
	}
	e := err.(*Error)
	return e.Description, e.Locations
}

// split runs every check but the checksum's, in Core's order, and returns
// the lower-case HRP and the data values including the checksum.
func split(s string) (string, []byte, error) {
	if len(s) > MaxLength {
		locs := make([]int, 0, len(s)-MaxLength)
		for i := MaxLength; i < len(s); i++ {
			locs = append(locs, i)
		}
		return "", nil, newError(ErrTooLong, locs)
	}

	// Characters: printable ASCII, one case throughout. Every offending
	// position is reported.
	var locs []int
	lower, upper := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			if upper {
				locs = append(locs, i)
			} else {
				lower = true
			}
		case c >= 'A' && c <= 'Z':
			if lower {
				locs = append(locs, i)
			} else {
				upper = true
			}
		case c < 33 || c > 126:
			locs = append(locs, i)
		}
	}
	if len(locs) > 0 {
		return "", nil, newError(ErrInvalidCharacter, locs)
	}

	pos := strings.LastIndexByte(s, '1')
	if pos < 0 {
		return "", nil, newError(ErrMissingSeparator, nil)
	}
	if pos == 0 || pos+checksumLength+1 > len(s) {
		return "", nil, newError(ErrSeparatorPosition, []int{pos})
	}

	values := make([]byte, len(s)-pos-1)
	for i := pos + 1; i < len(s); i++ {
		v := charsetRev[s[i]]
		if v < 0 {
			return "", nil, newError(ErrInvalidDataCharacter, []int{i})
		}
		values[i-pos-1] = byte(v)
	}
	return strings.ToLower(s[:pos]), values, nil
}

// locateChecksumErrors finds, for each encoding, the substitutions of at
// most two data characters that would make the checksum valid, and reports
// the encoding needing fewer (Bech32 on a tie).
//
// The checksum state is affine in the data values: substituting value
// v^e at position p (counted from the right) XORs the state with e*x^p mod
// g(x), which is linear in the bits of e. The code's minimum distance of 5
// over any 89 consecutive positions (BIP 173) makes a pattern of one or two
// substitutions within the data part unique when it exists, so a direct
// search over positions and values gives the same answer as Core's
// syndrome decoder.
func locateChecksumErrors(s, hrp string, values []byte) error {
	n := len(values)

	// delta[p][b]: effect of flipping bit b of the value at position p.
	delta := make([][5]uint32, n)
	for b := 0; b < 5; b++ {
		delta[0][b] = 1 << b
	}
	for p := 1; p < n; p++ {
		for b := 0; b < 5; b++ {
			delta[p][b] = polymodStep(delta[p-1][b], 0)
		}
	}
	effect := func(p int, e byte) uint32 {
		var d uint32
		for b := 0; b < 5; b++ {
			if e&(1<<b) != 0 {
				d ^= delta[p][b]
			}
		}
		return d
	}

	// index maps the effect of each single substitution to its position.
	index := make(map[uint32]int, n*31)
	for p := 0; p < n; p++ {
		for e := byte(1); e < 32; e++ {
			index[effect(p, e)] = p
		}
	}

	state := polymod(hrp, values)
	var best []int
	found := Invalid
	for _, enc := range []Encoding{Bech32, Bech32m} {
		residue := state ^ constant(enc)
		var locs []int
		if p, ok := index[residue]; ok {
			locs = []int{len(s) - p - 1}
		} else {
		search:
			for p1 := 0; p1 < n; p1++ {
				for e := byte(1); e < 32; e++ {
					p2, ok := index[residue^effect(p1, e)]
					if ok && p2 != p1 {
						a, b := len(s)-p1-1, len(s)-p2-1
						if a > b {
							a, b = b, a
						}
						locs = []int{a, b}
						break search
					}
				}
			}
		}
		if len(locs) > 0 && (found == Invalid || len(locs) < len(best)) {
			best, found = locs, enc
		}
	}
	err := newError(ErrChecksum, best)
	switch found {
	case Bech32:
		err.Description = "Invalid Bech32 checksum"
	case Bech32m:
		err.Description = "Invalid Bech32m checksum"
	}
	return err
}

// ConvertBits regroups a sequence of from-bit values into to-bit values
// (from and to between 1 and 8). With pad, leftover bits are zero-padded
// into a last value; without, leftover bits must number fewer than from and
// be zero, or ConvertBits reports false (Core's ConvertBits). Input values
// must fit in from bits.
func ConvertBits(data []byte, from, to uint, pad bool) ([]byte, bool) {
	var acc, bits uint
	maxv := uint(1)<<to - 1
	maxAcc := uint(1)<<(from+to-1) - 1
	out := make([]byte, 0, (len(data)*int(from)+int(to)-1)/int(to))
	for _, v := range data {
		acc = (acc<<from | uint(v)) & maxAcc
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, false
	}
	return out, true
}
