package script

import "bytes"

// Class is the type of an output script, named as Bitcoin Core names its
// TxoutType values in RPC results.
type Class string

// The classes Solve returns.
const (
	Nonstandard         Class = "nonstandard"
	PubKey              Class = "pubkey"
	PubKeyHash          Class = "pubkeyhash"
	ScriptHash          Class = "scripthash"
	Multisig            Class = "multisig"
	NullData            Class = "nulldata"
	Anchor              Class = "anchor"
	WitnessV0KeyHash    Class = "witness_v0_keyhash"
	WitnessV0ScriptHash Class = "witness_v0_scripthash"
	WitnessV1Taproot    Class = "witness_v1_taproot"
	WitnessUnknown      Class = "witness_unknown"
)

// String returns Core's name of the class.
func (c Class) String() string { return string(c) }

// anchorScript is the pay-to-anchor output script: OP_1 <0x4e73>.
var anchorScript = []byte{Op1, 0x02, 0x4e, 0x73}

// Solve classifies script and returns Core's solutions for it (see the
// package documentation for their layout). The returned slices alias
// script except for multisig's m and n bytes and witness_unknown's version
// byte.
func Solve(script []byte) (Class, [][]byte) {
	// P2SH is checked first: OP_HASH160 <20> OP_EQUAL.
	if isPayToScriptHash(script) {
		return ScriptHash, [][]byte{script[2:22]}
	}

	if version, program, ok := IsWitnessProgram(script); ok {
		switch {
		case version == 0 && len(program) == 20:
			return WitnessV0KeyHash, [][]byte{program}
		case version == 0 && len(program) == 32:
			return WitnessV0ScriptHash, [][]byte{program}
		case version == 1 && len(program) == 32:
			return WitnessV1Taproot, [][]byte{program}
		case bytes.Equal(script, anchorScript):
			return Anchor, nil
		case version != 0:
			return WitnessUnknown, [][]byte{{byte(version)}, program}
		}
		return Nonstandard, nil
	}

	// Provably unspendable data carrier: OP_RETURN then pushes only.
	if len(script) >= 1 && script[0] == OpReturn && IsPushOnly(script[1:]) {
		return NullData, nil
	}

	if key, ok := matchPayToPubKey(script); ok {
		return PubKey, [][]byte{key}
	}
	if isPayToPubKeyHash(script) {
		return PubKeyHash, [][]byte{script[3:23]}
	}
	if m, keys, ok := matchMultisig(script); ok {
		sol := make([][]byte, 0, len(keys)+2)
		sol = append(sol, []byte{byte(m)})
		sol = append(sol, keys...)
		sol = append(sol, []byte{byte(len(keys))})
		return Multisig, sol
	}
	return Nonstandard, nil
}

// IsWitnessProgram reports whether script is a segwit output: a version
// opcode (OP_0 or OP_1..OP_16) followed by one direct push of 2 to 40
// bytes filling the rest of the script. It returns the version and the
// program.
func IsWitnessProgram(script []byte) (version int, program []byte, ok bool) {
	if len(script) < 4 || len(script) > 42 {
		return 0, nil, false
	}
	v, isSmall := SmallIntValue(script[0])
	if !isSmall {
		return 0, nil, false
	}
	if int(script[1])+2 != len(script) {
		return 0, nil, false
	}
	return v, script[2:], true
}

// ValidPubKeySize reports whether key has the length its first byte
// announces: 33 for 02/03, 65 for 04/06/07 (Core's CPubKey::ValidSize).
func ValidPubKeySize(key []byte) bool {
	if len(key) == 0 {
		return false
	}
	switch key[0] {
	case 2, 3:
		return len(key) == 33
	case 4, 6, 7:
		return len(key) == 65
	}
	return false
}

func isPayToScriptHash(s []byte) bool {
	return len(s) == 23 && s[0] == OpHash160 && s[1] == 20 && s[22] == OpEqual
}

func isPayToPubKeyHash(s []byte) bool {
	return len(s) == 25 && s[0] == OpDup && s[1] == OpHash160 &&
		s[2] == 20 && s[23] == OpEqualVerify && s[24] == OpCheckSig
}

func matchPayToPubKey(s []byte) ([]byte, bool) {
	if len(s) == 67 && s[0] == 65 && s[66] == OpCheckSig {
		key := s[1:66]
		return key, ValidPubKeySize(key)
	}
	if len(s) == 35 && s[0] == 33 && s[34] == OpCheckSig &&
		(s[1] == 2 || s[1] == 3) {
		return s[1:34], true
	}
	return nil, false
}

// matchMultisig recognises <m> <key>... <n> OP_CHECKMULTISIG with Core's
// rules: 1 <= m <= n <= 20, n equal to the number of keys, each key of a
// valid size.
func matchMultisig(s []byte) (int, [][]byte, bool) {
	if len(s) < 1 || s[len(s)-1] != OpCheckMultisig {
		return 0, nil, false
	}
	op, data, pc, ok := NextOp(s, 0)
	if !ok {
		return 0, nil, false
	}
	m, ok := scriptNumber(op, data, 1, MaxPubKeysPerMultisig)
	if !ok {
		return 0, nil, false
	}
	var keys [][]byte
	for {
		op, data, pc, ok = NextOp(s, pc)
		if !ok || !ValidPubKeySize(data) {
			break
		}
		keys = append(keys, data)
	}
	if !ok {
		return 0, nil, false
	}
	n, ok := scriptNumber(op, data, m, MaxPubKeysPerMultisig)
	if !ok || int(n) != len(keys) {
		return 0, nil, false
	}
	return int(m), keys, pc+1 == len(s)
}

// MatchMultiA recognises a tapscript multi_a script,
// <key1> OP_CHECKSIG <key2> OP_CHECKSIGADD ... <keyN> OP_CHECKSIGADD <k>
// OP_NUMEQUAL, with x-only 32-byte keys, 1 <= N <= 999 and 1 <= k <= N
// (Core's MatchMultiA). It returns k and the keys in script order.
func MatchMultiA(s []byte) (int, [][]byte, bool) {
	if len(s) == 0 || s[0] != 32 || s[len(s)-1] != OpNumEqual {
		return 0, nil, false
	}
	var keys [][]byte
	pc := 0
	for len(s)-pc >= 34 {
		if s[pc] != 32 {
			return 0, nil, false
		}
		keys = append(keys, s[pc+1:pc+33])
		want := OpCheckSigAdd
		if len(keys) == 1 {
			want = OpCheckSig
		}
		if s[pc+33] != want {
			return 0, nil, false
		}
		pc += 34
	}
	if len(keys) == 0 || len(keys) > MaxPubKeysPerMultiA {
		return 0, nil, false
	}
	op, data, next, ok := NextOp(s, pc)
	if !ok || next != len(s)-1 {
		return 0, nil, false
	}
	k, ok := scriptNumber(op, data, 1, int64(len(keys)))
	if !ok {
		return 0, nil, false
	}
	return int(k), keys, true
}
