package miniscript

import (
	"encoding/hex"
	"strconv"

	"github.com/descwallet/descwallet/internal/script"
)

// Context is the script context a miniscript is written for.
type Context int

const (
	// P2WSH is a segwit v0 witness script.
	P2WSH Context = iota
	// Tapscript is a BIP 342 leaf script: x-only keys, multi_a instead of
	// multi, no ops limit.
	Tapscript
)

// Fragment is the kind of a miniscript node. Sugar forms are stored as
// their expansions: and_n(X,Y) is andor(X,Y,0), t:X is and_v(X,1), l:X is
// or_i(0,X), u:X is or_i(X,0), pk(K) is c:pk_k(K) and pkh(K) is c:pk_h(K).
type Fragment int

// The fragments.
const (
	Just0 Fragment = iota
	Just1
	PkK
	PkH
	Older
	After
	Sha256
	Hash256
	Ripemd160
	Hash160
	WrapA
	WrapS
	WrapC
	WrapD
	WrapV
	WrapJ
	WrapN
	AndV
	AndB
	OrB
	OrC
	OrD
	OrI
	AndOr
	Thresh
	Multi
	MultiA
)

// maxInt is the maximum of a set of integers; invalid for the empty set.
type maxInt struct {
	valid bool
	v     uint32
}

func mi(v uint32) maxInt { return maxInt{true, v} }

func (a maxInt) add(b maxInt) maxInt {
	if !a.valid || !b.valid {
		return maxInt{}
	}
	return mi(a.v + b.v)
}

func (a maxInt) or(b maxInt) maxInt {
	if !a.valid {
		return b
	}
	if !b.valid {
		return a
	}
	return mi(max(a.v, b.v))
}

type opsCount struct {
	count     uint32
	sat, dsat maxInt
}

// satInfo describes a set of execution traces: how many elements they
// remove from the stack at most (netdiff) and how far above the final size
// the stack rises (exec).
type satInfo struct {
	valid         bool
	netdiff, exec int32
}

func si(n, e int32) satInfo { return satInfo{true, n, e} }

func (a satInfo) or(b satInfo) satInfo {
	if !a.valid {
		return b
	}
	if !b.valid {
		return a
	}
	return si(max(a.netdiff, b.netdiff), max(a.exec, b.exec))
}

func (a satInfo) add(b satInfo) satInfo {
	if !a.valid || !b.valid {
		return satInfo{}
	}
	return si(a.netdiff+b.netdiff, max(b.exec, b.netdiff+a.exec))
}

func cat(xs ...satInfo) satInfo {
	r := xs[0]
	for _, x := range xs[1:] {
		r = r.add(x)
	}
	return r
}

var (
	siEmpty    = si(0, 0)
	siPush     = si(-1, 0)
	siHash     = si(0, 0)
	siNop      = si(0, 0)
	siIf       = si(1, 1)
	siBinary   = si(1, 1)
	siDup      = si(-1, 0)
	siEqVerify = si(2, 2)
	siEqual    = si(1, 1)
	siSize     = si(-1, 0)
	siCheckSig = si(1, 1)
	si0NotEq   = si(0, 0)
	siVerify   = si(1, 1)
)

func siIfDup(nonzero bool) satInfo {
	if nonzero {
		return si(-1, 0)
	}
	return si(0, 0)
}

type stackSize struct{ sat, dsat satInfo }

type witnessSize struct{ sat, dsat maxInt }

// Node is one miniscript expression. Keys are indices into the key list of
// the caller (the descriptor's key expressions, or the keys met while
// decoding a script). A Node is immutable once built.
type Node struct {
	Fragment Fragment
	K        uint32 // older/after value, thresh/multi threshold
	Keys     []int
	Data     []byte // hash fragments: the digest
	Subs     []*Node

	ctx       Context
	typ       Type
	ops       opsCount
	ss        stackSize
	ws        witnessSize
	scriptLen int
	dup       int8 // duplicate keys: 0 not computed, 1 none, 2 some
}

// newNode builds a node and computes its cached properties.
func newNode(ctx Context, fr Fragment, subs []*Node, keys []int, data []byte, k uint32) *Node {
	n := &Node{Fragment: fr, K: k, Keys: keys, Data: data, Subs: subs, ctx: ctx}
	n.ops = n.calcOps()
	n.ss = n.calcStackSize()
	n.ws = n.calcWitnessSize()
	n.typ = n.calcType()
	n.scriptLen = n.calcScriptLen()
	return n
}

