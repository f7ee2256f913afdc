package miniscript

import (
	"encoding/hex"
	"strings"
)

// KeyParser turns the key expressions met while parsing into key indices.
type KeyParser interface {
	// ParseKey parses a key expression and returns its index. An error
	// aborts the parse and is returned by Parse as is.
	ParseKey(s string) (int, error)
	// KeyID returns an identity of key i; two keys with the same identity
	// are duplicates.
	KeyID(i int) string
}

type parseCtx int

const (
	pWrappedExpr parseCtx = iota
	pExpr
	pSwap
	pAlt
	pCheck
	pDupIf
	pVerify
	pNonZero
	pZeroNotEqual
	pWrapU
	pWrapT
	pAndN
	pAndV
	pAndB
	pAndOr
	pOrB
	pOrC
	pOrD
	pOrI
	pThresh
	pComma
	pCloseBracket
)

type parseItem struct {
	ctx  parseCtx
	n, k int64
}

// findNextChar returns the position of m in s before any ')', or -1.
func findNextChar(s string, m byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == m {
			return i
		}
		if s[i] == ')' {
			break
		}
	}
	return -1
}

// toInt64 parses a decimal integer with an optional '-' sign.
func toInt64(s string) (int64, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

func isHex(s string) bool {
	if len(s)%2 != 0 || s == "" {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Parse reads a miniscript expression in context ctx, as Core's
// miniscript::FromString. It returns nil and no error when s is not
// miniscript, nil and the key parser's error when a key expression failed,
// or the node (which may still be invalid or insane: see IsSane). The
// duplicate key check has run on the result.
func Parse(s string, ctx Context, kp KeyParser) (*Node, error) {
	var keyErr error
	n := parse(s, ctx, kp, &keyErr)
	if keyErr != nil {
		return nil, keyErr
	}
	if n == nil {
		return nil, nil
	}
	n.DuplicateKeyCheck(kp.KeyID)
	return n, nil
}

func parse(in string, ctx Context, kp KeyParser, keyErr *error) *Node {
	scriptSize := 1
	maxSize := maxScriptSize(ctx)
	toParse := []parseItem{{pWrappedExpr, -1, -1}}
	var built []*Node
	mk := func(fr Fragment, subs []*Node, keys []int, data []byte, k uint32) *Node {
		return newNode(ctx, fr, subs, keys, data, k)
	}
	parseKey := func(s string) (int, bool) {
		i, err := kp.ParseKey(s)
		if err != nil {
			*keyErr = err
			return 0, false
		}
		return i, true
	}
	// argEnd returns the argument of the fragment whose name and '(' were
	// just skipped: the text up to the next ')' (Core's ParseKeyEnd and
	// ParseHexStrEnd), and moves past the ')'.
	argEnd := func() (string, bool) {
		size := findNextChar(in, ')')
		if size < 1 {
			return "", false
		}
		a := in[:size]
		in = in[size+1:]
		return a, true
	}
	keyFunc := func(name string) (int, bool) {
		in = in[len(name)+1:]
		a, ok := argEnd()
		if !ok {
			return 0, false
		}
		return parseKey(a)
	}
	hashFunc := func(name string, size int) ([]byte, bool) {
		in = in[len(name)+1:]
		a, ok := argEnd()
		if !ok || !isHex(a) {
			return nil, false
		}
		h, _ := hex.DecodeString(a)
		if len(h) != size {
			return nil, false
		}
		return h, true
	}
	numLenOf := func(v int64) int {
		r := 1
		if v > 16 {
			r++
		}
		if v > 0x7f {
			r++
		}
		if v > 0x7fff {
			r++
		}
		if v > 0x7fffff {
			r++
		}
		return r
	}
	parseMulti := func(isA bool) bool {
		maxKeys := maxPubkeysMultisig
		required := P2WSH
		if isA {
			maxKeys, required = maxPubkeysMultiA, Tapscript
		}
		if ctx != required {
			return false
		}
		next := findNextChar(in, ',')
		if next < 1 {
			return false
		}
		k, ok := toInt64(in[:next])
		if !ok {
			return false
		}
		in = in[next+1:]
		var keys []int
		for next != -1 {
			next = findNextChar(in, ',')
			kl := next
			if next == -1 {
				kl = findNextChar(in, ')')
			}
			if kl < 1 {
				return false
			}
			key, ok := parseKey(in[:kl])
			if !ok {
				return false
			}
			keys = append(keys, key)
			in = in[kl+1:]
		}
		if len(keys) < 1 || len(keys) > maxKeys {
			return false
		}
		if k < 1 || k > int64(len(keys)) {
			return false
		}
		if isA {
			scriptSize += (1+32+1)*len(keys) + numLen(k)
			built = append(built, mk(MultiA, nil, keys, nil, uint32(k)))
		} else {
			scriptSize += 2 + b2i(len(keys) > 16) + b2i(k > 16) + 34*len(keys)
			built = append(built, mk(Multi, nil, keys, nil, uint32(k)))
		}
		return true
	}
	buildBack := func(fr Fragment) {
		child := built[len(built)-1]
		built = built[:len(built)-1]
		built[len(built)-1] = mk(fr, []*Node{built[len(built)-1], child}, nil, nil, 0)
	}
	push := func(items ...parseItem) { toParse = append(toParse, items...) }
	item := func(c parseCtx) parseItem { return parseItem{c, -1, -1} }

	for len(toParse) > 0 {
		if scriptSize > maxSize {
			return nil
		}
		cur := toParse[len(toParse)-1]
		toParse = toParse[:len(toParse)-1]
		switch cur.ctx {
		case pWrappedExpr:
			colon := -1
			for i := 1; i < len(in); i++ {
				if in[i] == ':' {
					colon = i
					break
				}
				if in[i] < 'a' || in[i] > 'z' {
					break
				}
			}
			lastV := false
			for j := 0; colon >= 0 && j < colon; j++ {
				if scriptSize > maxSize {
					return nil
				}
				switch in[j] {
				case 'a':
					scriptSize += 2
					push(item(pAlt))
				case 's':
					scriptSize++
					push(item(pSwap))
				case 'c':
					scriptSize++
					push(item(pCheck))
				case 'd':
					scriptSize += 3
					push(item(pDupIf))
				case 'j':
					scriptSize += 4
					push(item(pNonZero))
				case 'n':
					scriptSize++
					push(item(pZeroNotEqual))
				case 'v':
					if lastV {
						return nil
					}
					push(item(pVerify))
				case 'u':
					scriptSize += 4
					push(item(pWrapU))
				case 't':
					scriptSize++
					push(item(pWrapT))
				case 'l':
					scriptSize += 4
					built = append(built, mk(Just0, nil, nil, nil, 0))
					push(item(pOrI))
				default:
					return nil
				}
				lastV = in[j] == 'v'
			}
			push(item(pExpr))
			if colon >= 0 {
				in = in[colon+1:]
			}
		case pExpr:
			switch {
			case strings.HasPrefix(in, "0"):
				in = in[1:]
				built = append(built, mk(Just0, nil, nil, nil, 0))
			case strings.HasPrefix(in, "1"):
				in = in[1:]
				built = append(built, mk(Just1, nil, nil, nil, 0))
			case strings.HasPrefix(in, "pk("):
				k, ok := keyFunc("pk")
				if !ok {
					return nil
				}
				built = append(built, mk(WrapC, []*Node{mk(PkK, nil, []int{k}, nil, 0)}, nil, nil, 0))
				scriptSize += 34 - b2i(ctx == Tapscript)
			case strings.HasPrefix(in, "pkh("):
				k, ok := keyFunc("pkh")
				if !ok {
					return nil
				}
				built = append(built, mk(WrapC, []*Node{mk(PkH, nil, []int{k}, nil, 0)}, nil, nil, 0))
				scriptSize += 24
			case strings.HasPrefix(in, "pk_k("):
				k, ok := keyFunc("pk_k")
				if !ok {
					return nil
				}
				built = append(built, mk(PkK, nil, []int{k}, nil, 0))
				scriptSize += 33 - b2i(ctx == Tapscript)
			case strings.HasPrefix(in, "pk_h("):
				k, ok := keyFunc("pk_h")
				if !ok {
					return nil
				}
				built = append(built, mk(PkH, nil, []int{k}, nil, 0))
				scriptSize += 23
			case strings.HasPrefix(in, "sha256("), strings.HasPrefix(in, "hash256("),
				strings.HasPrefix(in, "ripemd160("), strings.HasPrefix(in, "hash160("):
				name := in[:strings.IndexByte(in, '(')]
				fr, size, add := Sha256, 32, 38
				switch name {
				case "hash256":
					fr = Hash256
				case "ripemd160":
					fr, size, add = Ripemd160, 20, 26
				case "hash160":
					fr, size, add = Hash160, 20, 26
				}
				h, ok := hashFunc(name, size)
				if !ok {
					return nil
				}
				built = append(built, mk(fr, nil, nil, h, 0))
				scriptSize += add
			case strings.HasPrefix(in, "after("), strings.HasPrefix(in, "older("):
				name := in[:5]
				in = in[len(name)+1:]
				e, ok := argEnd()
				if !ok {
					return nil
				}
				num, ok := toInt64(e)
				if !ok || num < 1 || num >= 0x80000000 {
					return nil
				}
				fr := After
				if name == "older" {
					fr = Older
				}
				built = append(built, mk(fr, nil, nil, nil, uint32(num)))
				scriptSize += numLenOf(num)
			case strings.HasPrefix(in, "multi("):
				in = in[len("multi("):]
				if !parseMulti(false) {
					return nil
				}
			case strings.HasPrefix(in, "multi_a("):
				in = in[len("multi_a("):]
				if !parseMulti(true) {
					return nil
				}
			case strings.HasPrefix(in, "thresh("):
				in = in[len("thresh("):]
				next := findNextChar(in, ',')
				if next < 1 {
					return nil
				}
				k, ok := toInt64(in[:next])
				if !ok || k < 1 {
					return nil
				}
				in = in[next+1:]
				push(parseItem{pThresh, 1, k}, item(pWrappedExpr))
				scriptSize += 1 + numLenOf(k)
			case strings.HasPrefix(in, "andor("):
				in = in[len("andor("):]
				push(item(pAndOr), item(pCloseBracket), item(pWrappedExpr), item(pComma),
					item(pWrappedExpr), item(pComma), item(pWrappedExpr))
				scriptSize += 5
			default:
				var c parseCtx
				switch {
				case strings.HasPrefix(in, "and_n("):
					c, scriptSize = pAndN, scriptSize+5
				case strings.HasPrefix(in, "and_b("):
					c, scriptSize = pAndB, scriptSize+2
				case strings.HasPrefix(in, "and_v("):
					c, scriptSize = pAndV, scriptSize+1
				case strings.HasPrefix(in, "or_b("):
					c, scriptSize = pOrB, scriptSize+2
				case strings.HasPrefix(in, "or_c("):
					c, scriptSize = pOrC, scriptSize+3
				case strings.HasPrefix(in, "or_d("):
					c, scriptSize = pOrD, scriptSize+4
				case strings.HasPrefix(in, "or_i("):
					c, scriptSize = pOrI, scriptSize+4
				default:
					return nil
				}
				in = in[strings.IndexByte(in, '(')+1:]
				push(item(c), item(pCloseBracket), item(pWrappedExpr), item(pComma), item(pWrappedExpr))
			}
		case pAlt, pSwap, pCheck, pDupIf, pNonZero, pZeroNotEqual, pVerify:
			fr := map[parseCtx]Fragment{pAlt: WrapA, pSwap: WrapS, pCheck: WrapC, pDupIf: WrapD,
				pNonZero: WrapJ, pZeroNotEqual: WrapN, pVerify: WrapV}[cur.ctx]
			last := built[len(built)-1]
			if cur.ctx == pVerify && last.typ.Has(tx) {
				scriptSize++
			}
			built[len(built)-1] = mk(fr, []*Node{last}, nil, nil, 0)
		case pWrapU:
			last := built[len(built)-1]
			built[len(built)-1] = mk(OrI, []*Node{last, mk(Just0, nil, nil, nil, 0)}, nil, nil, 0)
		case pWrapT:
			last := built[len(built)-1]
			built[len(built)-1] = mk(AndV, []*Node{last, mk(Just1, nil, nil, nil, 0)}, nil, nil, 0)
		case pAndB:
			buildBack(AndB)
		case pAndV:
			buildBack(AndV)
		case pOrB:
			buildBack(OrB)
		case pOrC:
			buildBack(OrC)
		case pOrD:
			buildBack(OrD)
		case pOrI:
			buildBack(OrI)
		case pAndN:
			mid := built[len(built)-1]
			built = built[:len(built)-1]
			built[len(built)-1] = mk(AndOr, []*Node{built[len(built)-1], mid, mk(Just0, nil, nil, nil, 0)}, nil, nil, 0)
		case pAndOr:
			right := built[len(built)-1]
			mid := built[len(built)-2]
			built = built[:len(built)-2]
			built[len(built)-1] = mk(AndOr, []*Node{built[len(built)-1], mid, right}, nil, nil, 0)
		case pThresh:
			if len(in) < 1 {
				return nil
			}
			switch in[0] {
			case ',':
				in = in[1:]
				push(parseItem{pThresh, cur.n + 1, cur.k}, item(pWrappedExpr))
				scriptSize += 2
			case ')':
				if cur.k > cur.n {
					return nil
				}
				in = in[1:]
				subs := append([]*Node(nil), built[len(built)-int(cur.n):]...)
				built = built[:len(built)-int(cur.n)]
				built = append(built, mk(Thresh, subs, nil, nil, uint32(cur.k)))
			default:
				return nil
			}
		case pComma:
			if len(in) < 1 || in[0] != ',' {
				return nil
			}
			in = in[1:]
		case pCloseBracket:
			if len(in) < 1 || in[0] != ')' {
				return nil
			}
			in = in[1:]
		}
	}
	if len(built) != 1 || len(in) > 0 {
		return nil
	}
	return built[0]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
