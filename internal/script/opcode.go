package script

import "encoding/binary"

// Opcodes used by the standard templates and by descriptor scripts. The
// values are Bitcoin's; the names follow Go conventions.
const (
	Op0             byte = 0x00
	OpPushData1     byte = 0x4c
	OpPushData2     byte = 0x4d
	OpPushData4     byte = 0x4e
	Op1Negate       byte = 0x4f
	OpReserved      byte = 0x50
	Op1             byte = 0x51
	Op16            byte = 0x60
	OpVerify        byte = 0x69
	OpReturn        byte = 0x6a
	OpDup           byte = 0x76
	OpEqual         byte = 0x87
	OpEqualVerify   byte = 0x88
	OpNumEqual      byte = 0x9c
	OpHash160       byte = 0xa9
	OpCheckSig      byte = 0xac
	OpCheckMultisig byte = 0xae
	OpCheckSigAdd   byte = 0xba
	OpInvalid       byte = 0xff
)

// MaxPubKeysPerMultisig is the largest key count of a bare multisig script
// (Core's MAX_PUBKEYS_PER_MULTISIG).
const MaxPubKeysPerMultisig = 20

// MaxPubKeysPerMultiA is the largest key count of a tapscript multi_a script
// (Core's MAX_PUBKEYS_PER_MULTI_A).
const MaxPubKeysPerMultiA = 999

// SmallIntOp returns the opcode that pushes n, for 0 <= n <= 16 (OP_0,
// OP_1 ... OP_16). It panics outside that range.
func SmallIntOp(n int) byte {
	switch {
	case n == 0:
		return Op0
	case n >= 1 && n <= 16:
		return Op1 + byte(n-1)
	}
	panic("script: small integer out of range")
}

// SmallIntValue returns the number an OP_0 or OP_1..OP_16 opcode pushes, and
// false for any other opcode.
func SmallIntValue(op byte) (int, bool) {
	switch {
	case op == Op0:
		return 0, true
	case op >= Op1 && op <= Op16:
		return int(op-Op1) + 1, true
	}
	return 0, false
}

// NextOp reads the operation starting at offset pc of script, with Core's
// GetScriptOp rules: a push opcode (0x00-0x4e) is followed by its data,
// every other opcode stands alone. It returns the opcode, the pushed data
// (nil for non-push opcodes, empty for OP_0), the offset of the following
// operation, and false when pc is at or past the end or the push runs past
// the end of the script.
func NextOp(script []byte, pc int) (op byte, data []byte, next int, ok bool) {
	if pc < 0 || pc >= len(script) {
		return OpInvalid, nil, pc, false
	}
	op = script[pc]
	pc++
	if op > OpPushData4 {
		return op, nil, pc, true
	}
	var size int
	switch op {
	case OpPushData1:
		if len(script)-pc < 1 {
			return OpInvalid, nil, pc, false
		}
		size = int(script[pc])
		pc++
	case OpPushData2:
		if len(script)-pc < 2 {
			return OpInvalid, nil, pc, false
		}
		size = int(binary.LittleEndian.Uint16(script[pc:]))
		pc += 2
	case OpPushData4:
		if len(script)-pc < 4 {
			return OpInvalid, nil, pc, false
		}
		n := binary.LittleEndian.Uint32(script[pc:])
		pc += 4
		if uint64(n) > uint64(len(script)-pc) {
			return OpInvalid, nil, pc, false
		}
		size = int(n)
	default:
		size = int(op)
	}
	if len(script)-pc < size {
		return OpInvalid, nil, pc, false
	}
	return op, script[pc : pc+size : pc+size], pc + size, true
}

// IsPushOnly reports whether script consists only of data pushes, with
// Core's meaning: every operation parses and is an opcode no greater than
// OP_16 (OP_1NEGATE, OP_RESERVED and OP_1..OP_16 count as pushes).
func IsPushOnly(script []byte) bool {
	for pc := 0; pc < len(script); {
		op, _, next, ok := NextOp(script, pc)
		if !ok || op > Op16 {
			return false
		}
		pc = next
	}
	return true
}

// CheckMinimalPush reports whether data is pushed by op in the shortest
// possible way (BIP 62): empty data with OP_0, the values 1..16 and 0x81
// with their OP_n/OP_1NEGATE opcodes (so never by a push opcode), other data
// up to 75 bytes with a direct push, then OP_PUSHDATA1, OP_PUSHDATA2.
func CheckMinimalPush(data []byte, op byte) bool {
	switch n := len(data); {
	case n == 0:
		return op == Op0
	case n == 1 && data[0] >= 1 && data[0] <= 16:
		return false
	case n == 1 && data[0] == 0x81:
		return false
	case n <= 75:
		return int(op) == n
	case n <= 255:
		return op == OpPushData1
	case n <= 65535:
		return op == OpPushData2
	}
	return true
}

// decodeMinimalNum decodes a script number of at most 4 bytes that is
// minimally encoded (Core's CScriptNum with fRequireMinimal), and reports
// false otherwise.
func decodeMinimalNum(data []byte) (int64, bool) {
	if len(data) > 4 {
		return 0, false
	}
	if len(data) == 0 {
		return 0, true
	}
	last := data[len(data)-1]
	if last&0x7f == 0 && (len(data) <= 1 || data[len(data)-2]&0x80 == 0) {
		return 0, false
	}
	var v int64
	for i, b := range data {
		v |= int64(b) << (8 * i)
	}
	if last&0x80 != 0 {
		return -(v &^ (int64(0x80) << (8 * (len(data) - 1)))), true
	}
	return v, true
}

// scriptNumber reads a number in [min, max] from an operation, written
// either as OP_1..OP_16 or as a minimal push of a minimally encoded number
// (Core's GetScriptNumber). OP_0 is not accepted.
func scriptNumber(op byte, data []byte, min, max int64) (int64, bool) {
	var n int64
	switch {
	case op >= Op1 && op <= Op16:
		n = int64(op-Op1) + 1
	case op > Op0 && op <= OpPushData4:
		if !CheckMinimalPush(data, op) {
			return 0, false
		}
		v, ok := decodeMinimalNum(data)
		if !ok {
			return 0, false
		}
		n = v
	default:
		return 0, false
	}
	if n < min || n > max {
		return 0, false
	}
	return n, true
}