// Context returns the script context of the node.
func (n *Node) Context() Context { return n.ctx }

// Type returns the node's type (empty when it does not type-check).
func (n *Node) Type() Type { return n.typ }

// ScriptSize is the length of the node's script.
func (n *Node) ScriptSize() int { return n.scriptLen }

func (n *Node) calcType() Type {
	var x, y, z Type
	if len(n.Subs) > 0 {
		x = n.Subs[0].typ
	}
	if len(n.Subs) > 1 {
		y = n.Subs[1].typ
	}
	if len(n.Subs) > 2 {
		z = n.Subs[2].typ
	}
	var st []Type
	if n.Fragment == Thresh {
		for _, s := range n.Subs {
			st = append(st, s.typ)
		}
	}
	// A node built on an ill-typed child is ill-typed.
	for _, s := range n.Subs {
		if s.typ == 0 {
			return 0
		}
	}
	return sanitizeType(computeType(n.Fragment, x, y, z, st, n.K, len(n.Subs), n.ctx))
}

// numLen is the length of the minimal push of v.
func numLen(v int64) int {
	if v == 0 || (v >= 1 && v <= 16) || v == -1 {
		return 1
	}
	return 1 + len(scriptNum(v))
}

func (n *Node) calcScriptLen() int {
	sub := 0
	for _, s := range n.Subs {
		sub += s.scriptLen
	}
	switch n.Fragment {
	case Just0, Just1:
		return 1
	case PkK:
		if n.ctx == Tapscript {
			return 33
		}
		return 34
	case PkH:
		return 3 + 21
	case Older, After:
		return 1 + numLen(int64(n.K))
	case Hash256, Sha256:
		return 4 + 2 + 33
	case Hash160, Ripemd160:
		return 4 + 2 + 21
	case Multi:
		return 1 + numLen(int64(len(n.Keys))) + numLen(int64(n.K)) + 34*len(n.Keys)
	case MultiA:
		return (1+32+1)*len(n.Keys) + numLen(int64(n.K)) + 1
	case AndV:
		return sub
	case WrapV:
		if n.Subs[0].typ.Has(tx) {
			return sub + 1
		}
		return sub
	case WrapS, WrapC, WrapN, AndB, OrB:
		return sub + 1
	case WrapA, OrC:
		return sub + 2
	case WrapD, OrD, OrI, AndOr:
		return sub + 3
	case WrapJ:
		return sub + 4
	case Thresh:
		return sub + len(n.Subs) + numLen(int64(n.K))
	}
	return 0
}

func (n *Node) calcOps() opsCount {
	s := n.Subs
	switch n.Fragment {
	case Just1:
		return opsCount{0, mi(0), maxInt{}}
	case Just0:
		return opsCount{0, maxInt{}, mi(0)}
	case PkK:
		return opsCount{0, mi(0), mi(0)}
	case PkH:
		return opsCount{3, mi(0), mi(0)}
	case Older, After:
		return opsCount{1, mi(0), maxInt{}}
	case Sha256, Ripemd160, Hash256, Hash160:
		return opsCount{4, mi(0), maxInt{}}
	case AndV:
		return opsCount{s[0].ops.count + s[1].ops.count, s[0].ops.sat.add(s[1].ops.sat), maxInt{}}
	case AndB:
		return opsCount{1 + s[0].ops.count + s[1].ops.count, s[0].ops.sat.add(s[1].ops.sat), s[0].ops.dsat.add(s[1].ops.dsat)}
	case OrB:
		return opsCount{1 + s[0].ops.count + s[1].ops.count,
			s[0].ops.sat.add(s[1].ops.dsat).or(s[1].ops.sat.add(s[0].ops.dsat)),
			s[0].ops.dsat.add(s[1].ops.dsat)}
	case OrD:
		return opsCount{3 + s[0].ops.count + s[1].ops.count,
			s[0].ops.sat.or(s[1].ops.sat.add(s[0].ops.dsat)),
			s[0].ops.dsat.add(s[1].ops.dsat)}
	case OrC:
		return opsCount{2 + s[0].ops.count + s[1].ops.count,
			s[0].ops.sat.or(s[1].ops.sat.add(s[0].ops.dsat)), maxInt{}}
	case OrI:
		return opsCount{3 + s[0].ops.count + s[1].ops.count,
			s[0].ops.sat.or(s[1].ops.sat), s[0].ops.dsat.or(s[1].ops.dsat)}
	case AndOr:
		return opsCount{3 + s[0].ops.count + s[1].ops.count + s[2].ops.count,
			s[1].ops.sat.add(s[0].ops.sat).or(s[0].ops.dsat.add(s[2].ops.sat)),
			s[0].ops.dsat.add(s[2].ops.dsat)}
	case Multi:
		return opsCount{1, mi(uint32(len(n.Keys))), mi(uint32(len(n.Keys)))}
	case MultiA:
		return opsCount{uint32(len(n.Keys)) + 1, mi(0), mi(0)}
	case WrapS, WrapC, WrapN:
		return opsCount{1 + s[0].ops.count, s[0].ops.sat, s[0].ops.dsat}
	case WrapA:
		return opsCount{2 + s[0].ops.count, s[0].ops.sat, s[0].ops.dsat}
	case WrapD:
		return opsCount{3 + s[0].ops.count, s[0].ops.sat, mi(0)}
	case WrapJ:
		return opsCount{4 + s[0].ops.count, s[0].ops.sat, mi(0)}
	case WrapV:
		c := s[0].ops.count
		if s[0].typ.Has(tx) {
			c++
		}
		return opsCount{c, s[0].ops.sat, maxInt{}}
	case Thresh:
		var count uint32
		sats := []maxInt{mi(0)}
		for _, sub := range s {
			count += sub.ops.count + 1
			next := []maxInt{sats[0].add(sub.ops.dsat)}
			for j := 1; j < len(sats); j++ {
				next = append(next, sats[j].add(sub.ops.dsat).or(sats[j-1].add(sub.ops.sat)))
			}
			next = append(next, sats[len(sats)-1].add(sub.ops.sat))
			sats = next
		}
		if int(n.K) >= len(sats) {
			return opsCount{count, maxInt{}, sats[0]}
		}
		return opsCount{count, sats[n.K], sats[0]}
	}
	return opsCount{}
}

