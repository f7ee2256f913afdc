package script

import (
	"encoding/binary"
	"fmt"
)

// Builder assembles a script with Core's CScript "<<" rules. The zero value
// is an empty script ready to use.
type Builder struct {
	buf []byte
}

// NewBuilder returns an empty Builder with room for size bytes.
func NewBuilder(size int) *Builder {
	return &Builder{buf: make([]byte, 0, size)}
}

// AddOp appends a single opcode.
func (b *Builder) AddOp(op byte) *Builder {
	b.buf = append(b.buf, op)
	return b
}

// AddData appends a push of data as Core's "CScript << vector" does: the
// shortest push opcode for its length (a direct push up to 75 bytes, then
// OP_PUSHDATA1/2/4), never an OP_n opcode; empty data becomes OP_0.
func (b *Builder) AddData(data []byte) *Builder {
	b.buf = AppendPush(b.buf, data)
	return b
}

// AddInt appends a number as Core's "CScript << int64" does: OP_0,
// OP_1NEGATE and OP_1..OP_16 for 0, -1 and 1..16, otherwise a push of its
// minimal script-number encoding.
func (b *Builder) AddInt(n int64) *Builder {
	switch {
	case n == 0:
		b.buf = append(b.buf, Op0)
	case n == -1:
		b.buf = append(b.buf, Op1Negate)
	case n >= 1 && n <= 16:
		b.buf = append(b.buf, Op1+byte(n-1))
	default:
		b.buf = AppendPush(b.buf, ScriptNum(n))
	}
	return b
}

// AddMinimalData appends a push of data in the form BIP 62's minimal-push
// rule requires (see CheckMinimalPush): a single byte 1..16 becomes OP_1..
// OP_16, 0x81 becomes OP_1NEGATE, everything else as AddData.
func (b *Builder) AddMinimalData(data []byte) *Builder {
	if len(data) == 1 {
		switch v := data[0]; {
		case v >= 1 && v <= 16:
			b.buf = append(b.buf, Op1+v-1)
			return b
		case v == 0x81:
			b.buf = append(b.buf, Op1Negate)
			return b
		}
	}
	return b.AddData(data)
}

// Script returns the script built so far. The Builder keeps appending to
// its own buffer; the returned slice is not affected by later calls.
func (b *Builder) Script() []byte {
	out := make([]byte, len(b.buf))
	copy(out, b.buf)
	return out
}

