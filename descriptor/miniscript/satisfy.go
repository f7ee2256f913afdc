package miniscript

import "math"

// Availability says whether a satisfaction exists with the data at hand.
type Availability int

// The availabilities. Maybe is for size estimation with placeholder data.
const (
	No Availability = iota
	Yes
	Maybe
)

// Satisfier supplies what a satisfaction needs: signatures by key index,
// hash preimages, serialized keys and the spending transaction's timelocks.
type Satisfier interface {
	// Sign returns a signature (with its sighash byte) for key i.
	Sign(key int) ([]byte, Availability)
	// PKBytes returns the serialized key i (pushed for pk_h).
	PKBytes(key int) []byte
	// Preimage returns the preimage of hash for a hash fragment (Sha256,
	// Hash256, Ripemd160 or Hash160).
	Preimage(fr Fragment, hash []byte) ([]byte, Availability)
	// CheckOlder reports whether the spending input satisfies older(n).
	CheckOlder(n uint32) bool
	// CheckAfter reports whether the spending transaction satisfies
	// after(n).
	CheckAfter(n uint32) bool
}

// inputStack is a candidate witness for a node: Core's InputStack.
type inputStack struct {
	avail     Availability
	hasSig    bool
	malleable bool
	nonCanon  bool
	size      int
	stack     [][]byte
}

func elem(b []byte) inputStack {
	return inputStack{avail: Yes, size: len(b) + 1, stack: [][]byte{b}}
}

var (
	isEmpty   = inputStack{avail: Yes}
	isInvalid = inputStack{avail: No, size: math.MaxInt}
)

func isZero() inputStack { return elem([]byte{}) }
func isOne() inputStack  { return elem([]byte{1}) }
func isZero32() inputStack {
	s := elem(make([]byte, 32))
	s.malleable = true
	return s
}

func (a inputStack) setAvail(v Availability) inputStack {
	a.avail = v
	if v == No {
		a.stack = nil
		a.size = math.MaxInt
		a.hasSig, a.malleable, a.nonCanon = false, false, false
	}
	return a
}

func (a inputStack) withSig() inputStack      { a.hasSig = true; return a }
func (a inputStack) nonCanonical() inputStack { a.nonCanon = true; return a }
func (a inputStack) setMalleable(m bool) inputStack {
	a.malleable = m
	return a
}

// plus concatenates two stacks (b's elements go after a's).
func plus(a, b inputStack) inputStack {
	r := a
	r.stack = make([][]byte, 0, len(a.stack)+len(b.stack))
	r.stack = append(append(r.stack, a.stack...), b.stack...)
	if a.avail != No && b.avail != No {
		r.size = a.size + b.size
	}
	r.hasSig = a.hasSig || b.hasSig
	r.malleable = a.malleable || b.malleable
	r.nonCanon = a.nonCanon || b.nonCanon
	switch {
	case a.avail == No || b.avail == No:
		r = r.setAvail(No)
	case a.avail == Maybe || b.avail == Maybe:
		r = r.setAvail(Maybe)
	}
	return r
}

// choose picks the better of two stacks, as Core's operator|.
func choose(a, b inputStack) inputStack {
	if a.avail == No {
		return b
	}
	if b.avail == No {
		return a
	}
	if !a.hasSig && b.hasSig {
		return a
	}
	if !b.hasSig && a.hasSig {
		return b
	}
	if !a.hasSig && !b.hasSig {
		a.malleable = true
		b.malleable = true
	} else {
		if b.malleable && !a.malleable {
			return a
		}
		if a.malleable && !b.malleable {
			return b
		}
	}
	switch {
	case a.avail == Yes && b.avail == Yes:
		if a.size <= b.size {
			return a
		}
		return b
	case a.avail == Maybe && b.avail == Maybe:
		if a.size >= b.size {
			return a
		}
		return b
	case a.avail == Yes:
		return a
	}
	return b
}

type inputResult struct{ nsat, sat inputStack }

