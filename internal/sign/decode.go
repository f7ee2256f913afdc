package sign

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// maxCompactSize is the largest length Core's ReadCompactSize accepts
// (MAX_SIZE, 32 MiB).
const maxCompactSize = 0x02000000

// txDecodeFailed is Core's message for a transaction that does not decode.
const txDecodeFailed = "TX decode failed. Make sure the tx has at least one input."

// DecodeTx decodes a hex transaction the way Core's signrawtransactionwithkey
// does (DecodeHexTx with the extended serialization only): the hex must be
// non-empty, of even length and hex digits of either case; a 0x00 input
// count is read as the segwit marker and followed by a flag byte; witness
// data must be present when flagged; no byte may follow the lock time.
// Failures are ErrTxDecode with Core's message.
func DecodeTx(s string) (*wire.MsgTx, error) {
	if len(s) == 0 || len(s)%2 != 0 {
		return nil, newError(ErrTxDecode, txDecodeFailed)
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, newError(ErrTxDecode, txDecodeFailed)
	}
	tx, ok := decodeTx(raw)
	if !ok {
		return nil, newError(ErrTxDecode, txDecodeFailed)
	}
	return tx, nil
}

// txReader reads Core's serialization; any short read or malformed field
// sets bad and makes every later read return zero values.
type txReader struct {
	b   []byte
	bad bool
}

func (r *txReader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *txReader) u8() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *txReader) u32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *txReader) u64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// compactSize reads a length the way Core's ReadCompactSize does: the
// shortest encoding only, and at most MAX_SIZE.
func (r *txReader) compactSize() int {
	var v uint64
	switch p := r.u8(); {
	case p < 0xfd:
		v = uint64(p)
	case p == 0xfd:
		b := r.take(2)
		if b == nil {
			return 0
		}
		v = uint64(binary.LittleEndian.Uint16(b))
		if v < 0xfd {
			r.bad = true
		}
	case p == 0xfe:
		v = uint64(r.u32())
		if v < 0x10000 {
			r.bad = true
		}
	default:
		v = r.u64()
		if v < 0x100000000 {
			r.bad = true
		}
	}
	if v > maxCompactSize {
		r.bad = true
	}
	if r.bad {
		return 0
	}
	return int(v)
}

func (r *txReader) bytes() []byte {
	n := r.compactSize()
	b := r.take(n)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// count reads a vector length and bounds it by the bytes left, given the
// smallest size of one element, so that a forged count cannot make the
// decoder allocate more than the input justifies.
func (r *txReader) count(minElem int) int {
	n := r.compactSize()
	if n > len(r.b)/minElem+1 {
		r.bad = true
		return 0
	}
	return n
}

func (r *txReader) inputs() []*wire.TxIn {
	n := r.count(41)
	ins := make([]*wire.TxIn, 0, n)
	for i := 0; i < n && !r.bad; i++ {
		in := &wire.TxIn{}
		copy(in.PreviousOutPoint.Hash[:], r.take(32))
		in.PreviousOutPoint.Index = r.u32()
		in.SignatureScript = r.bytes()
		in.Sequence = r.u32()
		ins = append(ins, in)
	}
	return ins
}

func (r *txReader) outputs() []*wire.TxOut {
	n := r.count(9)
	outs := make([]*wire.TxOut, 0, n)
	for i := 0; i < n && !r.bad; i++ {
		out := &wire.TxOut{Value: int64(r.u64())}
		out.PkScript = r.bytes()
		outs = append(outs, out)
	}
	return outs
}

// DecodeHexTx decodes a hex transaction as Core's DecodeHexTx does for
// decoderawtransaction and its kin: the hex must be non-empty hex digits of
// even length; the bytes are read with the extended (witness) serialization
// when tryWitness and with the legacy one when tryNoWitness, a reading that
// leaves bytes over fails, and when both succeed the one whose scripts pass
// Core's sanity check wins, the extended one on a tie. It reports false
// when no reading succeeds.
func DecodeHexTx(s string, tryNoWitness, tryWitness bool) (*wire.MsgTx, bool) {
	if len(s) == 0 || len(s)%2 != 0 {
		return nil, false
	}
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, false
	}
	var extended *wire.MsgTx
	if tryWitness {
		if tx, ok := decodeTxMode(raw, true); ok {
			if scriptsSane(tx) {
				return tx, true
			}
			extended = tx
		}
	}
	if tryNoWitness {
		if tx, ok := decodeTxMode(raw, false); ok && (scriptsSane(tx) || extended == nil) {
			return tx, true
		}
	}
	return extended, extended != nil
}

// scriptsSane is Core's CheckTxScriptsSanity: every scriptSig (unless the
// transaction is a coinbase) and every output script has valid operations
// and is at most MaxScriptSize bytes.
func scriptsSane(tx *wire.MsgTx) bool {
	coinbase := len(tx.TxIn) == 1 && tx.TxIn[0].PreviousOutPoint.Index == wire.MaxPrevOutIndex &&
		tx.TxIn[0].PreviousOutPoint.Hash == (chainhash.Hash{})
	if !coinbase {
		for _, in := range tx.TxIn {
			if !script.HasValidOps(in.SignatureScript) || len(in.SignatureScript) > script.MaxScriptSize {
				return false
			}
		}
	}
	for _, out := range tx.TxOut {
		if !script.HasValidOps(out.PkScript) || len(out.PkScript) > script.MaxScriptSize {
			return false
		}
	}
	return true
}

// decodeTx follows Core's UnserializeTransaction with witness allowed.
func decodeTx(raw []byte) (*wire.MsgTx, bool) { return decodeTxMode(raw, true) }

// decodeTxMode follows Core's UnserializeTransaction, with the witness
// serialization allowed or not.
func decodeTxMode(raw []byte, allowWitness bool) (*wire.MsgTx, bool) {
	r := &txReader{b: raw}
	tx := &wire.MsgTx{Version: int32(r.u32())}
	var flags byte
	tx.TxIn = r.inputs()
	if len(tx.TxIn) == 0 && !r.bad && allowWitness {
		// An empty input vector is the segwit marker; the flag follows.
		flags = r.u8()
		if flags != 0 {
			tx.TxIn = r.inputs()
			tx.TxOut = r.outputs()
		}
	} else {
		tx.TxOut = r.outputs()
	}
	if flags&1 != 0 && !r.bad {
		flags ^= 1
		hasWitness := false
		for _, in := range tx.TxIn {
			n := r.count(1)
			if r.bad {
				break
			}
			if n == 0 {
				continue
			}
			w := make(wire.TxWitness, 0, n)
			for j := 0; j < n && !r.bad; j++ {
				w = append(w, r.bytes())
			}
			in.Witness = w
			hasWitness = true
		}
		// Core: "Superfluous witness record".
		if !hasWitness {
			return nil, false
		}
	}
	// Core: "Unknown transaction optional data".
	if flags != 0 {
		return nil, false
	}
	tx.LockTime = r.u32()
	if r.bad || len(r.b) != 0 {
		return nil, false
	}
	return tx, true
}
