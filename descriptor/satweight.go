package descriptor

import "github.com/btcsuite/btcd/wire/v2"

// This file sizes the satisfaction of a descriptor's output, as Core's
// Descriptor::ScriptSize, MaxSatSize, MaxSatisfactionWeight and
// MaxSatisfactionElems do (script/descriptor.cpp), for coin selection and
// fee estimates.

// witnessScale is the weight of one non-witness byte (BIP 141).
const witnessScale = 4

// ecdsaSigSize is the size of a DER signature with its sighash byte: 72
// when the signature may have a high R, 71 when R is ground low.
func ecdsaSigSize(useMaxSig bool) int {
	if useMaxSig {
		return 72
	}
	return 71
}

// smallIntPushSize is the size of the script push of a small number (Core's
// BuildScript(n).size()): one opcode for 0 to 16, a two-byte push up to 127.
func smallIntPushSize(n int) int {
	switch {
	case n >= 0 && n <= 16:
		return 1
	case n < 128:
		return 2
	case n < 32768:
		return 3
	default:
		return 4
	}
}

// ScriptSize returns the size in bytes of the descriptor's output script
// (for pk(), multi() and miniscript the script itself, for sh(), wsh() and
// tr() the short output script), and false for combo(), which has several.
func (d *Descriptor) ScriptSize() (int, bool) { return d.root.scriptSize() }

// MaxSatisfactionWeight returns the largest weight of the data that spends
// the descriptor's output: the scriptSig (without its length prefix) at
// four weight units a byte and the witness elements (each with its length
// prefix, without the element count) at one, as Core's
// MaxSatisfactionWeight computes it. useMaxSig counts ECDSA signatures at
// 72 bytes instead of 71 (signers that cannot grind R low); miniscript
// always counts 72. Taproot outputs count a key-path spend. ok is false for
// descriptors Core gives no figure for: combo(), addr(), raw(), bare
// multi_a() and miniscript outside wsh().
func (d *Descriptor) MaxSatisfactionWeight(useMaxSig bool) (weight int, ok bool) {
	return d.root.maxSatWeight(useMaxSig)
}

// MaxSatisfactionElems returns the largest number of stack elements of a
// satisfaction (Core's MaxSatisfactionElems), which a caller adds as the
// witness element count; ok is false where MaxSatisfactionWeight is.
func (d *Descriptor) MaxSatisfactionElems() (int, bool) { return d.root.maxSatElems() }

func (n *node) msNode() (msNode, bool) {
	m, ok := n.ms.(msNode)
	return m, ok
}

// scriptSize is Core's ScriptSize.
func (n *node) scriptSize() (int, bool) {
	switch n.kind {
	case KindPK:
		if n.xonly {
			return 1 + 32 + 1, true
		}
		return 1 + n.keys[0].size() + 1, true
	case KindPKH:
		return 25, true
	case KindWPKH:
		return 22, true
	case KindSH:
		return 23, true
	case KindWSH, KindTR, KindRawTR:
		return 34, true
	case KindMulti, KindSortedMulti:
		size := 1 + smallIntPushSize(len(n.keys)) + smallIntPushSize(n.threshold)
		for _, k := range n.keys {
			size += 1 + k.size()
		}
		return size, true
	case KindMultiA, KindSortedMultiA:
		return (1+32+1)*len(n.keys) + smallIntPushSize(n.threshold) + 1, true
	case KindAddr, KindRaw:
		return len(n.script), true
	case KindMiniscript:
		if m, ok := n.msNode(); ok {
			return m.n.ScriptSize(), true
		}
	}
	return 0, false
}

// maxSatSize is Core's MaxSatSize: the satisfaction's size in bytes, with
// no witness discount.
func (n *node) maxSatSize(useMaxSig bool) (int, bool) {
	sig := ecdsaSigSize(useMaxSig)
	switch n.kind {
	case KindPK:
		if n.xonly {
			return 1 + 65, true
		}
		return 1 + sig, true
	case KindPKH:
		return 1 + sig + 1 + n.keys[0].size(), true
	case KindWPKH:
		return 1 + sig + 1 + 33, true
	case KindMulti, KindSortedMulti:
		return 1 + (1+sig)*n.threshold, true
	case KindMultiA, KindSortedMultiA:
		return (1+65)*n.threshold + (len(n.keys) - n.threshold), true
	case KindWSH:
		sat, ok1 := n.subs[0].maxSatSize(useMaxSig)
		script, ok2 := n.subs[0].scriptSize()
		if !ok1 || !ok2 {
			return 0, false
		}
		return wire.VarIntSerializeSize(uint64(script)) + script + sat, true
	case KindMiniscript:
		if m, ok := n.msNode(); ok {
			w, ok := m.n.WitnessSize()
			return int(w), ok
		}
	}
	return 0, false
}

// maxSatWeight is Core's MaxSatisfactionWeight.
func (n *node) maxSatWeight(useMaxSig bool) (int, bool) {
	switch n.kind {
	case KindPK, KindPKH, KindMulti, KindSortedMulti:
		sat, _ := n.maxSatSize(useMaxSig)
		return sat * witnessScale, true
	case KindWPKH, KindWSH:
		return n.maxSatSize(useMaxSig)
	case KindSH:
		sub := n.subs[0]
		sat, ok1 := sub.maxSatSize(useMaxSig)
		script, ok2 := sub.scriptSize()
		if !ok1 || !ok2 {
			return 0, false
		}
		// The redeem script push is never witness data; Core counts one
		// length byte for it.
		w := (1 + script) * witnessScale
		if sub.kind == KindWPKH || sub.kind == KindWSH {
			return w + sat, true
		}
		return w + sat*witnessScale, true
	case KindTR, KindRawTR:
		// A key-path spend: one 64-byte signature (65 with a sighash
		// byte) and its length.
		return 1 + 65, true
	}
	return 0, false
}

// maxSatElems is Core's MaxSatisfactionElems.
func (n *node) maxSatElems() (int, bool) {
	switch n.kind {
	case KindPK, KindTR, KindRawTR:
		return 1, true
	case KindPKH, KindWPKH:
		return 2, true
	case KindMulti, KindSortedMulti:
		return 1 + n.threshold, true
	case KindMultiA, KindSortedMultiA:
		return len(n.keys), true
	case KindSH, KindWSH:
		sub, ok := n.subs[0].maxSatElems()
		return 1 + sub, ok
	case KindMiniscript:
		if m, ok := n.msNode(); ok {
			s, ok := m.n.StackSize()
			return int(s), ok
		}
	}
	return 0, false
}
