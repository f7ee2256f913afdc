package rpc

import (
	"strconv"
)

// Amount is a quantity of bitcoin in satoshis. It marshals as a JSON number
// in BTC with exactly eight decimals (0.10000000), as Core prints amounts.
type Amount int64

const (
	// SatoshiPerBitcoin is the number of satoshis in one bitcoin.
	SatoshiPerBitcoin = 100_000_000
	// MaxMoney is the largest valid amount (21 million BTC).
	MaxMoney Amount = 21_000_000 * SatoshiPerBitcoin
)

// AppendJSON appends the amount as Core writes it.
func (a Amount) AppendJSON(dst []byte) []byte {
	v := int64(a)
	neg := v < 0
	// Work with a non-negative uint64 so that the minimum int64 is safe.
	u := uint64(v)
	if neg {
		dst = append(dst, '-')
		u = -u
	}
	dst = strconv.AppendUint(dst, u/SatoshiPerBitcoin, 10)
	frac := u % SatoshiPerBitcoin
	var buf [9]byte
	buf[0] = '.'
	for k := 8; k >= 1; k-- {
		buf[k] = byte('0' + frac%10)
		frac /= 10
	}
	return append(dst, buf[:]...)
}

// String returns the amount in BTC with eight decimals.
func (a Amount) String() string { return string(a.AppendJSON(nil)) }

// MarshalJSON implements json.Marshaler.
func (a Amount) MarshalJSON() ([]byte, error) { return a.AppendJSON(nil), nil }

// MoneyRange reports whether a is between 0 and MaxMoney inclusive.
func (a Amount) MoneyRange() bool { return a >= 0 && a <= MaxMoney }

// AsAmount reads an amount in BTC the way Core's AmountFromValue does:
// a JSON number or a string; anything else is -3 "Amount is not a number or
// string", text that is not a decimal with at most 8 places is -3 "Invalid
// amount", and a value outside [0, 21e6 BTC] is -3 "Amount out of range".
func AsAmount(raw []byte) (Amount, error) {
	var text string
	switch JSONType(raw) {
	case "number":
		text = string(trimSpace(raw))
	case "string":
		s, err := AsString(raw)
		if err != nil {
			return 0, err
		}
		text = s
	default:
		return 0, NewError(CodeTypeError, "Amount is not a number or string")
	}
	v, ok := ParseFixedPoint(text, 8)
	if !ok {
		return 0, NewError(CodeTypeError, "Invalid amount")
	}
	a := Amount(v)
	if !a.MoneyRange() {
		return 0, NewError(CodeTypeError, "Amount out of range")
	}
	return a, nil
}

// fixedUpper bounds the magnitude of a fixed-point result (10^18 - 1).
const fixedUpper = 1_000_000_000_000_000_000 - 1

// ParseFixedPoint parses a decimal number (optionally signed, with an
// optional fraction and exponent) into an integer scaled by 10^decimals. It
// fails for malformed text, for values with more precision than decimals
// places, and for magnitudes of 10^(18-decimals) or more. These are the
// rules of Core's ParseFixedPoint, which Core applies to amounts.
func ParseFixedPoint(s string, decimals int) (int64, bool) {
	var (
		mantissa   int64
		zeros      int // trailing zeros of the mantissa not yet applied
		exponent   int64
		pointShift int64
		i          int
	)
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	digit := func(c byte) bool {
		if c == '0' {
			zeros++
			return true
		}
		for k := 0; k <= zeros; k++ {
			if mantissa > fixedUpper/10 {
				return false
			}
			mantissa *= 10
		}
		mantissa += int64(c - '0')
		zeros = 0
		return true
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			if !digit(s[i]) {
				return 0, false
			}
			i++
		}
	default:
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i < len(s) && isDigit(s[i]) {
			if !digit(s[i]) {
				return 0, false
			}
			i++
			pointShift++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && s[i] == '+' {
			i++
		} else if i < len(s) && s[i] == '-' {
			expNeg = true
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i < len(s) && isDigit(s[i]) {
			if exponent > fixedUpper/10 {
				return 0, false
			}
			exponent = exponent*10 + int64(s[i]-'0')
			i++
		}
		if expNeg {
			exponent = -exponent
		}
	}
	if i != len(s) {
		return 0, false
	}
	exponent = exponent - pointShift + int64(zeros) + int64(decimals)
	if neg {
		mantissa = -mantissa
	}
	if exponent < 0 || exponent >= 18 {
		return 0, false
	}
	for k := int64(0); k < exponent; k++ {
		if mantissa > fixedUpper/10 || mantissa < -(fixedUpper/10) {
			return 0, false
		}
		mantissa *= 10
	}
	if mantissa > fixedUpper || mantissa < -fixedUpper {
		return 0, false
	}
	return mantissa, true
}
