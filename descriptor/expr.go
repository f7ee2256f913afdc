package descriptor

import (
	"fmt"
	"strings"
)

var sprintf = fmt.Sprintf

// The scanning helpers below work on a cursor into the descriptor text, the
// way Core's script/parsing.cpp does, so that error messages quote the same
// sub-strings.

// constPrefix reports whether *sp starts with str and, if so and skip is
// true, advances past it.
func constPrefix(str string, sp *string, skip bool) bool {
	if strings.HasPrefix(*sp, str) {
		if skip {
			*sp = (*sp)[len(str):]
		}
		return true
	}
	return false
}

// funcCall reports whether *sp is exactly name(...) and, if so, replaces it
// with the text between the parentheses.
func funcCall(name string, sp *string) bool {
	s := *sp
	if len(s) >= len(name)+2 && s[len(name)] == '(' && s[len(s)-1] == ')' &&
		strings.HasPrefix(s, name) {
		*sp = s[len(name)+1 : len(s)-1]
		return true
	}
	return false
}

// nextExpr returns the text up to the first ',', ')' or '}' outside
// parentheses and braces, and advances *sp to that character.
func nextExpr(sp *string) string {
	s := *sp
	level := 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '(' || c == '{' {
			level++
		} else if level > 0 && (c == ')' || c == '}') {
			level--
		} else if level == 0 && (c == ')' || c == '}' || c == ',') {
			break
		}
	}
	*sp = s[i:]
	return s[:i]
}

// isHex reports whether s is a non-empty, even-length hex string.
func isHex(s string) bool {
	if len(s) == 0 || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isSpace mirrors C's isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v'
}

// parseUint32 accepts decimal digits only (no sign, no spaces), as Core's
// ToIntegral<uint32_t> does.
func parseUint32(s string) (uint32, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 0xffffffff {
			return 0, false
		}
	}
	return uint32(v), true
}