// AppendPush appends to dst the push of data with Core's "<< vector" rules
// (see Builder.AddData) and returns the extended slice.
func AppendPush(dst, data []byte) []byte {
	switch n := len(data); {
	case n < int(OpPushData1):
		dst = append(dst, byte(n))
	case n <= 0xff:
		dst = append(dst, OpPushData1, byte(n))
	case n <= 0xffff:
		dst = append(dst, OpPushData2, 0, 0)
		binary.LittleEndian.PutUint16(dst[len(dst)-2:], uint16(n))
	default:
		dst = append(dst, OpPushData4, 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(dst[len(dst)-4:], uint32(n))
	}
	return append(dst, data...)
}

// ScriptNum returns the minimal script-number encoding of n: little-endian
// magnitude with the sign in the top bit of the last byte, empty for zero.
func ScriptNum(n int64) []byte {
	if n == 0 {
		return []byte{}
	}
	neg := n < 0
	abs := uint64(n)
	if neg {
		abs = uint64(-n)
	}
	var out []byte
	for abs > 0 {
		out = append(out, byte(abs))
		abs >>= 8
	}
	switch {
	case out[len(out)-1]&0x80 != 0 && neg:
		out = append(out, 0x80)
	case out[len(out)-1]&0x80 != 0:
		out = append(out, 0x00)
	case neg:
		out[len(out)-1] |= 0x80
	}
	return out
}

func mustLen(b []byte, n int, what string) {
	if len(b) != n {
		panic(fmt.Sprintf("script: %s must be %d bytes, got %d", what, n, len(b)))
	}
}

// PayToPubKey returns the bare pay-to-pubkey script <pubkey> OP_CHECKSIG.
// It panics unless pubkey has a valid size (see ValidPubKeySize).
func PayToPubKey(pubkey []byte) []byte {
	if !ValidPubKeySize(pubkey) {
		panic("script: invalid public key size")
	}
	return append(AppendPush(make([]byte, 0, len(pubkey)+2), pubkey),
		OpCheckSig)
}

// PayToPubKeyHash returns the P2PKH script
// OP_DUP OP_HASH160 <hash> OP_EQUALVERIFY OP_CHECKSIG. It panics unless hash
// is 20 bytes.
func PayToPubKeyHash(hash []byte) []byte {
	mustLen(hash, 20, "public key hash")
	s := make([]byte, 0, 25)
	s = append(s, OpDup, OpHash160, 20)
	s = append(s, hash...)
	return append(s, OpEqualVerify, OpCheckSig)
}

// PayToScriptHash returns the P2SH script OP_HASH160 <hash> OP_EQUAL. It
// panics unless hash is 20 bytes.
func PayToScriptHash(hash []byte) []byte {
	mustLen(hash, 20, "script hash")
	s := make([]byte, 0, 23)
	s = append(s, OpHash160, 20)
	s = append(s, hash...)
	return append(s, OpEqual)
}

// PayToWitness returns the segwit output script of the given version
// (0..16) and program (2..40 bytes): OP_n <program>. It panics outside those
// ranges.
func PayToWitness(version int, program []byte) []byte {
	if version < 0 || version > 16 || len(program) < 2 || len(program) > 40 {
		panic("script: invalid witness version or program size")
	}
	s := make([]byte, 0, len(program)+2)
	s = append(s, SmallIntOp(version), byte(len(program)))
	return append(s, program...)
}

// PayToWitnessPubKeyHash returns the P2WPKH script OP_0 <hash>. It panics
// unless hash is 20 bytes.
func PayToWitnessPubKeyHash(hash []byte) []byte {
	mustLen(hash, 20, "witness public key hash")
	return PayToWitness(0, hash)
}

// PayToWitnessScriptHash returns the P2WSH script OP_0 <hash>. It panics
// unless hash is the 32-byte SHA256 of the witness script.
func PayToWitnessScriptHash(hash []byte) []byte {
	mustLen(hash, 32, "witness script hash")
	return PayToWitness(0, hash)
}

// PayToTaproot returns the P2TR script OP_1 <key> for a 32-byte x-only
// output key. It panics unless key is 32 bytes.
func PayToTaproot(key []byte) []byte {
	mustLen(key, 32, "taproot output key")
	return PayToWitness(1, key)
}

// PayToAnchor returns the pay-to-anchor script OP_1 <0x4e73>.
func PayToAnchor() []byte {
	return append([]byte(nil), anchorScript...)
}

// PayToMultisig returns the bare multisig script
// <m> <key1> ... <keyN> <N> OP_CHECKMULTISIG, keys in the given order, as
// Core's GetScriptForMultisig writes it. It fails when there are more than
// 20 keys, when m is not in 1..N, or when a key has an invalid size.
func PayToMultisig(m int, keys [][]byte) ([]byte, error) {
	if len(keys) > MaxPubKeysPerMultisig {
		return nil, newError(ErrTooManyKeys, fmt.Sprintf(
			"multisig with %d keys exceeds the limit of %d",
			len(keys), MaxPubKeysPerMultisig))
	}
	if m < 1 || m > len(keys) {
		return nil, newError(ErrInvalidThreshold, fmt.Sprintf(
			"multisig threshold %d out of range 1..%d", m, len(keys)))
	}
	b := NewBuilder(3 + 34*len(keys))
	b.AddInt(int64(m))
	for i, k := range keys {
		if !ValidPubKeySize(k) {
			return nil, newError(ErrInvalidPubKey, fmt.Sprintf(
				"multisig key %d has an invalid size", i))
		}
		b.AddData(k)
	}
	b.AddInt(int64(len(keys))).AddOp(OpCheckMultisig)
	return b.buf, nil
}
