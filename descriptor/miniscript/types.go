package miniscript

import (
	"strings"

	"github.com/btcsuite/btcd/wire/v2"
)

// Type is a set of miniscript type properties: one basic type (B, V, K or
// W) and the modifiers z o n d u e f s m x, plus the timelock flags g h i j
// and k. The empty set marks an expression that does not type-check.
type Type uint32

// The properties, one bit each.
const (
	TypeB Type = 1 << iota // base
	TypeV                  // verify
	TypeK                  // key
	TypeW                  // wrapped
	Typez                  // consumes exactly 0 stack elements
	Typeo                  // consumes exactly 1 stack element
	Typen                  // nonzero: satisfactions never need a zero top element
	Typed                  // dissatisfiable
	Typeu                  // unit: satisfaction puts exactly 1 on the stack
	Typee                  // expression: a non-malleable dissatisfaction exists
	Typef                  // forced: dissatisfactions always involve a signature
	Types                  // safe: satisfactions always involve a signature
	Typem                  // non-malleable
	Typex                  // expensive verify
	Typeg                  // contains a relative time lock
	Typeh                  // contains a relative height lock
	Typei                  // contains an absolute time lock
	Typej                  // contains an absolute height lock
	Typek                  // no satisfaction mixes heights and times
)

const typeLetters = "BVKWzonduefsmxghijk"

// mst builds a Type from its letters.
func mst(s string) Type {
	var t Type
	for _, c := range s {
		i := strings.IndexRune(typeLetters, c)
		if i < 0 {
			panic("miniscript: unknown type letter")
		}
		t |= 1 << uint(i)
	}
	return t
}

// Has reports whether t has every property of x (Core's t << x).
func (t Type) Has(x Type) bool { return x&^t == 0 }

// when returns t if c holds, the empty type otherwise.
func (t Type) when(c bool) Type {
	if c {
		return t
	}
	return 0
}

// String lists the properties' letters.
func (t Type) String() string {
	var b strings.Builder
	for i, c := range typeLetters {
		if t&(1<<uint(i)) != 0 {
			b.WriteRune(c)
		}
	}
	return b.String()
}

var (
	tB, tV, tK, tW = TypeB, TypeV, TypeK, TypeW
	tz, to, tn, td = Typez, Typeo, Typen, Typed
	tu, te, tf, ts = Typeu, Typee, Typef, Types
	tm, tx         = Typem, Typex
	tg, th, ti, tj = Typeg, Typeh, Typei, Typej
	tk             = Typek
	tGHIJ          = tg | th | ti | tj
	tGHIJK         = tGHIJ | tk
)

const (
	locktimeThreshold   = 500000000
	sequenceTypeFlag    = 1 << 22
	maxPubkeysMultisig  = 20
	maxPubkeysMultiA    = 999
	maxOpsPerScript     = 201
	maxP2WSHScriptSize  = 3600
	maxP2WSHStackItems  = 100
	maxStackSize        = 1000
	maxTapscriptSatSize = 3 + (1+65)*1000 + 3 + 4129
	txBodyLeewayWeight  = (8+1+41+1+43)*4 + 2
)

// maxScriptSize is Core's MaxScriptSize for the context.
func maxScriptSize(ctx Context) int {
	if ctx == Tapscript {
		const max = 400000 - txBodyLeewayWeight - maxTapscriptSatSize
		return max - wire.VarIntSerializeSize(max)
	}
	return maxP2WSHScriptSize
}

// mixes reports whether x and y hold timelocks of different kinds.
func mixes(x, y Type) bool {
	return x.Has(tg) && y.Has(th) || x.Has(th) && y.Has(tg) ||
		x.Has(ti) && y.Has(tj) || x.Has(tj) && y.Has(ti)
}