func (n *Node) calcStackSize() stackSize {
	s := n.Subs
	both := func(x satInfo) stackSize { return stackSize{x, x} }
	switch n.Fragment {
	case Just0:
		return stackSize{satInfo{}, siPush}
	case Just1:
		return stackSize{siPush, satInfo{}}
	case Older, After:
		return stackSize{siPush.add(siNop), satInfo{}}
	case PkK:
		return both(siPush)
	case PkH:
		return both(cat(siDup, siHash, siPush, siEqVerify))
	case Sha256, Ripemd160, Hash256, Hash160:
		return stackSize{cat(siSize, siPush, siEqVerify, siHash, siPush, siEqual), satInfo{}}
	case AndOr:
		x, y, z := s[0].ss, s[1].ss, s[2].ss
		return stackSize{cat(x.sat, siIf, y.sat).or(cat(x.dsat, siIf, z.sat)), cat(x.dsat, siIf, z.dsat)}
	case AndV:
		return stackSize{s[0].ss.sat.add(s[1].ss.sat), satInfo{}}
	case AndB:
		x, y := s[0].ss, s[1].ss
		return stackSize{cat(x.sat, y.sat, siBinary), cat(x.dsat, y.dsat, siBinary)}
	case OrB:
		x, y := s[0].ss, s[1].ss
		return stackSize{x.sat.add(y.dsat).or(x.dsat.add(y.sat)).add(siBinary), cat(x.dsat, y.dsat, siBinary)}
	case OrC:
		x, y := s[0].ss, s[1].ss
		return stackSize{x.sat.add(siIf).or(cat(x.dsat, siIf, y.sat)), satInfo{}}
	case OrD:
		x, y := s[0].ss, s[1].ss
		return stackSize{cat(x.sat, siIfDup(true), siIf).or(cat(x.dsat, siIfDup(false), siIf, y.sat)),
			cat(x.dsat, siIfDup(false), siIf, y.dsat)}
	case OrI:
		x, y := s[0].ss, s[1].ss
		return stackSize{siIf.add(x.sat.or(y.sat)), siIf.add(x.dsat.or(y.dsat))}
	case Multi:
		return both(si(int32(n.K), int32(n.K)+int32(len(n.Keys))+2))
	case MultiA:
		return both(si(int32(len(n.Keys))-1, int32(len(n.Keys))))
	case WrapA, WrapN, WrapS:
		return s[0].ss
	case WrapC:
		return stackSize{s[0].ss.sat.add(siCheckSig), s[0].ss.dsat.add(siCheckSig)}
	case WrapD:
		return stackSize{cat(siDup, siIf, s[0].ss.sat), siDup.add(siIf)}
	case WrapV:
		return stackSize{s[0].ss.sat.add(siVerify), satInfo{}}
	case WrapJ:
		return stackSize{cat(siSize, si0NotEq, siIf, s[0].ss.sat), cat(siSize, si0NotEq, siIf)}
	case Thresh:
		sats := []satInfo{siEmpty}
		for i, sub := range s {
			add := siEmpty
			if i > 0 {
				add = siBinary
			}
			next := []satInfo{cat(sats[0], sub.ss.dsat, add)}
			for j := 1; j < len(sats); j++ {
				next = append(next, sats[j].add(sub.ss.dsat).or(sats[j-1].add(sub.ss.sat)).add(add))
			}
			next = append(next, cat(sats[len(sats)-1], sub.ss.sat, add))
			sats = next
		}
		var satK satInfo
		if int(n.K) < len(sats) {
			satK = cat(sats[n.K], siPush, siEqual)
		}
		return stackSize{satK, cat(sats[0], siPush, siEqual)}
	}
	return stackSize{}
}