func (n *Node) produceInput(c Satisfier) inputResult {
	var sub []inputResult
	for _, s := range n.Subs {
		sub = append(sub, s.produceInput(c))
	}
	switch n.Fragment {
	case PkK:
		sig, av := c.Sign(n.Keys[0])
		return inputResult{isZero(), elem(sig).withSig().setAvail(av)}
	case PkH:
		key := c.PKBytes(n.Keys[0])
		sig, av := c.Sign(n.Keys[0])
		return inputResult{plus(isZero(), elem(key)), plus(elem(sig).withSig(), elem(key)).setAvail(av)}
	case MultiA:
		sats := []inputStack{isEmpty}
		for i := range n.Keys {
			sig, av := c.Sign(n.Keys[len(n.Keys)-1-i])
			sat := elem(sig).withSig().setAvail(av)
			next := []inputStack{plus(sats[0], isZero())}
			for j := 1; j < len(sats); j++ {
				next = append(next, choose(plus(sats[j], isZero()), plus(sats[j-1], sat)))
			}
			next = append(next, plus(sats[len(sats)-1], sat))
			sats = next
		}
		return inputResult{sats[0], sats[n.K]}
	case Multi:
		sats := []inputStack{isZero()}
		for _, k := range n.Keys {
			sig, av := c.Sign(k)
			sat := elem(sig).withSig().setAvail(av)
			next := []inputStack{sats[0]}
			for j := 1; j < len(sats); j++ {
				next = append(next, choose(sats[j], plus(sats[j-1], sat)))
			}
			next = append(next, plus(sats[len(sats)-1], sat))
			sats = next
		}
		nsat := isZero()
		for i := uint32(0); i < n.K; i++ {
			nsat = plus(nsat, isZero())
		}
		return inputResult{nsat, sats[n.K]}
	case Thresh:
		sats := []inputStack{isEmpty}
		for i := range sub {
			res := sub[len(sub)-i-1]
			next := []inputStack{plus(sats[0], res.nsat)}
			for j := 1; j < len(sats); j++ {
				next = append(next, choose(plus(sats[j], res.nsat), plus(sats[j-1], res.sat)))
			}
			next = append(next, plus(sats[len(sats)-1], res.sat))
			sats = next
		}
		nsat := isInvalid
		for i := range sats {
			if i != 0 && i != int(n.K) {
				sats[i] = sats[i].setMalleable(true).nonCanonical()
			}
			if i != int(n.K) {
				nsat = choose(nsat, sats[i])
			}
		}
		return inputResult{nsat, sats[n.K]}
	case Older:
		if c.CheckOlder(n.K) {
			return inputResult{isInvalid, isEmpty}
		}
		return inputResult{isInvalid, isInvalid}
	case After:
		if c.CheckAfter(n.K) {
			return inputResult{isInvalid, isEmpty}
		}
		return inputResult{isInvalid, isInvalid}
	case Sha256, Ripemd160, Hash256, Hash160:
		pre, av := c.Preimage(n.Fragment, n.Data)
		return inputResult{isZero32(), elem(pre).setAvail(av)}
	case AndV:
		x, y := sub[0], sub[1]
		return inputResult{plus(y.nsat, x.sat).nonCanonical(), plus(y.sat, x.sat)}
	case AndB:
		x, y := sub[0], sub[1]
		return inputResult{
			choose(choose(plus(y.nsat, x.nsat), plus(y.sat, x.nsat).setMalleable(true).nonCanonical()),
				plus(y.nsat, x.sat).setMalleable(true).nonCanonical()),
			plus(y.sat, x.sat)}
	case OrB:
		x, z := sub[0], sub[1]
		return inputResult{plus(z.nsat, x.nsat),
			choose(choose(plus(z.nsat, x.sat), plus(z.sat, x.nsat)), plus(z.sat, x.sat).setMalleable(true).nonCanonical())}
	case OrC:
		x, z := sub[0], sub[1]
		return inputResult{isInvalid, choose(x.sat, plus(z.sat, x.nsat))}
	case OrD:
		x, z := sub[0], sub[1]
		return inputResult{plus(z.nsat, x.nsat), choose(x.sat, plus(z.sat, x.nsat))}
	case OrI:
		x, z := sub[0], sub[1]
		return inputResult{choose(plus(x.nsat, isOne()), plus(z.nsat, isZero())),
			choose(plus(x.sat, isOne()), plus(z.sat, isZero()))}
	case AndOr:
		x, y, z := sub[0], sub[1], sub[2]
		return inputResult{choose(plus(y.nsat, x.sat).nonCanonical(), plus(z.nsat, x.nsat)),
			choose(plus(y.sat, x.sat), plus(z.sat, x.nsat))}
	case WrapA, WrapS, WrapC, WrapN:
		return sub[0]
	case WrapD:
		return inputResult{isZero(), plus(sub[0].sat, isOne())}
	case WrapJ:
		x := sub[0]
		return inputResult{isZero().setMalleable(x.nsat.avail != No && !x.nsat.hasSig), x.sat}
	case WrapV:
		return inputResult{isInvalid, sub[0].sat}
	case Just0:
		return inputResult{isEmpty, isInvalid}
	case Just1:
		return inputResult{isInvalid, isEmpty}
	}
	return inputResult{isInvalid, isInvalid}
}

// Satisfy returns the witness stack (bottom first, without the script)
// that satisfies the miniscript non-malleably with what c supplies, as
// Core's Satisfy: the best non-malleable satisfaction that holds a
// signature, or No.
func (n *Node) Satisfy(c Satisfier) ([][]byte, Availability) {
	r := n.produceInput(c).sat
	if r.malleable || !r.hasSig {
		return nil, No
	}
	return r.stack, r.avail
}