// computeType is Core's ComputeType: the type of a fragment from the types
// of its subexpressions.
func computeType(fr Fragment, x, y, z Type, subTypes []Type, k uint32, nSubs int, ctx Context) Type {
	switch fr {
	case PkK:
		return mst("Konudemsxk")
	case PkH:
		return mst("Knudemsxk")
	case Older:
		return tg.when(k&sequenceTypeFlag != 0) | th.when(k&sequenceTypeFlag == 0) | mst("Bzfmxk")
	case After:
		return ti.when(k >= locktimeThreshold) | tj.when(k < locktimeThreshold) | mst("Bzfmxk")
	case Sha256, Ripemd160, Hash256, Hash160:
		return mst("Bonudmk")
	case Just1:
		return mst("Bzufmxk")
	case Just0:
		return mst("Bzudemsxk")
	case WrapA:
		return tW.when(x.Has(tB)) | x&tGHIJK | x&mst("udfems") | tx
	case WrapS:
		return tW.when(x.Has(tB|to)) | x&tGHIJK | x&mst("udfemsx")
	case WrapC:
		return tB.when(x.Has(tK)) | x&tGHIJK | x&mst("ondfem") | tu | ts
	case WrapD:
		return tB.when(x.Has(tV|tz)) | to.when(x.Has(tz)) | te.when(x.Has(tf)) | x&tGHIJK |
			x&(tm|ts) | tu.when(ctx == Tapscript) | tn | td | tx
	case WrapV:
		return tV.when(x.Has(tB)) | x&tGHIJK | x&mst("zonms") | tf | tx
	case WrapJ:
		return tB.when(x.Has(tB|tn)) | te.when(x.Has(tf)) | x&tGHIJK | x&mst("oums") | tn | td | tx
	case WrapN:
		return x&tGHIJK | x&mst("Bzondfems") | tu | tx
	case AndV:
		return (y & (tK | tV | tB)).when(x.Has(tV)) | x&tn | (y & tn).when(x.Has(tz)) |
			((x | y) & to).when((x | y).Has(tz)) | x&y&(td|tm|tz) | (x|y)&ts |
			tf.when(y.Has(tf) || x.Has(ts)) | y&(tu|tx) | (x|y)&tGHIJ |
			tk.when((x&y).Has(tk) && !mixes(x, y))
	case AndB:
		return (x & tB).when(y.Has(tW)) | ((x | y) & to).when((x | y).Has(tz)) | x&tn | (y & tn).when(x.Has(tz)) |
			(x & y & te).when((x & y).Has(ts)) | x&y&(td|tz|tm) |
			tf.when((x&y).Has(tf) || x.Has(ts|tf) || y.Has(ts|tf)) | (x|y)&ts | tu | tx |
			(x|y)&tGHIJ | tk.when((x&y).Has(tk) && !mixes(x, y))
	case OrB:
		return tB.when(x.Has(tB|td) && y.Has(tW|td)) | ((x | y) & to).when((x | y).Has(tz)) |
			(x & y & tm).when((x|y).Has(ts) && (x&y).Has(te)) | x&y&(tz|ts|te) | td | tu | tx |
			(x|y)&tGHIJ | x&y&tk
	case OrD:
		return (y & tB).when(x.Has(tB|td|tu)) | (x & to).when(y.Has(tz)) |
			(x & y & tm).when(x.Has(te) && (x|y).Has(ts)) | x&y&(tz|ts) | y&(tu|tf|td|te) | tx |
			(x|y)&tGHIJ | x&y&tk
	case OrC:
		return (y & tV).when(x.Has(tB|td|tu)) | (x & to).when(y.Has(tz)) |
			(x & y & tm).when(x.Has(te) && (x|y).Has(ts)) | x&y&(tz|ts) | tf | tx |
			(x|y)&tGHIJ | x&y&tk
	case OrI:
		return x&y&(tV|tB|tK|tu|tf|ts) | to.when((x & y).Has(tz)) | ((x | y) & te).when((x | y).Has(tf)) |
			(x & y & tm).when((x | y).Has(ts)) | (x|y)&td | tx | (x|y)&tGHIJ | x&y&tk
	case AndOr:
		return (y & z & (tB | tK | tV)).when(x.Has(tB|td|tu)) | x&y&z&tz |
			((x | (y & z)) & to).when((x | (y & z)).Has(tz)) | y&z&tu |
			(z & tf).when(x.Has(ts) || y.Has(tf)) | z&td | (z & te).when(x.Has(ts) || y.Has(tf)) |
			(x & y & z & tm).when(x.Has(te) && (x|y|z).Has(ts)) | z&(x|y)&ts | tx | (x|y|z)&tGHIJ |
			tk.when((x&y&z).Has(tk) && !mixes(x, y))
	case Multi:
		return mst("Bnudemsk")
	case MultiA:
		return mst("Budemsk")
	case Thresh:
		allE, allM := true, true
		args, numS := 0, 0
		acc := tk
		for i, t := range subTypes {
			want := tB | td | tu
			if i > 0 {
				want = tW | td | tu
			}
			if !t.Has(want) {
				return 0
			}
			if !t.Has(te) {
				allE = false
			}
			if !t.Has(tm) {
				allM = false
			}
			if t.Has(ts) {
				numS++
			}
			switch {
			case t.Has(tz):
			case t.Has(to):
				args++
			default:
				args += 2
			}
			acc = (acc|t)&tGHIJ | tk.when((acc&t).Has(tk) && (k <= 1 || !mixes(acc, t)))
		}
		return tB | td | tu | tz.when(args == 0) | to.when(args == 1) |
			te.when(allE && numS == nSubs) | tm.when(allE && allM && numS >= nSubs-int(k)) |
			ts.when(numS >= nSubs-int(k)+1) | acc
	}
	return 0
}

// sanitizeType is Core's SanitizeType: a type without exactly one basic
// type is no type.
func sanitizeType(e Type) Type {
	n := 0
	for _, b := range []Type{tK, tV, tB, tW} {
		if e.Has(b) {
			n++
		}
	}
	if n != 1 {
		return 0
	}
	return e
}
