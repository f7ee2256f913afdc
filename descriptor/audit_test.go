package descriptor

import (
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// This file checks every branch of Core's descriptor parser (ParseScript,
// ParsePubkey, ParsePubkeyInner, ParseKeyPath, the taproot tree walk,
// multipath and musig() handling, CheckChecksum) with inputs chosen to reach
// it, against the message Core's source produces for it. Keys are the ones
// of Core's descriptor_tests.cpp (main net).

const (
	aK   = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	aKUp = "03A34B99F22C790C4E36B2B3C2C35A36DB06226E41C692FC82B8B56AC1C540C5BD"
	aU   = "04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235"
	aH   = "07a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235"
	aX   = "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	aK2  = "02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
	aK3  = "03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
	aW   = "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1"
	aWU  = "5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss"
	aXP  = "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL"
	aXV  = "xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc"
	aXP2 = "xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y"
	aTP  = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	// aBad is 32 bytes that are no x coordinate of the curve (above p).
	aBad = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
)

type auditCase struct {
	in   string
	want string // Core's error message; "-" when the descriptor parses
	// str, when set, is the public form (without checksum) a parsed
	// descriptor prints.
	str string
}

func rep(s string, n int, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = s
	}
	return strings.Join(parts, sep)
}

func auditCases() []auditCase {
	deep := "tr(" + aX + "," + strings.Repeat("{pk("+aX+"),", 128) + "pk(" + aX + ")" + strings.Repeat("}", 128) + ")"
	tooDeep := "tr(" + aX + "," + strings.Repeat("{", 129) + "pk(" + aX + ")" + strings.Repeat("}", 129) + ")"
	return []auditCase{
		// Top level and trailing text.
		{"", "'' is not a valid descriptor function", ""},
		{"pk(" + aK + "))", "", ""},
		{"pk(" + aK + "),pk(" + aK + ")", "", ""},
		{"pk(" + aK + ")}", "", ""},
		{"pk(" + aK + ")x", "'pk(" + aK + ")x' is not a valid descriptor function", ""},
		{" pk(" + aK + ")", "' pk(" + aK + ")' is not a valid descriptor function", ""},
		{"pk(" + aK + ") ", "'pk(" + aK + ") ' is not a valid descriptor function", ""},
		{"PK(" + aK + ")", "'PK(" + aK + ")' is not a valid descriptor function", ""},
		{"foo(" + aK + ")", "'foo(" + aK + ")' is not a valid descriptor function", ""},
		{"pk(" + aK, "'pk(" + aK + "' is not a valid descriptor function", ""},
		{"sh(pk(" + aK + "),pk(" + aK + "))", "", ""},
		{"wsh(pk(" + aK + "),pk(" + aK + "))", "", ""},
		{"sh(pk(" + aK + ")))", "", ""},

		// Context rules of each function.
		{"sh(" + aK + ")", "A function is needed within P2SH", ""},
		{"sh()", "A function is needed within P2SH", ""},
		{"sh(wsh())", "A function is needed within P2WSH", ""},
		{"wsh(" + aK + ")", "A function is needed within P2WSH", ""},
		{"wsh()", "A function is needed within P2WSH", ""},
		{"sh(foo(" + aK + "))", "A function is needed within P2SH", ""},
		{"sh(combo(" + aK + "))", "Can only have combo() at top level", ""},
		{"wsh(combo(" + aK + "))", "Can only have combo() at top level", ""},
		{"tr(" + aX + ",combo(" + aK + "))", "Can only have combo() at top level", ""},
		{"wsh(wpkh(" + aK + "))", "Can only have wpkh() at top level or inside sh()", ""},
		{"sh(wsh(wpkh(" + aK + ")))", "Can only have wpkh() at top level or inside sh()", ""},
		{"tr(" + aX + ",wpkh(" + aK + "))", "Can only have wpkh() at top level or inside sh()", ""},
		{"sh(sh(pk(" + aK + ")))", "Can only have sh() at top level", ""},
		{"wsh(sh(pk(" + aK + ")))", "Can only have sh() at top level", ""},
		{"tr(" + aX + ",sh(pk(" + aK + ")))", "Can only have sh() at top level", ""},
		{"wsh(wsh(pk(" + aK + ")))", "Can only have wsh() at top level or inside sh()", ""},
		{"tr(" + aX + ",wsh(pk(" + aK + ")))", "Can only have wsh() at top level or inside sh()", ""},
		{"sh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))", "Can only have addr() at top level", ""},
		{"wsh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))", "Can only have addr() at top level", ""},
		{"sh(tr(" + aX + "))", "Can only have tr at top level", ""},
		{"wsh(tr(" + aX + "))", "Can only have tr at top level", ""},
		{"tr(" + aX + ",tr(" + aX + "))", "Can only have tr at top level", ""},
		{"sh(rawtr(" + aX + "))", "Can only have rawtr at top level", ""},
		{"tr(" + aX + ",rawtr(" + aX + "))", "Can only have rawtr at top level", ""},
		{"sh(raw(51))", "Can only have raw() at top level", ""},
		{"wsh(raw(51))", "Can only have raw() at top level", ""},
		{"tr(" + aX + ",raw(51))", "Can only have raw() at top level", ""},
		{"tr(" + aX + ",multi(1," + aK + "))", "Can only have multi/sortedmulti at top level, in sh(), or in wsh()", ""},
		{"tr(" + aX + ",sortedmulti(1," + aK + "))", "Can only have multi/sortedmulti at top level, in sh(), or in wsh()", ""},
		{"multi_a(1," + aX + ")", "Can only have multi_a/sortedmulti_a inside tr()", ""},
		{"sh(multi_a(1," + aK + "))", "Can only have multi_a/sortedmulti_a inside tr()", ""},
		{"wsh(sortedmulti_a(1," + aK + "))", "Can only have multi_a/sortedmulti_a inside tr()", ""},
		{"and_v(v:pk(" + aK + "),older(1))", "Miniscript expressions can only be used in wsh or tr.", ""},
		{"sh(and_v(v:pk(" + aK + "),older(1)))", "Miniscript expressions can only be used in wsh or tr.", ""},
		{"pk_k(" + aU + ")", "Uncompressed keys are not allowed", ""},

		// Checksums.
		{"pk(" + aK + ")#", "Expected 8 character checksum, not 0 characters", ""},
		{"pk(" + aK + ")#abc", "Expected 8 character checksum, not 3 characters", ""},
		{"pk(" + aK + ")#abcdefghi", "Expected 8 character checksum, not 9 characters", ""},
		{"pk(" + aK + ")#é", "Expected 8 character checksum, not 2 characters", ""},
		{"pk(" + aK + ")##", "Multiple '#' symbols", ""},
		{"pk(" + aK + ")#a#b", "Multiple '#' symbols", ""},
		{"raw(é)", "Invalid characters in payload", ""},
		{"raw(é)#abcdefgh", "Invalid characters in payload", ""},
		{"raw(é)#abc", "Expected 8 character checksum, not 3 characters", ""},
		{"pk(\t" + aK + ")", "Invalid characters in payload", ""},

		// addr() and raw().
		{"addr(asdf)", "Address is not valid", ""},
		{"addr()", "Address is not valid", ""},
		{"addr(tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx)", "Address is not valid", ""},
		{"addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)", "-", "addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)"},
		{"addr(BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4)", "-", "addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)"},
		{"raw(asdf)", "Raw script is not hex", ""},
		{"raw()", "Raw script is not hex", ""},
		{"raw(0)", "Raw script is not hex", ""},
		{"raw(DEADBEEF)", "-", "raw(deadbeef)"},

		// Hex keys.
		{"pk()", "pk(): No key provided", ""},
		{"pk(" + aKUp + ")", "-", "pk(" + aK + ")"},
		{"pk(" + aH + ")", "pk(): Hybrid public keys are not allowed", ""},
		{"pk(06" + strings.Repeat("00", 64) + ")", "pk(): Hybrid public keys are not allowed", ""},
		{"pk(04" + strings.Repeat("00", 64) + ")", "pk(): Pubkey '04" + strings.Repeat("00", 64) + "' is invalid", ""},
		{"pk(05" + aX + ")", "pk(): Pubkey '05" + aX + "' is invalid", ""},
		{"pk(02" + aBad + ")", "pk(): Pubkey '02" + aBad + "' is invalid", ""},
		{"pk(deadbeef)", "pk(): Pubkey 'deadbeef' is invalid", ""},
		{"pk(" + aX + ")", "pk(): Pubkey '" + aX + "' is invalid", ""},
		{"pk(" + aK + "/0)", "pk(): key '" + aK + "' is not valid", ""},
		{"pk(" + aW + "/0)", "pk(): key '" + aW + "' is not valid", ""},
		{"pk(abc)", "pk(): key 'abc' is not valid", ""},
		{"combo(" + aX + ")", "combo(): Pubkey '" + aX + "' is invalid", ""},
		{"combo()", "combo(): No key provided", ""},
		{"combo(" + aU + ")", "-", ""},
		{"pkh(" + aH + ")", "pkh(): Hybrid public keys are not allowed", ""},
		{"sh(wpkh(" + aH + "))", "wpkh(): Hybrid public keys are not allowed", ""},
		{"wpkh(" + aU + ")", "wpkh(): Uncompressed keys are not allowed", ""},
		{"wpkh(" + aWU + ")", "wpkh(): Uncompressed keys are not allowed", ""},
		{"sh(wpkh(" + aU + "))", "wpkh(): Uncompressed keys are not allowed", ""},
		{"wpkh(" + aX + ")", "wpkh(): Pubkey '" + aX + "' is invalid", ""},
		{"wsh(pk(" + aU + "))", "pk(): Uncompressed keys are not allowed", ""},
		{"wsh(pkh(" + aWU + "))", "pkh(): Uncompressed keys are not allowed", ""},
		{"sh(pk(" + aU + "))", "-", ""},
		{"wsh(pk(" + aX + "))", "pk(): Pubkey '" + aX + "' is invalid", ""},
		{"wsh(pkh())", "pkh(): No key provided", ""},

		// Whitespace around keys.
		{"pk( " + aK + ")", "pk(): Key ' " + aK + "' is invalid due to whitespace", ""},
		{"pk(" + aK + " )", "pk(): Key '" + aK + " ' is invalid due to whitespace", ""},
		{"pk([deadbeef] " + aK + ")", "pk(): Key ' " + aK + "' is invalid due to whitespace", ""},
		{"pk( [deadbeef]" + aK + ")", "pk(): Key origin start '[ character expected but not found, got ' ' instead", ""},
		{"pkh(" + aXP + " /0)", "pkh(): Key '" + aXP + " ' is invalid due to whitespace", ""},
		{"pkh(" + aXP + "/ 0)", "pkh(): Key path value ' 0' is not a valid uint32", ""},
		{"wsh(multi(1, " + aK + "))", "Multi: Key ' " + aK + "' is invalid due to whitespace", ""},
		{"tr( " + aX + ")", "tr(): Key ' " + aX + "' is invalid due to whitespace", ""},
		{"pk(" + aK + " " + aK + ")", "pk(): key '" + aK + " " + aK + "' is not valid", ""},

		// Key origins.
		{"pkh([deadbeef/1/2'/3/4']" + aK + ")", "-", "pkh([deadbeef/1/2'/3/4']" + aK + ")"},
		{"pkh([DEADBEEF/1h]" + aK + ")", "-", "pkh([deadbeef/1h]" + aK + ")"},
		{"pkh(deadbeef/1]" + aK + ")", "pkh(): Key origin start '[ character expected but not found, got 'd' instead", ""},
		{"pkh(]" + aK + ")", "pkh(): Key origin start '[ character expected but not found, got ']' instead", ""},
		{"pkh([deadbeef]]" + aK + ")", "pkh(): Multiple ']' characters found for a single pubkey", ""},
		{"pkh([deadbeef][deadbeef]" + aK + ")", "pkh(): Multiple ']' characters found for a single pubkey", ""},
		{"pkh([deadbee]" + aK + ")", "pkh(): Fingerprint is not 4 bytes (7 characters instead of 8 characters)", ""},
		{"pkh([]" + aK + ")", "pkh(): Fingerprint is not 4 bytes (0 characters instead of 8 characters)", ""},
		{"pkh([/0]" + aK + ")", "pkh(): Fingerprint is not 4 bytes (0 characters instead of 8 characters)", ""},
		{"pkh([deadbeef0]" + aK + ")", "pkh(): Fingerprint is not 4 bytes (9 characters instead of 8 characters)", ""},
		{"pkh([deadbeeg]" + aK + ")", "pkh(): Fingerprint 'deadbeeg' is not hex", ""},
		{"pkh([deadbeef/]" + aK + ")", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh([deadbeef/2147483648]" + aK + ")", "pkh(): Key path value 2147483648 is out of range", ""},
		{"pkh([deadbeef/2147483648h]" + aK + ")", "pkh(): Key path value 2147483648 is out of range", ""},
		{"pkh([deadbeef/2147483647h]" + aK + ")", "-", ""},
		{"pkh([deadbeef/*]" + aK + ")", "pkh(): Key path value '*' is not a valid uint32", ""},
		{"pkh([deadbeef/<0;1>]" + aK + ")", "pkh(): Key path value '<0;1>' specifies multipath in a section where multipath is not allowed", ""},
		{"pkh([deadbeef])", "pkh(): No key provided", ""},
		{"pkh([deadbeef" + aK + ")", "pkh(): key '[deadbeef" + aK + "' is not valid", ""},

		// Extended keys and paths.
		{"pkh(" + aXP + "/2147483648)", "pkh(): Key path value 2147483648 is out of range", ""},
		{"pkh(" + aXP + "/4294967295)", "pkh(): Key path value 4294967295 is out of range", ""},
		{"pkh(" + aXP + "/4294967296)", "pkh(): Key path value '4294967296' is not a valid uint32", ""},
		{"pkh(" + aXP + "/1aa)", "pkh(): Key path value '1aa' is not a valid uint32", ""},
		{"pkh(" + aXP + "/44H)", "pkh(): Key path value '44H' is not a valid uint32", ""},
		{"pkh(" + aXP + "/1'')", "pkh(): Key path value '1'' is not a valid uint32", ""},
		{"pkh(" + aXP + "/1hh)", "pkh(): Key path value '1h' is not a valid uint32", ""},
		{"pkh(" + aXP + "/-1)", "pkh(): Key path value '-1' is not a valid uint32", ""},
		{"pkh(" + aXP + "/+1)", "pkh(): Key path value '+1' is not a valid uint32", ""},
		{"pkh(" + aXP + "/)", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh(" + aXP + "//0)", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh(" + aXP + "/h)", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh(" + aXP + "/*/0)", "pkh(): Key path value '*' is not a valid uint32", ""},
		{"pkh(" + aXP + "/*/*)", "pkh(): Key path value '*' is not a valid uint32", ""},
		{"pkh(" + aXP + "/*H)", "pkh(): Key path value '*H' is not a valid uint32", ""},
		{"pkh(" + aXP + "/**)", "pkh(): Key path value '**' is not a valid uint32", ""},
		{"pkh(" + aXP + "/*'h)", "pkh(): Key path value '*'' is not a valid uint32", ""},
		{"pkh(" + aXP + "/01)", "-", "pkh(" + aXP + "/1)"},
		{"pkh(" + aXP + "/0'/1h/*)", "-", "pkh(" + aXP + "/0h/1h/*)"},
		{"pkh(" + aXP + "/0h/1'/*)", "-", "pkh(" + aXP + "/0'/1'/*)"},
		{"pkh(" + aXP + "/0'/*h)", "-", "pkh(" + aXP + "/0'/*')"},
		{"pkh(" + aXP + "/0h/*')", "-", "pkh(" + aXP + "/0h/*h)"},
		{"pkh([deadbeef/0h]" + aXP + "/1')", "-", "pkh([deadbeef/0']" + aXP + "/1')"},
		{"pkh([deadbeef/0']" + aXP + "/1h)", "-", "pkh([deadbeef/0h]" + aXP + "/1h)"},
		{"pkh(" + aXP + "x)", "pkh(): key '" + aXP + "x' is not valid", ""},
		{"pkh(" + aTP + ")", "pkh(): key '" + aTP + "' is not valid", ""},

		// Multipath steps.
		{"pkh(" + aXP + "/<0;1>/<2;3>)", "pkh(): Multiple multipath key path specifiers found", ""},
		{"pkh(" + aXP + "/<0>)", "pkh(): Multipath key path specifiers must have at least two items", ""},
		{"pkh(" + aXP + "/<>)", "pkh(): Multipath key path specifiers must have at least two items", ""},
		{"pkh(" + aXP + "/<0;>)", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<;1>)", "pkh(): Key path value '' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<0;1;0>)", "pkh(): Duplicated key path value 0 in multipath specifier", ""},
		{"pkh(" + aXP + "/<0h;0'>)", "pkh(): Duplicated key path value 2147483648 in multipath specifier", ""},
		{"pkh(" + aXP + "/<0;1>h)", "pkh(): Key path value '<0;1>' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<0;1>')", "pkh(): Key path value '<0;1>' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<0;1)", "pkh(): Key path value '<0;1' is not a valid uint32", ""},
		{"pkh(" + aXP + "/0;1>)", "pkh(): Key path value '0;1>' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<<0;1>>)", "pkh(): Key path value '<0' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<0;2147483648>)", "pkh(): Key path value 2147483648 is out of range", ""},
		{"pkh(" + aXP + "/<0;1>/*/<2;3>)", "pkh(): Key path value '*' is not a valid uint32", ""},
		{"pkh(" + aXP + "/<0h;1>/*)", "-", "pkh(" + aXP + "/<0h;1>/*)"},
		{"pkh(" + aXP + "/<0;1;2>/*h)", "-", "pkh(" + aXP + "/<0;1;2>/*h)"},
		{"pkh(" + aK + "/<0;1>)", "pkh(): key '" + aK + "' is not valid", ""},
		{"multi(1," + aXP + "/<0;1>," + aXP2 + "/<0;1;2>)", "multi(): Multipath derivation paths have mismatched lengths", ""},
		{"multi(1," + aXP + "/<0;1>," + aXP2 + "/<2;3>," + aK + ")", "-", ""},
		{"wsh(and_v(v:pk(" + aXP + "/<0;1>),pk(" + aXP2 + "/<0;1;2>)))", "Miniscript: Multipath derivation paths have mismatched lengths", ""},
		{"tr(" + aXP + "/<0;1>,pk(" + aXP2 + "/<0;1;2>))", "tr(): Multipath internal key mismatches multipath subscripts lengths", ""},
		{"tr(" + aX + ",{pk(" + aXP + "/<0;1>),pk(" + aXP2 + "/<0;1;2>)})", "tr(): Multipath subscripts have mismatched lengths", ""},
		{"tr(" + aXP + "/<0;1;2>,{pk(" + aXP + "/<3;4;5>),pk(" + aXP2 + ")})", "-", ""},

		// Multisig.
		{"multi(a," + aK + ")", "Multi threshold 'a' is not valid", ""},
		{"multi(," + aK + ")", "Multi threshold '' is not valid", ""},
		{"multi(+1," + aK + ")", "Multi threshold '+1' is not valid", ""},
		{"multi(-1," + aK + ")", "Multi threshold '-1' is not valid", ""},
		{"multi( 1," + aK + ")", "Multi threshold ' 1' is not valid", ""},
		{"multi(4294967296," + aK + ")", "Multi threshold '4294967296' is not valid", ""},
		{"multi(4294967295," + aK + ")", "Multisig threshold cannot be larger than the number of keys; threshold is 4294967295 but only 1 keys specified", ""},
		{"multi(01," + aK + ")", "-", "multi(1," + aK + ")"},
		{"multi(1)", "Cannot have 0 keys in multisig; must have between 1 and 20 keys, inclusive", ""},
		{"multi(0)", "Cannot have 0 keys in multisig; must have between 1 and 20 keys, inclusive", ""},
		{"multi(0," + aK + ")", "Multisig threshold cannot be 0, must be at least 1", ""},
		{"multi(2," + aK + ")", "Multisig threshold cannot be larger than the number of keys; threshold is 2 but only 1 keys specified", ""},
		{"multi(1,)", "Multi: No key provided", ""},
		{"multi(1," + aK + ",)", "Multi: No key provided", ""},
		{"multi(1,,)", "Multi: No key provided", ""},
		{"multi(1," + aK + ",abc)", "Multi: key 'abc' is not valid", ""},
		{"multi(1)x()", "Multi: expected ',', got ')'", ""},
		{"multi(1," + aK + "}" + aK + ")", "'multi(1," + aK + "}" + aK + "' is not a valid descriptor function", ""},
		{"multi(1," + aK + "}{" + aK + ")", "Multi: expected ',', got '}'", ""},
		{"multi(0)()", "Multi: expected ',', got ')'", ""},
		{"multi(1," + aX + ")", "Multi: Pubkey '" + aX + "' is invalid", ""},
		{"multi(1," + rep(aK, 4, ",") + ")", "Cannot have 4 pubkeys in bare multisig; only at most 3 pubkeys", ""},
		{"multi(1," + rep(aK, 3, ",") + ")", "-", ""},
		{"wsh(multi(1," + rep(aK, 21, ",") + "))", "Cannot have 21 keys in multisig; must have between 1 and 20 keys, inclusive", ""},
		{"wsh(multi(21," + rep(aK, 20, ",") + "))", "Multisig threshold cannot be larger than the number of keys; threshold is 21 but only 20 keys specified", ""},
		{"sh(multi(1," + rep(aK, 15, ",") + "))", "-", ""},
		{"sh(multi(1," + rep(aK, 16, ",") + "))", "P2SH script is too large, 547 bytes is larger than 520 bytes", ""},
		{"sh(multi(1," + rep(aU, 7, ",") + "))", "-", ""},
		{"sh(multi(1," + rep(aU, 8, ",") + "))", "P2SH script is too large, 531 bytes is larger than 520 bytes", ""},
		{"sh(sortedmulti(1," + rep(aK, 16, ",") + "))", "P2SH script is too large, 547 bytes is larger than 520 bytes", ""},
		{"sh(wsh(multi(1," + rep(aK, 20, ",") + ")))", "-", ""},
		{"wsh(multi(1," + aU + "))", "Multi: Uncompressed keys are not allowed", ""},
		{"tr(" + aX + ",multi_a(1," + aU + "))", "Multi: Uncompressed keys are not allowed", ""},
		{"tr(" + aX + ",multi_a(1," + aK + "))", "-", ""},
		{"tr(" + aX + ",multi_a(1))", "Cannot have 0 keys in multi_a; must have between 1 and 999 keys, inclusive", ""},
		{"tr(" + aX + ",multi_a(0," + aX + "))", "Multisig threshold cannot be 0, must be at least 1", ""},
		{"tr(" + aX + ",sortedmulti_a(2," + aX + "))", "Multisig threshold cannot be larger than the number of keys; threshold is 2 but only 1 keys specified", ""},
		{"tr(" + aX + ",multi_a(1," + rep(aX, 1000, ",") + "))", "Cannot have 1000 keys in multi_a; must have between 1 and 999 keys, inclusive", ""},
		{"tr(" + aX + ",multi_a(1," + aX + ",musig(" + aK + "," + aK2 + ")))", "-", ""},

		// tr() and rawtr().
		{"tr()", "tr(): No key provided", ""},
		{"tr(" + aK + ")", "-", "tr(" + aK + ")"},
		{"tr(" + aW + ")", "-", "tr(" + aX + ")"},
		{"tr(" + aU + ")", "tr(): Uncompressed keys are not allowed", ""},
		{"tr(" + aWU + ")", "tr(): Uncompressed keys are not allowed", ""},
		{"tr(" + aH + ")", "tr(): Hybrid public keys are not allowed", ""},
		{"tr(" + aBad + ")", "tr(): Pubkey '" + aBad + "' is invalid", ""},
		{"tr(" + aX + ",)", "'' is not a valid descriptor function", ""},
		{"tr(" + aX + ",{})", "'' is not a valid descriptor function", ""},
		{"tr(" + aX + ",{pk(" + aX + "),})", "'' is not a valid descriptor function", ""},
		{"tr(" + aX + " pk(" + aX + "))", "tr(): key '" + aX + " pk(" + aX + ")' is not valid", ""},
		{"tr(" + aX + "{pk(" + aX + ")})", "tr(): key '" + aX + "{pk(" + aX + ")}' is not valid", ""},
		{"tr(" + aX + ",pk(" + aX + ")x)", "'pk(" + aX + ")x' is not a valid descriptor function", ""},
		{"tr(" + aX + ",pk(" + aX + ")", "'pk(" + aX + "' is not a valid descriptor function", ""},
		{"tr(" + aX + ",pk(" + aX + "),pk(" + aX + "))", "tr(): expected ')' after script expression", ""},
		{"tr(" + aX + ",pk(" + aX + ")})", "'tr(" + aX + ",pk(" + aX + ")}' is not a valid descriptor function", ""},
		{"tr(" + aX + ",{pk(" + aX + "),pk(" + aX + ")},pk(" + aX + "))", "tr(): expected ')' after script expression", ""},
		{"tr(" + aX + ",{pk(" + aX + ")})", "tr(): expected ',' after script expression", ""},
		{"tr(" + aX + ",{pk(" + aX + ")}", "'tr(" + aX + ",{pk(" + aX + ")}' is not a valid descriptor function", ""},
		{"tr(" + aX + ",{pk(" + aX + "),pk(" + aX + "))", "tr(): expected '}' after script expression", ""},
		{"tr(" + aX + ",{pk(" + aX + "),{pk(" + aX + "),pk(" + aX + ")})", "tr(): expected '}' after script expression", ""},
		{"tr(" + aX + ";pk(" + aX + "))", "tr(): key '" + aX + ";pk(" + aX + ")' is not valid", ""},
		{"tr(" + aX + "x,pk(" + aX + "))", "tr(): key '" + aX + "x' is not valid", ""},
		{"tr(" + aX + ",{{pk(" + aX + "),pk(" + aX + ")},pk(" + aX + ")})", "-", ""},
		{"tr(" + aX + ",pk())", "pk(): No key provided", ""},
		{"tr(" + aX + ",pk(" + aU + "))", "pk(): Uncompressed keys are not allowed", ""},
		{"tr(" + aX + ",pk(" + aK + "))", "-", "tr(" + aX + ",pk(" + aK + "))"},
		{"tr(" + aX + ",pk(abc))", "pk(): key 'abc' is not valid", ""},
		{"tr(" + aX + ",pkh(abc))", "key 'abc' is not valid", ""},
		{"tr(" + aX + ",pkh())", "'pkh()' is not a valid descriptor function", ""},
		{"tr(" + aX + ",pkh(" + aU + "))", "Uncompressed keys are not allowed", ""},
		{"tr(" + aX + ",foo)", "'foo' is not a valid descriptor function", ""},
		{deep, "-", ""},
		{tooDeep, "tr() supports at most 128 nesting levels", ""},
		{"rawtr()", "rawtr(): No key provided", ""},
		{"rawtr(" + aX + "," + aX + ")", "rawtr(): only one key expected.", ""},
		{"rawtr(abc," + aX + ")", "rawtr(): only one key expected.", ""},
		{"rawtr(" + aU + ")", "rawtr(): Uncompressed keys are not allowed", ""},
		{"rawtr(" + aBad + ")", "rawtr(): Pubkey '" + aBad + "' is invalid", ""},
		{"rawtr(" + aX + "))", "", ""},
		{"rawtr(" + aK + ")", "-", "rawtr(" + aK + ")"},
		{"rawtr(" + aW + ")", "-", "rawtr(" + aX + ")"},

		// musig().
		{"pk(musig(" + aK + "," + aK2 + "))", "pk(): musig() is only allowed in tr() and rawtr()", ""},
		{"pkh(musig(" + aK + "," + aK2 + "))", "pkh(): musig() is only allowed in tr() and rawtr()", ""},
		{"combo(musig(" + aK + "," + aK2 + "))", "combo(): musig() is only allowed in tr() and rawtr()", ""},
		{"wpkh(musig(" + aK + "," + aK2 + "))", "wpkh(): musig() is only allowed in tr() and rawtr()", ""},
		{"sh(wpkh(musig(" + aK + "," + aK2 + ")))", "wpkh(): musig() is only allowed in tr() and rawtr()", ""},
		{"multi(1,musig(" + aK + "," + aK2 + "))", "Multi: musig() is only allowed in tr() and rawtr()", ""},
		{"wsh(pk(musig(" + aK + "," + aK2 + ")))", "pk(): musig() is only allowed in tr() and rawtr()", ""},
		{"wsh(musig(" + aK + "," + aK2 + "))", "A function is needed within P2WSH", ""},
		{"sh(musig(" + aK + "," + aK2 + "))", "A function is needed within P2SH", ""},
		{"musig(" + aK + "," + aK2 + ")", "'musig(" + aK + "," + aK2 + ")' is not a valid descriptor function", ""},
		{"wsh(pk_k(musig(" + aK + "," + aK2 + ")))", "musig() is only allowed in tr() and rawtr()", ""},
		{"wsh(and_v(v:pk(musig(" + aK + "," + aK2 + ")),older(1)))", "musig() is only allowed in tr() and rawtr()", ""},
		{"tr(" + aX + ",pk_k(musig(" + aK + "," + aK2 + ")))", "Invalid musig() expression", ""},
		{"and_v(v:pk(musig(" + aK + "," + aK2 + ")),older(1))", "Invalid musig() expression", ""},
		{"sh(and_v(v:pk(musig(" + aK + "," + aK2 + ")),older(1)))", "Invalid musig() expression", ""},
		{"tr(" + aX + ",and_v(v:pk(musig(" + aK + "," + aK2 + ")),older(1)))", "Invalid musig() expression", ""},
		{"pk(00)", "pk(): Pubkey '00' is invalid", ""},
		{"pk(0)", "pk(): key '0' is not valid", ""},
		{"pkh(" + aXP + "/<0';1h>/*)", "-", "pkh(" + aXP + "/<0h;1h>/*)"},
		{"pkh(" + aXP + "/<0h;1'>/*)", "-", "pkh(" + aXP + "/<0';1'>/*)"},
		{"pkh([deadbeef/0'/1h]" + aK + ")", "-", "pkh([deadbeef/0h/1h]" + aK + ")"},
		{"pkh([deadbeef/0']" + aXP + "/1)", "-", "pkh([deadbeef/0']" + aXP + "/1)"},
		{"tr(" + aX + ",pk(musig(" + aK + "," + aK2 + ")))", "-", ""},
		{"tr(musig(" + aK + "," + aK2 + "))", "-", "tr(musig(" + aK + "," + aK2 + "))"},
		{"tr(musig(" + aK + "))", "-", ""},
		{"tr(musig(" + aW + "," + aK2 + "))", "-", "tr(musig(" + aK + "," + aK2 + "))"},
		{"rawtr(musig(" + aK + "," + aK2 + "))", "-", ""},
		{"tr(musig())", "tr(): musig(): Must contain key expressions", ""},
		{"rawtr(musig())", "rawtr(): musig(): Must contain key expressions", ""},
		{"tr(musig(," + aK + "))", "tr(): musig(): No key provided", ""},
		{"tr(musig(" + aK + ",," + aK2 + "))", "tr(): musig(): No key provided", ""},
		{"tr(musig(" + aK + "}" + aK2 + "))", "tr(): Invalid musig() expression", ""},
		{"tr(musig(" + aK + "}{" + aK2 + "))", "tr(): musig(): expected ',', got '}'", ""},
		{"pk(musig(dd}uue/00/)k(", "Invalid musig() expression", ""},
		{"tr(musig(" + aK + ";" + aK2 + "))", "tr(): musig(): key '" + aK + ";" + aK2 + "' is not valid", ""},
		{"tr(musig(" + aK + "," + aU + "))", "tr(): musig(): Uncompressed keys are not allowed", ""},
		{"tr(musig(" + aK + "," + aWU + "))", "tr(): musig(): Uncompressed keys are not allowed", ""},
		{"tr(musig(" + aK + "," + aX + "))", "tr(): musig(): Pubkey '" + aX + "' is invalid", ""},
		{"tr(musig(" + aK + "," + aH + "))", "tr(): musig(): Hybrid public keys are not allowed", ""},
		{"tr(musig(" + aK + ",abc))", "tr(): musig(): key 'abc' is not valid", ""},
		{"tr(musig(" + aK + ", " + aK2 + "))", "tr(): musig(): Key ' " + aK2 + "' is invalid due to whitespace", ""},
		{"tr(musig(musig(" + aK + "," + aK2 + ")," + aK3 + "))", "tr(): Too many ')' in musig() expression", ""},
		{"tr(musig(" + aK + "," + aK2 + ")/0)", "tr(): musig(): derivation requires all participants to be xpubs or xprvs", ""},
		{"tr(musig(" + aK + "," + aK2 + "))", "-", ""},
		{"tr(musig(" + aK + "," + aK2 + ")", "tr(): Invalid musig() expression", ""},
		{"tr(musig(" + aK + "," + aK2 + ")))", "", ""},
		{"tr([deadbeef]musig(" + aK + "," + aK2 + "))", "tr(): key 'musig(" + aK + "," + aK2 + ")' is not valid", ""},
		{"tr(musig(" + aXP + "/0/*," + aXP2 + ")/0)", "tr(): musig(): Cannot have ranged participant keys if musig() also has derivation", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/0h)", "tr(): musig(): cannot have hardened derivation steps", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/0'/1)", "tr(): musig(): cannot have hardened derivation steps", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/*h)", "tr(): musig(): Cannot have hardened child derivation", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/*')", "tr(): musig(): Cannot have hardened child derivation", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/)", "tr(): musig(): Key path value '' is not a valid uint32", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/2147483648)", "tr(): musig(): Key path value 2147483648 is out of range", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/<0;1>/<2;3>)", "tr(): musig(): Multiple multipath key path specifiers found", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/<0>)", "tr(): musig(): Multipath key path specifiers must have at least two items", ""},
		{"tr(musig(" + aXP + "/<0;1>," + aXP2 + ")/<0;1>)", "tr(): musig(): Cannot have multipath participant keys if musig() is also multipath", ""},
		{"tr(musig(" + aXP + "/<0;1>," + aXP2 + "/<0;1;2>))", "tr(): musig(): Multipath derivation paths have mismatched lengths", ""},
		{"tr(musig(" + aXP + "/<0;1>," + aXP2 + "/<2;3>))", "-", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/<0;1>/*)", "-", ""},
		{"tr(musig(" + aXV + "," + aXP2 + ")/0/*)", "-", "tr(musig(" + aXP + "," + aXP2 + ")/0/*)"},
		{"tr(musig([deadbeef/0h]" + aXP + "/0h," + aXP2 + "))", "-", ""},
		{"tr(musig(" + aW + "," + aXP + ")/0)", "tr(): musig(): derivation requires all participants to be xpubs or xprvs", ""},
		{"tr(musig(" + aXP + "," + aXP2 + ")/0,pk(" + aX + "))", "-", ""},
		{"tr(musig(" + aK + "," + aK2 + ")x)", "-", "tr(musig(" + aK + "," + aK2 + "))"},
		{"tr(musig(" + aXP + "/<0;1>," + aXP2 + "),pk(" + aXP + "/<0;1;2>))", "tr(): Multipath internal key mismatches multipath subscripts lengths", ""},

		// Miniscript sanity messages.
		{"wsh(older(1))", "older(1) is not sane: witnesses without signature exist", ""},
		{"wsh(or_b(pk(" + aK + "),s:pk(" + aK + ")))", "or_b(pk(" + aK + "),s:pk(" + aK + ")) is not sane: contains duplicate public keys", ""},
		// The top node is checked for a signature before its timelocks.
		{"wsh(and_b(older(1),a:older(100000000)))", "and_b(older(1),a:older(100000000)) is not sane: witnesses without signature exist", ""},
		{"wsh(and_v(v:pk(" + aK + "),and_b(older(1),a:older(100000000))))", "and_b(older(1),a:older(100000000)) is not sane: contains mixes of timelocks expressed in blocks and seconds", ""},
		{"wsh(pk_k(abc))", "key 'abc' is not valid", ""},
		{"wsh(pk_k(" + aX + "))", "Pubkey '" + aX + "' is invalid", ""},
		{"tr(" + aX + ",pk_k(" + aX + "))", "pk_k(" + aX + ") is not sane", ""},
	}
}

func TestAuditParse(t *testing.T) {
	net := &chaincfg.MainNetParams
	for _, c := range auditCases() {
		name := c.in
		if len(name) > 90 {
			name = name[:90]
		}
		d, err := Parse(c.in, net)
		if c.want == "-" {
			if err != nil {
				t.Errorf("%s: error %q, want success", name, err)
				continue
			}
			if c.str != "" {
				if got := d.String(); got != AddChecksum(c.str) {
					t.Errorf("%s: String\n got %s\nwant %s", name, got, AddChecksum(c.str))
				}
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: parses, want error %q", name, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", name, err.Error(), c.want)
		}
		var de *Error
		if !errors.As(err, &de) {
			t.Errorf("%s: error is %T, not *Error", name, err)
		}
	}
}

func TestAuditChecksum(t *testing.T) {
	net := &chaincfg.MainNetParams
	body := "pk(" + aK + ")"
	sum, err := Checksum(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(body, net, RequireChecksum()); err == nil || err.Error() != "Missing checksum" {
		t.Errorf("missing checksum: %v", err)
	}
	if _, err := Parse(body+"#"+sum, net, RequireChecksum()); err != nil {
		t.Errorf("with checksum: %v", err)
	}
	up := strings.ToUpper(sum)
	want := "Provided checksum '" + up + "' does not match computed checksum '" + sum + "'"
	if _, err := Parse(body+"#"+up, net); err == nil || err.Error() != want {
		t.Errorf("upper-case checksum: %v", err)
	}
	// The checksum part is compared, not checked against the character set.
	want = "Provided checksum 'ééé\x41\x41' does not match computed checksum '" + sum + "'"
	if _, err := Parse(body+"#éééAA", net); err == nil || err.Error() != want {
		t.Errorf("non-ASCII checksum: %v", err)
	}
	// An empty payload has a checksum of its own.
	empty, _ := Checksum("")
	want = "Provided checksum 'qqqqqqqq' does not match computed checksum '" + empty + "'"
	if _, err := Parse("#qqqqqqqq", net); err == nil || err.Error() != want {
		t.Errorf("empty payload: %v", err)
	}
	if _, err := Parse("#"+empty, net); err == nil || err.Error() != "'' is not a valid descriptor function" {
		t.Errorf("empty payload with its checksum: %v", err)
	}
	// Multiple '#' is reported before a missing or bad checksum.
	if _, err := Parse("raw(é)#a#b", net, RequireChecksum()); err == nil || err.Error() != "Multiple '#' symbols" {
		t.Errorf("multiple #: %v", err)
	}
}
