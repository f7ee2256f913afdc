package script

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxScriptSize is the largest script the interpreter runs (Core's
// MAX_SCRIPT_SIZE); a longer one is unspendable.
const MaxScriptSize = 10000

// MaxElementSize is the largest push the interpreter allows (Core's
// MAX_SCRIPT_ELEMENT_SIZE).
const MaxElementSize = 520

// maxOpcode is the highest opcode a script may hold and still have valid
// operations (Core's MAX_OPCODE, OP_NOP10).
const maxOpcode = 0xb9

// opNames holds Core's GetOpName for every named opcode above OP_16.
var opNames = map[byte]string{
	0x50: "OP_RESERVED", 0x61: "OP_NOP", 0x62: "OP_VER", 0x63: "OP_IF",
	0x64: "OP_NOTIF", 0x65: "OP_VERIF", 0x66: "OP_VERNOTIF", 0x67: "OP_ELSE",
	0x68: "OP_ENDIF", 0x69: "OP_VERIFY", 0x6a: "OP_RETURN",
	0x6b: "OP_TOALTSTACK", 0x6c: "OP_FROMALTSTACK", 0x6d: "OP_2DROP",
	0x6e: "OP_2DUP", 0x6f: "OP_3DUP", 0x70: "OP_2OVER", 0x71: "OP_2ROT",
	0x72: "OP_2SWAP", 0x73: "OP_IFDUP", 0x74: "OP_DEPTH", 0x75: "OP_DROP",
	0x76: "OP_DUP", 0x77: "OP_NIP", 0x78: "OP_OVER", 0x79: "OP_PICK",
	0x7a: "OP_ROLL", 0x7b: "OP_ROT", 0x7c: "OP_SWAP", 0x7d: "OP_TUCK",
	0x7e: "OP_CAT", 0x7f: "OP_SUBSTR", 0x80: "OP_LEFT", 0x81: "OP_RIGHT",
	0x82: "OP_SIZE", 0x83: "OP_INVERT", 0x84: "OP_AND", 0x85: "OP_OR",
	0x86: "OP_XOR", 0x87: "OP_EQUAL", 0x88: "OP_EQUALVERIFY",
	0x89: "OP_RESERVED1", 0x8a: "OP_RESERVED2", 0x8b: "OP_1ADD",
	0x8c: "OP_1SUB", 0x8d: "OP_2MUL", 0x8e: "OP_2DIV", 0x8f: "OP_NEGATE",
	0x90: "OP_ABS", 0x91: "OP_NOT", 0x92: "OP_0NOTEQUAL", 0x93: "OP_ADD",
	0x94: "OP_SUB", 0x95: "OP_MUL", 0x96: "OP_DIV", 0x97: "OP_MOD",
	0x98: "OP_LSHIFT", 0x99: "OP_RSHIFT", 0x9a: "OP_BOOLAND",
	0x9b: "OP_BOOLOR", 0x9c: "OP_NUMEQUAL", 0x9d: "OP_NUMEQUALVERIFY",
	0x9e: "OP_NUMNOTEQUAL", 0x9f: "OP_LESSTHAN", 0xa0: "OP_GREATERTHAN",
	0xa1: "OP_LESSTHANOREQUAL", 0xa2: "OP_GREATERTHANOREQUAL", 0xa3: "OP_MIN",
	0xa4: "OP_MAX", 0xa5: "OP_WITHIN", 0xa6: "OP_RIPEMD160", 0xa7: "OP_SHA1",
	0xa8: "OP_SHA256", 0xa9: "OP_HASH160", 0xaa: "OP_HASH256",
	0xab: "OP_CODESEPARATOR", 0xac: "OP_CHECKSIG", 0xad: "OP_CHECKSIGVERIFY",
	0xae: "OP_CHECKMULTISIG", 0xaf: "OP_CHECKMULTISIGVERIFY", 0xb0: "OP_NOP1",
	0xb1: "OP_CHECKLOCKTIMEVERIFY", 0xb2: "OP_CHECKSEQUENCEVERIFY",
	0xb3: "OP_NOP4", 0xb4: "OP_NOP5", 0xb5: "OP_NOP6", 0xb6: "OP_NOP7",
	0xb7: "OP_NOP8", 0xb8: "OP_NOP9", 0xb9: "OP_NOP10", 0xba: "OP_CHECKSIGADD",
	0xff: "OP_INVALIDOPCODE",
}

// sighashNames are the sighash types Core's asm decodes after a signature.
var sighashNames = map[byte]string{
	0x01: "ALL", 0x81: "ALL|ANYONECANPAY",
	0x02: "NONE", 0x82: "NONE|ANYONECANPAY",
	0x03: "SINGLE", 0x83: "SINGLE|ANYONECANPAY",
}

// Asm renders a script as Core's ScriptToAsmStr does: pushes of at most 4
// bytes as script numbers, longer pushes as hex, OP_1NEGATE..OP_16 as
// numbers, other opcodes by name, and "[error]" where the script stops
// parsing. With sighashDecode (used for scriptSigs), a push that is a
// strictly encoded DER signature with a defined sighash type is written as
// the signature's hex followed by the type's name in brackets, unless the
// script is unspendable.
func Asm(scr []byte, sighashDecode bool) string {
	var sb strings.Builder
	decode := sighashDecode && !IsUnspendable(scr)
	for pc := 0; pc < len(scr); {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		op, data, next, ok := NextOp(scr, pc)
		if !ok {
			sb.WriteString("[error]")
			break
		}
		pc = next
		switch {
		case op <= OpPushData4:
			if len(data) <= 4 {
				sb.WriteString(strconv.FormatInt(asmNum(data), 10))
				break
			}
			if decode && IsValidSignatureEncoding(data) {
				if name, ok := sighashNames[data[len(data)-1]]; ok {
					sb.WriteString(hex.EncodeToString(data[:len(data)-1]))
					sb.WriteString("[" + name + "]")
					break
				}
			}
			sb.WriteString(hex.EncodeToString(data))
		case op == Op1Negate:
			sb.WriteString("-1")
		case op >= Op1 && op <= Op16:
			sb.WriteString(strconv.Itoa(int(op - 0x50)))
		default:
			if name, ok := opNames[op]; ok {
				sb.WriteString(name)
			} else {
				sb.WriteString("OP_UNKNOWN")
			}
		}
	}
	return sb.String()
}

// asmNum decodes up to 4 bytes as a script number (little-endian
// magnitude, sign in the top bit of the last byte), minimal or not.
func asmNum(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	var v int64
	for i, c := range b {
		v |= int64(c) << (8 * i)
	}
	if b[len(b)-1]&0x80 != 0 {
		return -(v &^ (int64(0x80) << (8 * (len(b) - 1))))
	}
	return v
}

// IsUnspendable reports whether a script can never be spent: it begins
// with OP_RETURN or is longer than MaxScriptSize (Core's IsUnspendable).
func IsUnspendable(scr []byte) bool {
	return (len(scr) > 0 && scr[0] == OpReturn) || len(scr) > MaxScriptSize
}

// HasValidOps reports whether every operation of the script parses, is at
// most OP_NOP10 and pushes at most MaxElementSize bytes (Core's
// HasValidOps).
func HasValidOps(scr []byte) bool {
	for pc := 0; pc < len(scr); {
		op, data, next, ok := NextOp(scr, pc)
		if !ok || op > maxOpcode || len(data) > MaxElementSize {
			return false
		}
		pc = next
	}
	return true
}

// IsValidSignatureEncoding reports whether sig is a strict DER ECDSA
// signature followed by one sighash byte (BIP 66), as Core's
// IsValidSignatureEncoding checks it.
func IsValidSignatureEncoding(sig []byte) bool {
	// 0x30 len 0x02 rlen r 0x02 slen s hashtype
	n := len(sig)
	if n < 9 || n > 73 || sig[0] != 0x30 || int(sig[1]) != n-3 {
		return false
	}
	lenR := int(sig[3])
	if 5+lenR >= n {
		return false
	}
	lenS := int(sig[5+lenR])
	if lenR+lenS+7 != n {
		return false
	}
	if sig[2] != 0x02 || lenR == 0 || sig[4]&0x80 != 0 {
		return false
	}
	if lenR > 1 && sig[4] == 0 && sig[5]&0x80 == 0 {
		return false
	}
	if sig[lenR+4] != 0x02 || lenS == 0 || sig[lenR+6]&0x80 != 0 {
		return false
	}
	if lenS > 1 && sig[lenR+6] == 0 && sig[lenR+7]&0x80 == 0 {
		return false
	}
	return true
}