func (n *Node) calcWitnessSize() witnessSize {
	s := n.Subs
	sig, pub := uint32(1+72), uint32(1+33)
	if n.ctx == Tapscript {
		sig, pub = 1+65, 1+32
	}
	switch n.Fragment {
	case Just0:
		return witnessSize{maxInt{}, mi(0)}
	case Just1, Older, After:
		return witnessSize{mi(0), maxInt{}}
	case PkK:
		return witnessSize{mi(sig), mi(1)}
	case PkH:
		return witnessSize{mi(sig + pub), mi(1 + pub)}
	case Sha256, Ripemd160, Hash256, Hash160:
		return witnessSize{mi(1 + 32), maxInt{}}
	case AndOr:
		return witnessSize{s[0].ws.sat.add(s[1].ws.sat).or(s[0].ws.dsat.add(s[2].ws.sat)), s[0].ws.dsat.add(s[2].ws.dsat)}
	case AndV:
		return witnessSize{s[0].ws.sat.add(s[1].ws.sat), maxInt{}}
	case AndB:
		return witnessSize{s[0].ws.sat.add(s[1].ws.sat), s[0].ws.dsat.add(s[1].ws.dsat)}
	case OrB:
		return witnessSize{s[0].ws.dsat.add(s[1].ws.sat).or(s[0].ws.sat.add(s[1].ws.dsat)), s[0].ws.dsat.add(s[1].ws.dsat)}
	case OrC:
		return witnessSize{s[0].ws.sat.or(s[0].ws.dsat.add(s[1].ws.sat)), maxInt{}}
	case OrD:
		return witnessSize{s[0].ws.sat.or(s[0].ws.dsat.add(s[1].ws.sat)), s[0].ws.dsat.add(s[1].ws.dsat)}
	case OrI:
		return witnessSize{s[0].ws.sat.add(mi(2)).or(s[1].ws.sat.add(mi(1))), s[0].ws.dsat.add(mi(2)).or(s[1].ws.dsat.add(mi(1)))}
	case Multi:
		return witnessSize{mi(n.K*sig + 1), mi(n.K + 1)}
	case MultiA:
		return witnessSize{mi(n.K*sig + uint32(len(n.Keys)) - n.K), mi(uint32(len(n.Keys)))}
	case WrapA, WrapN, WrapS, WrapC:
		return s[0].ws
	case WrapD:
		return witnessSize{mi(2).add(s[0].ws.sat), mi(1)}
	case WrapV:
		return witnessSize{s[0].ws.sat, maxInt{}}
	case WrapJ:
		return witnessSize{s[0].ws.sat, mi(1)}
	case Thresh:
		sats := []maxInt{mi(0)}
		for _, sub := range s {
			next := []maxInt{sats[0].add(sub.ws.dsat)}
			for j := 1; j < len(sats); j++ {
				next = append(next, sats[j].add(sub.ws.dsat).or(sats[j-1].add(sub.ws.sat)))
			}
			next = append(next, sats[len(sats)-1].add(sub.ws.sat))
			sats = next
		}
		if int(n.K) >= len(sats) {
			return witnessSize{maxInt{}, sats[0]}
		}
		return witnessSize{sats[n.K], sats[0]}
	}
	return witnessSize{}
}

// Checks, as Core's Node methods of the same names.

// IsValid reports whether the node type-checks and fits the script size
// limit of its context.
func (n *Node) IsValid() bool { return n.typ != 0 && n.scriptLen <= maxScriptSize(n.ctx) }

