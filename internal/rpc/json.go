package rpc

import (
	"unicode/utf8"
)

// This file holds the small JSON reader and writer of the envelope. It
// accepts exactly what Core's JSON parser accepts (RFC 8259 values, nesting
// up to maxDepth, valid UTF-8, no raw control characters in strings), keeps
// every value as a span of the request body, and writes values back in
// Core's form: compact, Core's string escapes, numbers with their original
// text.

// maxDepth is the deepest nesting of arrays and objects accepted, as in
// Core's parser.
const maxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// trimSpace strips JSON whitespace from both ends.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// scanValue validates the JSON value starting at data[i] (no leading space)
// and returns the index just past it.
func scanValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '"':
		return scanString(data, i)
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, false
		}
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == closer {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				// A member: its name and a colon before the value.
				if i >= len(data) || data[i] != '"' {
					return i, false
				}
				if i, ok = scanString(data, i); !ok {
					return i, false
				}
				i = skipSpace(data, i)
				if i >= len(data) || data[i] != ':' {
					return i, false
				}
				i = skipSpace(data, i+1)
			}
			if i, ok = scanValue(data, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			if data[i] == closer {
				return i + 1, true
			}
			if data[i] != ',' {
				return i, false
			}
			i = skipSpace(data, i+1)
		}
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	case c == '-' || isDigit(c):
		return scanNumber(data, i)
	}
	return i, false
}

func scanLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanNumber validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) || !isDigit(data[i]) {
		return i, false
	}
	if data[i] == '0' {
		i++
		if i < len(data) && isDigit(data[i]) {
			return i, false
		}
	} else {
		i = skipDigits(data, i)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = skipDigits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = skipDigits(data, i)
	}
	return i, true
}

// skipDigits returns the index of the first byte at or after i that is not
// a decimal digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// hex4 decodes the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if len(data)-i < 4 {
		return 0, false
	}
	var r rune
	for k := 0; k < 4; k++ {
		v := hexVal(data[i+k])
		if v < 0 {
			return 0, false
		}
		r = r<<4 | v
	}
	return r, true
}

// scanString validates the string starting at the quote data[i] and
// returns the index past its closing quote. Escaped surrogates must pair up
// and raw bytes must be valid UTF-8, as Core requires.
func scanString(data []byte, i int) (int, bool) {
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(data) {
				return i, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(data, i+2)
				if !ok {
					return i, false
				}
				i += 6
				if r >= 0xD800 && r < 0xDC00 {
					if len(data)-i < 6 || data[i] != '\\' || data[i+1] != 'u' {
						return i, false
					}
					r2, ok := hex4(data, i+2)
					if !ok || r2 < 0xDC00 || r2 >= 0xE000 {
						return i, false
					}
					i += 6
				} else if r >= 0xDC00 && r < 0xE000 {
					return i, false
				}
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, false
			}
			i += n
		}
	}
	return i, false
}

// unquote decodes a valid JSON string token (with its quotes).
func unquote(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", false
	}
	body := tok[1 : len(tok)-1]
	// Fast path: nothing escaped.
	plain := true
	for _, c := range body {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch body[i+1] {
		case '"':
			out = append(out, '"')
		case '\\':
			out = append(out, '\\')
		case '/':
			out = append(out, '/')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if r >= 0xD800 && r < 0xDC00 {
				r2, ok := hex4(body, i+2)
				if !ok || len(body)-i < 6 || body[i] != '\\' {
					return "", false
				}
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string with Core's escapes: the two
// characters `"` and `\`, control characters (with \b \t \n \f \r where they
// exist, else \u00xx) and DEL as \u007f; everything else, including
// non-ASCII UTF-8, is written as is.
// AppendString appends s as a JSON string in Core's output form, for
// handlers that write their replies themselves (CanonicalJSON).
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\t':
		return append(dst, '\\', 't')
	case '\n':
		return append(dst, '\\', 'n')
	case '\f':
		return append(dst, '\\', 'f')
	case '\r':
		return append(dst, '\\', 'r')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// appendCanonical appends the JSON value raw (optionally surrounded by
// space) in Core's output form. It reports false when raw is not one valid
// JSON value.
func appendCanonical(dst []byte, raw []byte) ([]byte, bool) {
	i := skipSpace(raw, 0)
	end, ok := scanValue(raw, i, 0)
	if !ok || skipSpace(raw, end) != len(raw) {
		return dst, false
	}
	return appendCanonicalValid(dst, raw[i:end]), true
}

// appendCanonicalValid rewrites an already validated value.
func appendCanonicalValid(dst []byte, v []byte) []byte {
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case isSpace(c):
			i++
		case c == '"':
			end, _ := scanString(v, i)
			dst = appendCanonicalString(dst, v[i:end])
			i = end
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

// appendCanonicalString re-escapes a valid string token the way Core
// writes strings. Tokens without escapes that need no escaping on output
// are copied as they are.
func appendCanonicalString(dst []byte, tok []byte) []byte {
	clean := true
	for _, c := range tok[1 : len(tok)-1] {
		if c == '\\' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return append(dst, tok...)
	}
	s, _ := unquote(tok)
	return appendString(dst, s)
}
