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
// always counts 72. Taproot outputs count a key-path spend. As in Core, a
// P2SH redeem script counts one push byte, so for a script over 75 bytes
// (pushed with OP_PUSHDATA1) the figure with 71-byte signatures can be 4
// short; MaxWeightToSatisfy has no such gap. ok is false for descriptors
// Core gives no figure for: combo(), addr(), raw(), bare multi_a() and
// miniscript outside wsh().
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

// MaxWeightToSatisfy returns an upper bound of the weight a satisfaction
// adds to an input, measured as rust-miniscript's max_weight_to_satisfy
// measures it: the segwit weight of the satisfied input less that of the
// same input left empty. Unlike MaxSatisfactionWeight it counts the growth
// of the scriptSig length and witness element count prefixes, the real
// push opcode of a P2SH redeem script, and for tr() with a script tree the
// largest script-path spend (satisfaction, leaf script, control block).
// ECDSA signatures count 73 bytes with their push, Schnorr signatures 66.
// ok is false for combo(), addr(), raw() and scripts with no satisfaction.
func (d *Descriptor) MaxWeightToSatisfy() (weight int, ok bool) { return d.root.maxWeightToSatisfy() }

// varintDiff is how much a compact-size count grows from 0 to n.
func varintDiff(n int) int { return wire.VarIntSerializeSize(uint64(n)) - 1 }

// pushOpcodeSize is the size of the opcode and length that push n bytes.
func pushOpcodeSize(n int) int {
	switch {
	case n < 0x4c:
		return 1
	case n <= 0xff:
		return 2
	case n <= 0xffff:
		return 3
	}
	return 5
}

// scriptSigWeight is the weight a scriptSig of size bytes adds.
func scriptSigWeight(size int) int { return witnessScale * (varintDiff(size) + size) }

func (n *node) maxWeightToSatisfy() (int, bool) {
	switch n.kind {
	case KindPK, KindPKH, KindMulti, KindSortedMulti:
		sat, _ := n.maxSatSize(true)
		return scriptSigWeight(sat), true
	case KindWPKH:
		sat, _ := n.maxSatSize(true)
		return varintDiff(2) + sat, true
	case KindWSH:
		return n.subs[0].wshWitnessWeight()
	case KindSH:
		sub := n.subs[0]
		switch sub.kind {
		case KindWPKH, KindWSH:
			// The scriptSig is the push of the 22- or 34-byte program.
			script, _ := sub.scriptSize()
			w, ok := sub.maxWeightToSatisfy()
			return scriptSigWeight(1+script) + w, ok
		}
		sat, ok1 := sub.maxSatSize(true)
		script, ok2 := sub.scriptSize()
		if !ok1 || !ok2 {
			return 0, false
		}
		return scriptSigWeight(pushOpcodeSize(script) + script + sat), true
	case KindRawTR:
		return varintDiff(1) + 1 + 65, true
	case KindTR:
		if len(n.subs) == 0 {
			return varintDiff(1) + 1 + 65, true
		}
		best, found := 0, false
		for i, leaf := range n.subs {
			sat, ok1 := leaf.maxSatSize(true)
			elems, ok2 := leaf.maxSatElems()
			script, ok3 := leaf.scriptSize()
			if !ok1 || !ok2 || !ok3 {
				continue
			}
			control := 33 + 32*n.depths[i]
			w := varintDiff(elems+2) + sat +
				wire.VarIntSerializeSize(uint64(script)) + script +
				wire.VarIntSerializeSize(uint64(control)) + control
			if !found || w > best {
				best, found = w, true
			}
		}
		return best, found
	}
	return 0, false
}

// wshWitnessWeight is the weight of a P2WSH witness for the witness script
// of n: the element count's growth, the satisfaction, the script and its
// length.
func (n *node) wshWitnessWeight() (int, bool) {
	sat, ok1 := n.maxSatSize(true)
	elems, ok2 := n.maxSatElems()
	script, ok3 := n.scriptSize()
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	return varintDiff(elems+1) + sat + wire.VarIntSerializeSize(uint64(script)) + script, true
}
