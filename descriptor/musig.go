package descriptor

import (
	"strings"
)

// musigKey is a musig() key expression (BIP 390): the BIP 327 aggregate of
// its participants, optionally followed by unhardened derivation steps from
// the BIP 328 synthetic xpub of the aggregate.
type musigKey struct {
	idx     uint32
	parts   []keyExpr
	path    []uint32
	derive_ deriveType
	mp      *multipath
}

func (k *musigKey) exprIndex() uint32 { return k.idx }
func (k *musigKey) isRange() bool {
	if k.derive_ != nonRanged {
		return true
	}
	for _, p := range k.parts {
		if p.isRange() {
			return true
		}
	}
	return false
}
func (k *musigKey) size() int { return 32 }
func (k *musigKey) isBIP32() bool {
	for _, p := range k.parts {
		if !p.isBIP32() {
			return false
		}
	}
	return true
}

func (k *musigKey) paths() int {
	if k.mp != nil {
		return len(k.mp.alts)
	}
	n := 1
	for _, p := range k.parts {
		if p.paths() > n {
			n = p.paths()
		}
	}
	return n
}

func (k *musigKey) branch(i int) keyExpr {
	if k.paths() == 1 {
		return k
	}
	c := *k
	if k.mp != nil {
		c.path = append([]uint32(nil), k.path...)
		c.path[k.mp.pos] = k.mp.alts[i]
		c.mp = nil
		return &c
	}
	c.parts = make([]keyExpr, len(k.parts))
	for j, p := range k.parts {
		if p.paths() > 1 {
			c.parts[j] = p.branch(i)
		} else {
			c.parts[j] = cloneKey(p)
		}
	}
	return &c
}

func (k *musigKey) suffix() string {
	s := ""
	if k.mp != nil {
		b := &bip32Key{path: k.path, mp: k.mp}
		s = b.pathString(false)
	} else {
		s = formatPath(k.path, false)
	}
	if k.derive_ == unhardenedRanged {
		s += "/*"
	}
	return s
}

func (k *musigKey) str(m strMode, e *env) (string, bool) {
	var b strings.Builder
	b.WriteString("musig(")
	any := false
	for i, p := range k.parts {
		if i > 0 {
			b.WriteByte(',')
		}
		s, ok := p.str(m, e)
		if m == strNormalized && !ok {
			return "", false
		}
		any = any || ok
		b.WriteString(s)
	}
	b.WriteByte(')')
	b.WriteString(k.suffix())
	if m == strPrivate {
		return b.String(), any
	}
	return b.String(), true
}

// havePrivate is true only when every participant's key is known.
func (k *musigKey) havePrivate(e *env) bool {
	for _, p := range k.parts {
		if !p.havePrivate(e) {
			return false
		}
	}
	return true
}

// somePrivate reports whether the key expression k prints in private form,
// as Core's ToPrivateString: its private key is known, or for musig() the
// private key of at least one participant (the others print public).
func somePrivate(k keyExpr, e *env) bool {
	m, ok := k.(*musigKey)
	if !ok {
		return k.havePrivate(e)
	}
	for _, p := range m.parts {
		if p.havePrivate(e) {
			return true
		}
	}
	return false
}

// parseMuSig parses musig(KEY,KEY,...)[/path][/*] with Core's checks.
func (p *parser) parseMuSig(sp string, ctx pctx) (keyExpr, error) {
	if ctx != ctxP2TR {
		return nil, errKey("musig() is only allowed in tr() and rawtr()")
	}
	// Split after each ')', keeping it, as Core does.
	var split []string
	rest := sp
	for {
		i := strings.IndexByte(rest, ')')
		if i < 0 {
			split = append(split, rest)
			break
		}
		split = append(split, rest[:i+1])
		rest = rest[i+1:]
	}
	if len(split) > 2 {
		return nil, errKey("Too many ')' in musig() expression")
	}
	expr := split[0]
	if !funcCall("musig", &expr) {
		return nil, errKey("Invalid musig() expression")
	}
	var parts []keyExpr
	anyRanged, allBIP32 := false, true
	maxPaths := 1
	for expr != "" {
		if len(parts) > 0 && !constPrefix(",", &expr, true) {
			return nil, errKey(sprintf("musig(): expected ',', got '%c'", expr[0]))
		}
		arg := nextExpr(&expr)
		k, err := p.parsePubkey(arg, ctxMuSig)
		if err != nil {
			return nil, prefixed("musig(): ", err)
		}
		anyRanged = anyRanged || k.isRange()
		allBIP32 = allBIP32 && k.isBIP32()
		if k.paths() > maxPaths {
			maxPaths = k.paths()
		}
		parts = append(parts, k)
	}
	if len(parts) == 0 {
		return nil, errKey("musig(): Must contain key expressions")
	}
	mk := &musigKey{parts: parts}
	if len(split) == 2 && strings.HasPrefix(split[1], "/") {
		if !allBIP32 {
			return nil, errKey("musig(): derivation requires all participants to be xpubs or xprvs")
		}
		if anyRanged {
			return nil, errKey("musig(): Cannot have ranged participant keys if musig() also has derivation")
		}
		dummy := false
		dsplit := strings.Split(split[1], "/")
		dsplit, typ := parseDeriveType(dsplit, &dummy)
		if typ == hardenedRanged {
			return nil, errKey("musig(): Cannot have hardened child derivation")
		}
		path, mp, hasHardened, err := parseKeyPath(dsplit, true, &dummy)
		if err != nil {
			return nil, prefixed("musig(): ", err)
		}
		if hasHardened {
			return nil, errKey("musig(): cannot have hardened derivation steps")
		}
		mk.path, mk.mp, mk.derive_ = path, mp, typ
	}
	if maxPaths > 1 && mk.mp != nil {
		return nil, makeError(ErrMultipath, "musig(): Cannot have multipath participant keys if musig() is also multipath")
	}
	if maxPaths > 1 {
		for _, k := range parts {
			if k.paths() != 1 && k.paths() != maxPaths {
				return nil, makeError(ErrMultipath, "musig(): Multipath derivation paths have mismatched lengths")
			}
		}
	}
	mk.idx = p.keyIdx
	p.keyIdx++
	return mk, nil
}