// IsValidTopLevel reports whether the node is valid and of type B.
func (n *Node) IsValidTopLevel() bool { return n.IsValid() && n.typ.Has(tB) }

// IsNonMalleable reports whether every satisfaction can be made
// non-malleably.
func (n *Node) IsNonMalleable() bool { return n.typ.Has(tm) }

// NeedsSignature reports whether every satisfaction needs a signature.
func (n *Node) NeedsSignature() bool { return n.typ.Has(ts) }

// CheckTimeLocksMix reports whether no satisfaction mixes heights and
// times.
func (n *Node) CheckTimeLocksMix() bool { return n.typ.Has(tk) }

// CheckDuplicateKey reports whether no key appears twice (after a
// duplicate check has run on the tree).
func (n *Node) CheckDuplicateKey() bool { return n.dup == 1 }

func (n *Node) ops_() (uint32, bool) {
	if !n.ops.sat.valid {
		return 0, false
	}
	return n.ops.count + n.ops.sat.v, true
}

// CheckOpsLimit checks the non-push opcode limit (P2WSH only).
func (n *Node) CheckOpsLimit() bool {
	if n.ctx == Tapscript {
		return true
	}
	if o, ok := n.ops_(); ok {
		return o <= maxOpsPerScript
	}
	return true
}

func (n *Node) isBKW() int32 {
	if n.typ&(tB|tK|tW) != 0 {
		return 1
	}
	return 0
}

// StackSize is the largest number of stack elements a non-malleable
// satisfaction needs; false when there is no satisfaction.
func (n *Node) StackSize() (uint32, bool) {
	if !n.ss.sat.valid {
		return 0, false
	}
	return uint32(n.ss.sat.netdiff + n.isBKW()), true
}

// WitnessSize is the largest size in bytes of a non-malleable
// satisfaction's stack elements, each counted with its length prefix and
// ECDSA signatures counted at 72 bytes, without the witness script (Core's
// GetWitnessSize); false when there is no satisfaction.
func (n *Node) WitnessSize() (uint32, bool) {
	if !n.ws.sat.valid {
		return 0, false
	}
	return n.ws.sat.v, true
}

func (n *Node) execStackSize() (uint32, bool) {
	if !n.ss.sat.valid {
		return 0, false
	}
	return uint32(n.ss.sat.exec + n.isBKW()), true
}

// CheckStackSize checks the stack limits of the context.
func (n *Node) CheckStackSize() bool {
	if n.ctx == Tapscript {
		if e, ok := n.execStackSize(); ok {
			return e <= maxStackSize
		}
		return true
	}
	if s, ok := n.StackSize(); ok {
		return s <= maxP2WSHStackItems
	}
	return true
}

// IsNotSatisfiable reports whether no satisfaction exists.
func (n *Node) IsNotSatisfiable() bool { _, ok := n.StackSize(); return !ok }

// ValidSatisfactions reports whether non-malleable satisfactions are
// guaranteed to stay within the resource limits.
func (n *Node) ValidSatisfactions() bool {
	return n.IsValid() && n.CheckOpsLimit() && n.CheckStackSize()
}

// IsSaneSubexpression is Core's check for a subexpression: valid
// satisfactions, non-malleable, no timelock mix, no duplicate key.
func (n *Node) IsSaneSubexpression() bool {
	return n.ValidSatisfactions() && n.IsNonMalleable() && n.CheckTimeLocksMix() && n.CheckDuplicateKey()
}

// IsSane reports whether the node is safe as a script on its own.
func (n *Node) IsSane() bool {
	return n.IsValidTopLevel() && n.IsSaneSubexpression() && n.NeedsSignature()
}

// FindInsaneSub returns the first (in post-order) insane subexpression all
// of whose children are sane, or nil.
func (n *Node) FindInsaneSub() *Node {
	for _, s := range n.Subs {
		if r := s.FindInsaneSub(); r != nil {
			return r
		}
	}
	if !n.IsSaneSubexpression() {
		return n
	}
	return nil
}

