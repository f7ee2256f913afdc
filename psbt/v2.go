package psbt

import (
	"slices"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// takeField removes the single-byte key t from m and returns its value.
func takeField(m map[string][]byte, t byte) ([]byte, bool) {
	v, ok := m[string([]byte{t})]
	if ok {
		delete(m, string([]byte{t}))
	}
	return v, ok
}

func fixedU32(v []byte, name string) uint32 {
	if len(v) != 4 {
		fail(name + " is not 4 bytes")
	}
	return newStream(v).u32()
}

func compactValue(v []byte, name string) int {
	s := newStream(v)
	n := s.compactSize()
	if !s.empty() {
		fail(name + " has extra data")
	}
	return int(n)
}

// takeGlobalsV2 reads BIP 370's global fields out of the unknown map of a
// version 2 packet and returns its input and output counts.
func (p *Packet) takeGlobalsV2() (int, int) {
	if p.UnsignedTx != nil {
		fail("PSBTv2 must not have an unsigned transaction")
	}
	v, ok := takeField(p.Unknown, GlobalTxVersion)
	if !ok {
		fail("PSBTv2 is missing the transaction version")
	}
	txv := int32(fixedU32(v, "Transaction version"))
	p.TxVersion = &txv
	if v, ok := takeField(p.Unknown, GlobalFallbackLocktime); ok {
		lt := fixedU32(v, "Fallback locktime")
		p.FallbackLocktime = &lt
	}
	v, ok = takeField(p.Unknown, GlobalInputCount)
	if !ok {
		fail("PSBTv2 is missing the input count")
	}
	nIn := compactValue(v, "Input count")
	v, ok = takeField(p.Unknown, GlobalOutputCount)
	if !ok {
		fail("PSBTv2 is missing the output count")
	}
	nOut := compactValue(v, "Output count")
	if v, ok := takeField(p.Unknown, GlobalTxModifiable); ok {
		if len(v) != 1 {
			fail("Transaction modifiable flags are not 1 byte")
		}
		m := v[0]
		p.TxModifiable = &m
	}
	if len(p.Unknown) == 0 {
		p.Unknown = nil
	}
	return nIn, nOut
}

func (in *Input) takeV2() {
	v, ok := takeField(in.Unknown, InPreviousTxID)
	if !ok {
		fail("PSBTv2 input is missing the previous txid")
	}
	if len(v) != 32 {
		fail("Previous txid is not 32 bytes")
	}
	var h chainhash.Hash
	copy(h[:], v)
	in.PreviousTxID = &h
	v, ok = takeField(in.Unknown, InOutputIndex)
	if !ok {
		fail("PSBTv2 input is missing the output index")
	}
	idx := fixedU32(v, "Output index")
	in.OutputIndex = &idx
	if v, ok := takeField(in.Unknown, InSequence); ok {
		seq := fixedU32(v, "Sequence")
		in.Sequence = &seq
	}
	if v, ok := takeField(in.Unknown, InRequiredTimeLocktime); ok {
		lt := fixedU32(v, "Required time locktime")
		if lt < 500000000 {
			fail("Required time locktime is less than 500000000")
		}
		in.RequiredTimeLocktime = &lt
	}
	if v, ok := takeField(in.Unknown, InRequiredHeightLocktime); ok {
		lt := fixedU32(v, "Required height locktime")
		if lt == 0 || lt >= 500000000 {
			fail("Required height locktime is not between 1 and 499999999")
		}
		in.RequiredHeightLocktime = &lt
	}
	if len(in.Unknown) == 0 {
		in.Unknown = nil
	}
}

func (out *Output) takeV2() {
	v, ok := takeField(out.Unknown, OutAmount)
	if !ok {
		fail("PSBTv2 output is missing the amount")
	}
	if len(v) != 8 {
		fail("Output amount is not 8 bytes")
	}
	amt := int64(newStream(v).u64())
	out.Amount = &amt
	v, ok = takeField(out.Unknown, OutScript)
	if !ok {
		fail("PSBTv2 output is missing the script")
	}
	out.Script, out.HasScript = v, true
	if len(out.Unknown) == 0 {
		out.Unknown = nil
	}
}

func (p *Packet) writeGlobalsV2(w *writer) {
	if p.TxVersion != nil {
		w.pair([]byte{GlobalTxVersion}, le32(uint32(*p.TxVersion)))
	}
	if p.FallbackLocktime != nil {
		w.pair([]byte{GlobalFallbackLocktime}, le32(*p.FallbackLocktime))
	}
	var n writer
	n.compactSize(uint64(len(p.Inputs)))
	w.pair([]byte{GlobalInputCount}, n.b)
	n = writer{}
	n.compactSize(uint64(len(p.Outputs)))
	w.pair([]byte{GlobalOutputCount}, n.b)
	if p.TxModifiable != nil {
		w.pair([]byte{GlobalTxModifiable}, []byte{*p.TxModifiable})
	}
}

func (in *Input) writeV2(w *writer) {
	if in.PreviousTxID != nil {
		w.pair([]byte{InPreviousTxID}, in.PreviousTxID[:])
	}
	if in.OutputIndex != nil {
		w.pair([]byte{InOutputIndex}, le32(*in.OutputIndex))
	}
	if in.Sequence != nil {
		w.pair([]byte{InSequence}, le32(*in.Sequence))
	}
	if in.RequiredTimeLocktime != nil {
		w.pair([]byte{InRequiredTimeLocktime}, le32(*in.RequiredTimeLocktime))
	}
	if in.RequiredHeightLocktime != nil {
		w.pair([]byte{InRequiredHeightLocktime}, le32(*in.RequiredHeightLocktime))
	}
}

func (out *Output) writeV2(w *writer) {
	if out.Amount != nil {
		var v writer
		v.u64(uint64(*out.Amount))
		w.pair([]byte{OutAmount}, v.b)
	}
	if out.HasScript {
		w.pair([]byte{OutScript}, out.Script)
	}
}

// SortXPubs orders global xpubs as Core keeps them: by origin, then by
// public key and chain code.
func SortXPubs(x []XPub) { slices.SortStableFunc(x, cmpXPub) }

// Locktime computes a version 2 packet's transaction lock time as BIP 370
// prescribes; ok is false when the inputs' required lock times cannot be
// satisfied together.
func (p *Packet) Locktime() (lt uint32, ok bool) {
	var maxH, maxT uint32
	heightOK, timeOK, any := true, true, false
	for i := range p.Inputs {
		in := &p.Inputs[i]
		h, t := in.RequiredHeightLocktime, in.RequiredTimeLocktime
		if h == nil && t == nil {
			continue
		}
		any = true
		if h == nil {
			heightOK = false
		} else if *h > maxH {
			maxH = *h
		}
		if t == nil {
			timeOK = false
		} else if *t > maxT {
			maxT = *t
		}
	}
	switch {
	case !any:
		if p.FallbackLocktime != nil {
			return *p.FallbackLocktime, true
		}
		return 0, true
	case heightOK:
		return maxH, true
	case timeOK:
		return maxT, true
	}
	return 0, false
}

// ToV2 returns the version 2 form of a version 0 packet: the unsigned
// transaction moves into BIP 370's fields; every other field is kept.
func (p *Packet) ToV2() (*Packet, error) {
	if p.UnsignedTx == nil {
		return nil, &Error{Kind: ErrConvert, Description: "PSBT is not version 0"}
	}
	q := *p
	tx := p.UnsignedTx
	v := uint32(2)
	txv, lt := tx.Version, tx.LockTime
	q.Version, q.TxVersion, q.FallbackLocktime, q.UnsignedTx = &v, &txv, &lt, nil
	q.Inputs = slices.Clone(p.Inputs)
	for i, txin := range tx.TxIn {
		h, idx, seq := txin.PreviousOutPoint.Hash, txin.PreviousOutPoint.Index, txin.Sequence
		q.Inputs[i].PreviousTxID, q.Inputs[i].OutputIndex, q.Inputs[i].Sequence = &h, &idx, &seq
	}
	q.Outputs = slices.Clone(p.Outputs)
	for i, txout := range tx.TxOut {
		amt := txout.Value
		q.Outputs[i].Amount, q.Outputs[i].Script, q.Outputs[i].HasScript = &amt, txout.PkScript, true
	}
	return &q, nil
}

// ToV0 returns the version 0 form of a version 2 packet: the transaction is
// built from BIP 370's fields (lock time as BIP 370 determines it, absent
// sequences final) and those fields are dropped.
func (p *Packet) ToV0() (*Packet, error) {
	if p.UnsignedTx != nil {
		return p, nil
	}
	lt, ok := p.Locktime()
	if !ok {
		return nil, &Error{Kind: ErrConvert, Description: "PSBT inputs require incompatible lock times"}
	}
	tx := &wire.MsgTx{LockTime: lt}
	if p.TxVersion != nil {
		tx.Version = *p.TxVersion
	}
	q := *p
	q.Version, q.TxVersion, q.FallbackLocktime, q.TxModifiable = nil, nil, nil, nil
	q.Inputs = slices.Clone(p.Inputs)
	for i := range q.Inputs {
		in := &q.Inputs[i]
		txin := &wire.TxIn{Sequence: wire.MaxTxInSequenceNum}
		if in.PreviousTxID != nil {
			txin.PreviousOutPoint.Hash = *in.PreviousTxID
		}
		if in.OutputIndex != nil {
			txin.PreviousOutPoint.Index = *in.OutputIndex
		}
		if in.Sequence != nil {
			txin.Sequence = *in.Sequence
		}
		tx.TxIn = append(tx.TxIn, txin)
		in.PreviousTxID, in.OutputIndex, in.Sequence = nil, nil, nil
		in.RequiredTimeLocktime, in.RequiredHeightLocktime = nil, nil
	}
	q.Outputs = slices.Clone(p.Outputs)
	for i := range q.Outputs {
		out := &q.Outputs[i]
		txout := &wire.TxOut{PkScript: out.Script}
		if out.Amount != nil {
			txout.Value = *out.Amount
		}
		tx.TxOut = append(tx.TxOut, txout)
		out.Amount, out.Script, out.HasScript = nil, nil, false
	}
	q.UnsignedTx = tx
	return &q, nil
}
