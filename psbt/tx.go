package psbt

import (
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// readTx reads a transaction as Core's UnserializeTransaction does; witness
// tells whether the segwit serialization is allowed.
func readTx(s *stream, witness bool) *wire.MsgTx {
	tx := &wire.MsgTx{}
	tx.Version = int32(s.u32())
	var flags byte
	tx.TxIn = readTxIns(s)
	if len(tx.TxIn) == 0 && witness {
		flags = s.u8()
		if flags != 0 {
			tx.TxIn = readTxIns(s)
			tx.TxOut = readTxOuts(s)
		}
	} else {
		tx.TxOut = readTxOuts(s)
	}
	if flags&1 != 0 && witness {
		flags ^= 1
		has := false
		for _, in := range tx.TxIn {
			n := s.count()
			var stack wire.TxWitness
			for j := 0; j < n; j++ {
				stack = append(stack, s.bytes())
			}
			in.Witness = stack
			if len(stack) > 0 {
				has = true
			}
		}
		if !has {
			fail("Superfluous witness record")
		}
	}
	if flags != 0 {
		fail("Unknown transaction optional data")
	}
	tx.LockTime = s.u32()
	return tx
}

func readTxIns(s *stream) []*wire.TxIn {
	n := s.count()
	// An input takes at least 41 bytes: allocate for what can be present.
	ins := make([]*wire.TxIn, 0, min(n, s.remaining()/41))
	block := make([]wire.TxIn, min(n, s.remaining()/41))
	for i := 0; i < n; i++ {
		var in *wire.TxIn
		if i < len(block) {
			in = &block[i]
		} else {
			in = &wire.TxIn{}
		}
		copy(in.PreviousOutPoint.Hash[:], s.take(32))
		in.PreviousOutPoint.Index = s.u32()
		in.SignatureScript = s.bytes()
		in.Sequence = s.u32()
		ins = append(ins, in)
	}
	return ins
}

func readTxOuts(s *stream) []*wire.TxOut {
	n := s.count()
	var outs []*wire.TxOut
	for i := 0; i < n; i++ {
		outs = append(outs, readTxOut(s))
	}
	return outs
}

func readTxOut(s *stream) *wire.TxOut {
	v := int64(s.u64())
	return &wire.TxOut{Value: v, PkScript: s.bytes()}
}

// writeTx writes tx without witness data (Core's TX_NO_WITNESS).
func writeTx(w *writer, tx *wire.MsgTx) {
	w.u32(uint32(tx.Version))
	w.compactSize(uint64(len(tx.TxIn)))
	for _, in := range tx.TxIn {
		w.raw(in.PreviousOutPoint.Hash[:])
		w.u32(in.PreviousOutPoint.Index)
		w.bytes(in.SignatureScript)
		w.u32(in.Sequence)
	}
	w.compactSize(uint64(len(tx.TxOut)))
	for _, out := range tx.TxOut {
		writeTxOut(w, out)
	}
	w.u32(tx.LockTime)
}

func writeTxOut(w *writer, out *wire.TxOut) {
	w.u64(uint64(out.Value))
	w.bytes(out.PkScript)
}

// TxID returns the transaction id (the hash of the serialization without
// witness data).
func TxID(tx *wire.MsgTx) chainhash.Hash {
	var w writer
	writeTx(&w, tx)
	return chainhash.DoubleHashH(w.b)
}