// SaneError returns Core's message for a miniscript that is not sane or
// not satisfiable, or "" when it is sane and satisfiable. key prints key
// i.
func (n *Node) SaneError(key func(int) string) string {
	if n.IsSane() && !n.IsNotSatisfiable() {
		return ""
	}
	insane := n
	if s := n.FindInsaneSub(); s != nil {
		insane = s
	}
	msg := insane.String(key)
	switch {
	case !insane.IsValid():
		msg += " is invalid"
	case !n.IsSane():
		msg += " is not sane"
		switch {
		case !insane.IsNonMalleable():
			msg += ": malleable witnesses exist"
		case insane == n && !insane.NeedsSignature():
			msg += ": witnesses without signature exist"
		case !insane.CheckTimeLocksMix():
			msg += ": contains mixes of timelocks expressed in blocks and seconds"
		case !insane.CheckDuplicateKey():
			msg += ": contains duplicate public keys"
		case !insane.ValidSatisfactions():
			msg += ": needs witnesses that may exceed resource limits"
		}
	default:
		msg += " is not satisfiable"
	}
	return msg
}

// DuplicateKeyCheck marks every node of the tree with whether a key
// appears twice in it; id gives a key's identity.
func (n *Node) DuplicateKeyCheck(id func(int) string) {
	n.dupCheck(id)
}

func (n *Node) dupCheck(id func(int) string) map[string]bool {
	var sets []map[string]bool
	bad := false
	for _, s := range n.Subs {
		m := s.dupCheck(id)
		if m == nil {
			bad = true
		}
		sets = append(sets, m)
	}
	if bad {
		n.dup = 2
		return nil
	}
	set := map[string]bool{}
	for _, k := range n.Keys {
		kid := id(k)
		if set[kid] {
			n.dup = 2
			return nil
		}
		set[kid] = true
	}
	for _, m := range sets {
		for k := range m {
			if set[k] {
				n.dup = 2
				return nil
			}
			set[k] = true
		}
	}
	n.dup = 1
	return set
}

// Equal reports whether two trees are the same miniscript (keys compared by
// index).
func (n *Node) Equal(o *Node) bool {
	if n.Fragment != o.Fragment || n.K != o.K || len(n.Keys) != len(o.Keys) ||
		string(n.Data) != string(o.Data) || len(n.Subs) != len(o.Subs) {
		return false
	}
	for i := range n.Keys {
		if n.Keys[i] != o.Keys[i] {
			return false
		}
	}
	for i := range n.Subs {
		if !n.Subs[i].Equal(o.Subs[i]) {
			return false
		}
	}
	return true
}

// Script building.

// Opcodes used by miniscript.
const (
	op0                   = 0x00
	opPushData1           = 0x4c
	opPushData2           = 0x4d
	opPushData4           = 0x4e
	op1Negate             = 0x4f
	op1                   = 0x51
	op16                  = 0x60
	opIf                  = 0x63
	opNotIf               = 0x64
	opElse                = 0x67
	opEndIf               = 0x68
	opVerify              = 0x69
	opToAltStack          = 0x6b
	opFromAltStack        = 0x6c
	opIfDup               = 0x73
	opDup                 = 0x76
	opSwap                = 0x7c
	opSize                = 0x82
	opEqual               = 0x87
	opEqualVerify         = 0x88
	op0NotEqual           = 0x92
	opAdd                 = 0x93
	opBoolAnd             = 0x9a
	opBoolOr              = 0x9b
	opNumEqual            = 0x9c
	opNumEqualVerify      = 0x9d
	opRipemd160           = 0xa6
	opSha256              = 0xa8
	opHash160             = 0xa9
	opHash256             = 0xaa
	opCheckSig            = 0xac
	opCheckSigVerify      = 0xad
	opCheckMultiSig       = 0xae
	opCheckMultiSigVerify = 0xaf
	opCLTV                = 0xb1
	opCSV                 = 0xb2
	opCheckSigAdd         = 0xba
)

// scriptNum is the minimal CScriptNum encoding of v.
func scriptNum(v int64) []byte {
	if v == 0 {
		return nil
	}
	neg := v < 0
	a := uint64(v)
	if neg {
		a = uint64(-v)
	}
	var b []byte
	for a > 0 {
		b = append(b, byte(a))
		a >>= 8
	}
	if b[len(b)-1]&0x80 != 0 {
		if neg {
			b = append(b, 0x80)
		} else {
			b = append(b, 0)
		}
	} else if neg {
		b[len(b)-1] |= 0x80
	}
	return b
}

func pushData(b, d []byte) []byte {
	switch {
	case len(d) < opPushData1:
		b = append(b, byte(len(d)))
	case len(d) <= 0xff:
		b = append(b, opPushData1, byte(len(d)))
	case len(d) <= 0xffff:
		b = append(b, opPushData2, byte(len(d)), byte(len(d)>>8))
	default:
		b = append(b, opPushData4, byte(len(d)), byte(len(d)>>8), byte(len(d)>>16), byte(len(d)>>24))
	}
	return append(b, d...)
}

