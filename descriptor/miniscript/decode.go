package miniscript

// KeyResolver turns the keys found in a script into key indices.
type KeyResolver interface {
	// FromPKBytes returns the index of a key pushed by the script (33
	// bytes under P2WSH, 32 under Tapscript); false rejects the script.
	FromPKBytes(pub []byte) (int, bool)
	// FromPKHBytes returns the index of the key whose HASH160 is h; false
	// rejects the script.
	FromPKHBytes(h []byte) (int, bool)
	// KeyID returns an identity of key i for the duplicate key check.
	KeyID(i int) string
}

type opcode struct {
	op   byte
	data []byte
}

// decompose splits a script into opcodes, last first, with the -VERIFY
// opcodes split into their base opcode and OP_VERIFY, as Core's
// DecomposeScript. It fails on truncated or non-minimal pushes and on
// VERIFY sequences that have a -VERIFY form.
func decompose(s []byte) ([]opcode, bool) {
	var out []opcode
	for i := 0; i < len(s); {
		op := s[i]
		i++
		var data []byte
		if op <= opPushData4 {
			var n int
			switch {
			case op < opPushData1:
				n = int(op)
			case op == opPushData1:
				if i+1 > len(s) {
					return nil, false
				}
				n = int(s[i])
				i++
			case op == opPushData2:
				if i+2 > len(s) {
					return nil, false
				}
				n = int(s[i]) | int(s[i+1])<<8
				i += 2
			default:
				if i+4 > len(s) {
					return nil, false
				}
				n = int(s[i]) | int(s[i+1])<<8 | int(s[i+2])<<16 | int(s[i+3])<<24
				i += 4
				if n < 0 {
					return nil, false
				}
			}
			if n > len(s)-i {
				return nil, false
			}
			data = s[i : i+n]
			i += n
		}
		switch {
		case op >= op1 && op <= op16:
			data = []byte{op - op1 + 1}
		case op == opCheckSigVerify:
			out = append(out, opcode{op: opCheckSig})
			op = opVerify
		case op == opCheckMultiSigVerify:
			out = append(out, opcode{op: opCheckMultiSig})
			op = opVerify
		case op == opEqualVerify:
			out = append(out, opcode{op: opEqual})
			op = opVerify
		case op == opNumEqualVerify:
			out = append(out, opcode{op: opNumEqual})
			op = opVerify
		case op > op0 && op <= opPushData4:
			if !minimalPush(data, op) {
				return nil, false
			}
		case i < len(s) && (op == opCheckSig || op == opCheckMultiSig || op == opEqual || op == opNumEqual) && s[i] == opVerify:
			return nil, false
		}
		out = append(out, opcode{op, data})
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out, true
}

func minimalPush(data []byte, op byte) bool {
	switch {
	case len(data) == 0:
		return op == op0
	case len(data) == 1 && data[0] >= 1 && data[0] <= 16:
		return false
	case len(data) == 1 && data[0] == 0x81:
		return false
	case len(data) <= 75:
		return int(op) == len(data)
	case len(data) <= 255:
		return op == opPushData1
	case len(data) <= 65535:
		return op == opPushData2
	}
	return true
}

// scriptNumber is Core's ParseScriptNumber: the number an opcode pushes
// (minimally encoded, at most 4 bytes).
func scriptNumber(o opcode) (int64, bool) {
	if o.op == op0 {
		return 0, true
	}
	if len(o.data) == 0 || len(o.data) > 4 {
		return 0, false
	}
	if o.op > op0 && o.op <= opPushData4 && !minimalPush(o.data, o.op) {
		return 0, false
	}
	d := o.data
	if d[len(d)-1]&0x7f == 0 && (len(d) == 1 || d[len(d)-2]&0x80 == 0) {
		return 0, false
	}
	var v int64
	for i, b := range d {
		v |= int64(b) << (8 * uint(i))
	}
	if d[len(d)-1]&0x80 != 0 {
		return -(v & ^(int64(0x80) << (8 * uint(len(d)-1)))), true
	}
	return v, true
}

type decodeCtx int

const (
	dSingleBKV decodeCtx = iota
	dBKV
	dW
	dSwap
	dAlt
	dCheck
	dDupIf
	dVerify
	dNonZero
	dZeroNotEqual
	dMaybeAndV
	dAndV
	dAndB
	dAndOr
	dOrB
	dOrC
	dOrD
	dThreshW
	dThreshE
	dEndIf
	dEndIfNotIf
	dEndIfElse
)

type decodeItem struct {
	ctx  decodeCtx
	n, k int64
}

// Decode parses a script back into miniscript, as Core's FromScript. It
// returns nil when the script is not the script of a valid top-level
// miniscript. The duplicate key check has run on the result.
func Decode(script []byte, ctx Context, kr KeyResolver) *Node {
	if len(script) > maxScriptSize(ctx) {
		return nil
	}
	ops, ok := decompose(script)
	if !ok {
		return nil
	}
	n, pos := decode(ops, ctx, kr)
	if n == nil || pos != len(ops) {
		return nil
	}
	return n
}

func decode(in []opcode, ctx Context, kr KeyResolver) (*Node, int) {
	pos := 0
	last := len(in)
	at := func(j int) opcode { return in[pos+j] }
	toParse := []decodeItem{{dBKV, -1, -1}}
	var built []*Node
	mk := func(fr Fragment, subs []*Node, keys []int, data []byte, k uint32) *Node {
		return newNode(ctx, fr, subs, keys, data, k)
	}
	push := func(items ...decodeItem) { toParse = append(toParse, items...) }
	item := func(c decodeCtx) decodeItem { return decodeItem{c, -1, -1} }
	buildBackRev := func(fr Fragment) bool {
		if len(built) < 2 {
			return false
		}
		child := built[len(built)-1]
		built = built[:len(built)-1]
		built[len(built)-1] = mk(fr, []*Node{child, built[len(built)-1]}, nil, nil, 0)
		return true
	}
	wrap := func(fr Fragment) bool {
		if len(built) == 0 {
			return false
		}
		built[len(built)-1] = mk(fr, []*Node{built[len(built)-1]}, nil, nil, 0)
		return true
	}
	for len(toParse) > 0 {
		if len(built) > 0 && !built[len(built)-1].IsValid() {
			return nil, 0
		}
		cur := toParse[len(toParse)-1]
		toParse = toParse[:len(toParse)-1]
		left := last - pos
		switch cur.ctx {
		case dSingleBKV:
			if left <= 0 {
				return nil, 0
			}
			if at(0).op == op1 {
				pos++
				built = append(built, mk(Just1, nil, nil, nil, 0))
				break
			}
			if at(0).op == op0 {
				pos++
				built = append(built, mk(Just0, nil, nil, nil, 0))
				break
			}
			if l := len(at(0).data); l == 33 || l == 32 {
				k, ok := kr.FromPKBytes(at(0).data)
				if !ok {
					return nil, 0
				}
				pos++
				built = append(built, mk(PkK, nil, []int{k}, nil, 0))
				break
			}
			if left >= 5 && at(0).op == opVerify && at(1).op == opEqual && at(3).op == opHash160 &&
				at(4).op == opDup && len(at(2).data) == 20 {
				k, ok := kr.FromPKHBytes(at(2).data)
				if !ok {
					return nil, 0
				}
				pos += 5
				built = append(built, mk(PkH, nil, []int{k}, nil, 0))
				break
			}
			if left >= 2 && (at(0).op == opCSV || at(0).op == opCLTV) {
				if num, ok := scriptNumber(at(1)); ok {
					fr := Older
					if at(0).op == opCLTV {
						fr = After
					}
					pos += 2
					if num < 1 || num > 0x7fffffff {
						return nil, 0
					}
					built = append(built, mk(fr, nil, nil, nil, uint32(num)))
					break
				}
			}
			if left >= 7 && at(0).op == opEqual && at(3).op == opVerify && at(4).op == opEqual && at(6).op == opSize {
				if num, ok := scriptNumber(at(5)); ok && num == 32 {
					var fr Fragment = -1
					switch {
					case at(2).op == opSha256 && len(at(1).data) == 32:
						fr = Sha256
					case at(2).op == opRipemd160 && len(at(1).data) == 20:
						fr = Ripemd160
					case at(2).op == opHash256 && len(at(1).data) == 32:
						fr = Hash256
					case at(2).op == opHash160 && len(at(1).data) == 20:
						fr = Hash160
					}
					if fr >= 0 {
						built = append(built, mk(fr, nil, nil, append([]byte(nil), at(1).data...), 0))
						pos += 7
						break
					}
				}
			}
			if left >= 3 && at(0).op == opCheckMultiSig {
				if ctx == Tapscript {
					return nil, 0
				}
				n, ok := scriptNumber(at(1))
				if !ok || int64(left) < 3+n || n < 1 || n > 20 {
					return nil, 0
				}
				var keys []int
				for i := 0; i < int(n); i++ {
					if len(at(2+i).data) != 33 {
						return nil, 0
					}
					k, ok := kr.FromPKBytes(at(2 + i).data)
					if !ok {
						return nil, 0
					}
					keys = append(keys, k)
				}
				k, ok := scriptNumber(at(2 + int(n)))
				if !ok || k < 1 || k > n {
					return nil, 0
				}
				pos += 3 + int(n)
				reverseInts(keys)
				built = append(built, mk(Multi, nil, keys, nil, uint32(k)))
				break
			}
			if left >= 4 && at(0).op == opNumEqual {
				if ctx != Tapscript {
					return nil, 0
				}
				k, ok := scriptNumber(at(1))
				if !ok || k < 1 || k > maxPubkeysMultiA || int64(left) < 2+k*2 {
					return nil, 0
				}
				var keys []int
				for p := 2; ; p += 2 {
					if left < p+2 {
						return nil, 0
					}
					if at(p).op != opCheckSigAdd && at(p).op != opCheckSig {
						return nil, 0
					}
					if len(at(p+1).data) != 32 {
						return nil, 0
					}
					key, ok := kr.FromPKBytes(at(p + 1).data)
					if !ok {
						return nil, 0
					}
					keys = append(keys, key)
					if len(keys) > maxPubkeysMultiA {
						return nil, 0
					}
					if at(p).op == opCheckSig {
						break
					}
				}
				if int64(len(keys)) < k {
					return nil, 0
				}
				pos += 2 + len(keys)*2
				reverseInts(keys)
				built = append(built, mk(MultiA, nil, keys, nil, uint32(k)))
				break
			}
			switch {
			case at(0).op == opCheckSig:
				pos++
				push(item(dCheck), item(dSingleBKV))
			case at(0).op == opVerify:
				pos++
				push(item(dVerify), item(dSingleBKV))
			case at(0).op == op0NotEqual:
				pos++
				push(item(dZeroNotEqual), item(dSingleBKV))
			default:
				if left >= 3 && at(0).op == opEqual {
					if num, ok := scriptNumber(at(1)); ok {
						if num < 1 {
							return nil, 0
						}
						pos += 2
						push(decodeItem{dThreshW, 0, num})
						break
					}
				}
				switch at(0).op {
				case opEndIf:
					pos++
					push(item(dEndIf), item(dBKV))
				case opBoolAnd:
					pos++
					push(item(dAndB), item(dSingleBKV), item(dW))
				case opBoolOr:
					pos++
					push(item(dOrB), item(dSingleBKV), item(dW))
				default:
					return nil, 0
				}
			}
		case dBKV:
			push(item(dMaybeAndV), item(dSingleBKV))
		case dW:
			if left <= 0 {
				return nil, 0
			}
			if at(0).op == opFromAltStack {
				pos++
				push(item(dAlt))
			} else {
				push(item(dSwap))
			}
			push(item(dBKV))
		case dMaybeAndV:
			if left > 0 {
				switch at(0).op {
				case opIf, opElse, opNotIf, opToAltStack, opSwap:
				default:
					push(item(dAndV), item(dBKV))
				}
			}
		case dSwap:
			if left <= 0 || at(0).op != opSwap || len(built) == 0 {
				return nil, 0
			}
			pos++
			wrap(WrapS)
		case dAlt:
			if left <= 0 || at(0).op != opToAltStack || len(built) == 0 {
				return nil, 0
			}
			pos++
			wrap(WrapA)
		case dCheck, dDupIf, dVerify, dNonZero, dZeroNotEqual:
			fr := map[decodeCtx]Fragment{dCheck: WrapC, dDupIf: WrapD, dVerify: WrapV, dNonZero: WrapJ, dZeroNotEqual: WrapN}[cur.ctx]
			if !wrap(fr) {
				return nil, 0
			}
		case dAndV, dAndB, dOrB, dOrC, dOrD:
			fr := map[decodeCtx]Fragment{dAndV: AndV, dAndB: AndB, dOrB: OrB, dOrC: OrC, dOrD: OrD}[cur.ctx]
			if !buildBackRev(fr) {
				return nil, 0
			}
		case dAndOr:
			if len(built) < 3 {
				return nil, 0
			}
			l := built[len(built)-1]
			r := built[len(built)-2]
			m := built[len(built)-3]
			built = built[:len(built)-3]
			built = append(built, mk(AndOr, []*Node{l, m, r}, nil, nil, 0))
		case dThreshW:
			if left <= 0 {
				return nil, 0
			}
			if at(0).op == opAdd {
				pos++
				push(decodeItem{dThreshW, cur.n + 1, cur.k}, item(dW))
			} else {
				push(decodeItem{dThreshE, cur.n + 1, cur.k}, item(dSingleBKV))
			}
		case dThreshE:
			if cur.k < 1 || cur.k > cur.n || int64(len(built)) < cur.n {
				return nil, 0
			}
			var subs []*Node
			for i := int64(0); i < cur.n; i++ {
				subs = append(subs, built[len(built)-1])
				built = built[:len(built)-1]
			}
			built = append(built, mk(Thresh, subs, nil, nil, uint32(cur.k)))
		case dEndIf:
			if left <= 0 {
				return nil, 0
			}
			switch {
			case at(0).op == opElse:
				pos++
				push(item(dEndIfElse), item(dBKV))
			case at(0).op == opIf:
				if left >= 2 && at(1).op == opDup {
					pos += 2
					push(item(dDupIf))
				} else if left >= 3 && at(1).op == op0NotEqual && at(2).op == opSize {
					pos += 3
					push(item(dNonZero))
				} else {
					return nil, 0
				}
			case at(0).op == opNotIf:
				pos++
				push(item(dEndIfNotIf))
			default:
				return nil, 0
			}
		case dEndIfNotIf:
			if left <= 0 {
				return nil, 0
			}
			if at(0).op == opIfDup {
				pos++
				push(item(dOrD))
			} else {
				push(item(dOrC))
			}
			push(item(dSingleBKV))
		case dEndIfElse:
			if left <= 0 {
				return nil, 0
			}
			switch at(0).op {
			case opIf:
				pos++
				if !buildBackRev(OrI) {
					return nil, 0
				}
			case opNotIf:
				pos++
				push(item(dAndOr), item(dSingleBKV))
			default:
				return nil, 0
			}
		}
	}
	if len(built) != 1 {
		return nil, 0
	}
	n := built[0]
	n.DuplicateKeyCheck(kr.KeyID)
	if !n.IsValidTopLevel() {
		return nil, 0
	}
	return n, pos
}

func reverseInts(s []int) {
	for l, r := 0, len(s)-1; l < r; l, r = l+1, r-1 {
		s[l], s[r] = s[r], s[l]
	}
}