func pushInt(b []byte, v int64) []byte {
	switch {
	case v == 0:
		return append(b, op0)
	case v == -1:
		return append(b, op1Negate)
	case v >= 1 && v <= 16:
		return append(b, byte(op1-1+v))
	}
	return pushData(b, scriptNum(v))
}

// Script returns the script of the miniscript; keys[i] is the serialized
// key of index i (33 bytes under P2WSH, 32 under Tapscript).
func (n *Node) Script(keys [][]byte) ([]byte, error) {
	for _, k := range n.allKeys(nil) {
		if k < 0 || k >= len(keys) {
			return nil, makeError(ErrKey, "miniscript key index out of range")
		}
	}
	return n.script(nil, false, keys), nil
}

func (n *Node) allKeys(acc []int) []int {
	acc = append(acc, n.Keys...)
	for _, s := range n.Subs {
		acc = s.allKeys(acc)
	}
	return acc
}

func verifyOp(verify bool, plain, v byte) byte {
	if verify {
		return v
	}
	return plain
}

func (n *Node) script(b []byte, verify bool, keys [][]byte) []byte {
	s := n.Subs
	switch n.Fragment {
	case PkK:
		return pushData(b, keys[n.Keys[0]])
	case PkH:
		b = append(b, opDup, opHash160)
		h := script.Hash160(keys[n.Keys[0]])
		b = pushData(b, h[:])
		return append(b, opEqualVerify)
	case Older:
		return append(pushInt(b, int64(n.K)), opCSV)
	case After:
		return append(pushInt(b, int64(n.K)), opCLTV)
	case Sha256, Ripemd160, Hash256, Hash160:
		op := map[Fragment]byte{Sha256: opSha256, Ripemd160: opRipemd160, Hash256: opHash256, Hash160: opHash160}[n.Fragment]
		b = append(b, opSize)
		b = pushInt(b, 32)
		b = append(b, opEqualVerify, op)
		b = pushData(b, n.Data)
		return append(b, verifyOp(verify, opEqual, opEqualVerify))
	case WrapA:
		b = append(b, opToAltStack)
		b = s[0].script(b, false, keys)
		return append(b, opFromAltStack)
	case WrapS:
		b = append(b, opSwap)
		return s[0].script(b, verify, keys)
	case WrapC:
		b = s[0].script(b, false, keys)
		return append(b, verifyOp(verify, opCheckSig, opCheckSigVerify))
	case WrapD:
		b = append(b, opDup, opIf)
		b = s[0].script(b, false, keys)
		return append(b, opEndIf)
	case WrapV:
		b = s[0].script(b, true, keys)
		if s[0].typ.Has(tx) {
			b = append(b, opVerify)
		}
		return b
	case WrapJ:
		b = append(b, opSize, op0NotEqual, opIf)
		b = s[0].script(b, false, keys)
		return append(b, opEndIf)
	case WrapN:
		b = s[0].script(b, false, keys)
		return append(b, op0NotEqual)
	case Just1:
		return append(b, op1)
	case Just0:
		return append(b, op0)
	case AndV:
		b = s[0].script(b, false, keys)
		return s[1].script(b, verify, keys)
	case AndB:
		b = s[1].script(s[0].script(b, false, keys), false, keys)
		return append(b, opBoolAnd)
	case OrB:
		b = s[1].script(s[0].script(b, false, keys), false, keys)
		return append(b, opBoolOr)
	case OrD:
		b = s[0].script(b, false, keys)
		b = append(b, opIfDup, opNotIf)
		b = s[1].script(b, false, keys)
		return append(b, opEndIf)
	case OrC:
		b = s[0].script(b, false, keys)
		b = append(b, opNotIf)
		b = s[1].script(b, false, keys)
		return append(b, opEndIf)
	case OrI:
		b = append(b, opIf)
		b = s[0].script(b, false, keys)
		b = append(b, opElse)
		b = s[1].script(b, false, keys)
		return append(b, opEndIf)
	case AndOr:
		b = s[0].script(b, false, keys)
		b = append(b, opNotIf)
		b = s[2].script(b, false, keys)
		b = append(b, opElse)
		b = s[1].script(b, false, keys)
		return append(b, opEndIf)
	case Multi:
		b = pushInt(b, int64(n.K))
		for _, k := range n.Keys {
			b = pushData(b, keys[k])
		}
		b = pushInt(b, int64(len(n.Keys)))
		return append(b, verifyOp(verify, opCheckMultiSig, opCheckMultiSigVerify))
	case MultiA:
		for i, k := range n.Keys {
			b = pushData(b, keys[k])
			if i == 0 {
				b = append(b, opCheckSig)
			} else {
				b = append(b, opCheckSigAdd)
			}
		}
		b = pushInt(b, int64(n.K))
		return append(b, verifyOp(verify, opNumEqual, opNumEqualVerify))
	case Thresh:
		for i, sub := range s {
			b = sub.script(b, false, keys)
			if i > 0 {
				b = append(b, opAdd)
			}
		}
		b = pushInt(b, int64(n.K))
		return append(b, verifyOp(verify, opEqual, opEqualVerify))
	}
	return b
}

// String prints the miniscript as Core does, key i printed by key(i).
func (n *Node) String(key func(int) string) string {
	return n.str(false, key)
}

func isWrapper(n *Node) bool {
	switch n.Fragment {
	case WrapA, WrapS, WrapD, WrapV, WrapJ, WrapN, WrapC:
		return true
	case AndV:
		return n.Subs[1].Fragment == Just1
	case OrI:
		return n.Subs[0].Fragment == Just0 || n.Subs[1].Fragment == Just0
	}
	return false
}

func (n *Node) str(wrapped bool, key func(int) string) string {
	ret := ""
	if wrapped {
		ret = ":"
	}
	w := isWrapper(n)
	sub := func(i int) string { return n.Subs[i].str(w, key) }
	switch n.Fragment {
	case WrapA:
		return "a" + sub(0)
	case WrapS:
		return "s" + sub(0)
	case WrapC:
		switch n.Subs[0].Fragment {
		case PkK:
			return ret + "pk(" + key(n.Subs[0].Keys[0]) + ")"
		case PkH:
			return ret + "pkh(" + key(n.Subs[0].Keys[0]) + ")"
		}
		return "c" + sub(0)
	case WrapD:
		return "d" + sub(0)
	case WrapV:
		return "v" + sub(0)
	case WrapJ:
		return "j" + sub(0)
	case WrapN:
		return "n" + sub(0)
	case AndV:
		if n.Subs[1].Fragment == Just1 {
			return "t" + sub(0)
		}
	case OrI:
		if n.Subs[0].Fragment == Just0 {
			return "l" + sub(1)
		}
		if n.Subs[1].Fragment == Just0 {
			return "u" + sub(0)
		}
	}
	k := strconv.FormatUint(uint64(n.K), 10)
	switch n.Fragment {
	case PkK:
		return ret + "pk_k(" + key(n.Keys[0]) + ")"
	case PkH:
		return ret + "pk_h(" + key(n.Keys[0]) + ")"
	case After:
		return ret + "after(" + k + ")"
	case Older:
		return ret + "older(" + k + ")"
	case Hash256:
		return ret + "hash256(" + hex.EncodeToString(n.Data) + ")"
	case Hash160:
		return ret + "hash160(" + hex.EncodeToString(n.Data) + ")"
	case Sha256:
		return ret + "sha256(" + hex.EncodeToString(n.Data) + ")"
	case Ripemd160:
		return ret + "ripemd160(" + hex.EncodeToString(n.Data) + ")"
	case Just1:
		return ret + "1"
	case Just0:
		return ret + "0"
	case AndV:
		return ret + "and_v(" + sub(0) + "," + sub(1) + ")"
	case AndB:
		return ret + "and_b(" + sub(0) + "," + sub(1) + ")"
	case OrB:
		return ret + "or_b(" + sub(0) + "," + sub(1) + ")"
	case OrD:
		return ret + "or_d(" + sub(0) + "," + sub(1) + ")"
	case OrC:
		return ret + "or_c(" + sub(0) + "," + sub(1) + ")"
	case OrI:
		return ret + "or_i(" + sub(0) + "," + sub(1) + ")"
	case AndOr:
		if n.Subs[2].Fragment == Just0 {
			return ret + "and_n(" + sub(0) + "," + sub(1) + ")"
		}
		return ret + "andor(" + sub(0) + "," + sub(1) + "," + sub(2) + ")"
	case Multi, MultiA:
		name := "multi("
		if n.Fragment == MultiA {
			name = "multi_a("
		}
		s := ret + name + k
		for _, kk := range n.Keys {
			s += "," + key(kk)
		}
		return s + ")"
	case Thresh:
		s := ret + "thresh(" + k
		for i := range n.Subs {
			s += "," + sub(i)
		}
		return s + ")"
	}
	return ""
}
