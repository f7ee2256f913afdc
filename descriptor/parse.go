package descriptor

import (
	"encoding/hex"
	"strings"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// pctx is the context a script or key expression is parsed in; it decides
// which functions and key forms are allowed, as Core's ParseScriptContext.
type pctx int

const (
	ctxTop    pctx = iota // the script is the scriptPubKey
	ctxP2SH               // inside sh(): the script is a redeemScript
	ctxP2WPKH             // inside wpkh(): a key only
	ctxP2WSH              // inside wsh(): the script is a witness script
	ctxP2TR               // inside tr(): internal key or a tapscript leaf
	ctxMuSig              // inside musig(): participant keys
)

const (
	maxPubKeysPerMultisig = 20
	maxPubKeysPerMultiA   = 999
	maxScriptElementSize  = 520
	taprootMaxDepth       = 128
	// maxDescriptorLength bounds the input so parsing stays cheap.
	maxDescriptorLength = 1 << 20
)

// parser holds the state shared by the recursive descent: the network, the
// running key-expression index and the private keys met.
type parser struct {
	net    *chaincfg.Params
	keyIdx uint32
	keys   KeyMap
	depth  int
}

func (p *parser) addPriv(pub []byte, k PrivateKey) {
	p.keys[KeyID(script.Hash160(pub))] = k
}

// errSyntax and friends build errors with Core's text.
func errSyntax(msg string) error { return makeError(ErrSyntax, msg) }
func errKey(msg string) error    { return makeError(ErrInvalidKey, msg) }

// prefixed returns err with prefix added to its message, keeping its kind.
func prefixed(prefix string, err error) error {
	if e, ok := err.(*Error); ok {
		return &Error{Kind: e.Kind, Description: prefix + e.Description, Err: e.Err}
	}
	return err
}

// parseKeyPathElement parses one step such as "0", "1'" or "2h".
func parseKeyPathElement(elem string, apostrophe *bool, hasHardened *bool) (uint32, error) {
	raw := elem
	hardened := false
	if len(elem) > 0 && (elem[len(elem)-1] == '\'' || elem[len(elem)-1] == 'h') {
		elem = elem[:len(elem)-1]
		hardened = true
	}
	n, ok := parseUint32(elem)
	if !ok {
		return 0, errKey(sprintf("Key path value '%s' is not a valid uint32", elem))
	}
	if n >= hardenedFlag {
		return 0, errKey(sprintf("Key path value %d is out of range", n))
	}
	if hardened {
		*hasHardened = true
		*apostrophe = raw[len(raw)-1] == '\''
		n |= hardenedFlag
	}
	return n, nil
}

// parseKeyPath parses the steps split[1:] (split[0] is the key).
func parseKeyPath(split []string, allowMultipath bool, apostrophe *bool) ([]uint32, *multipath, bool, error) {
	var path []uint32
	var mp *multipath
	hasHardened := false
	for _, elem := range split[1:] {
		if len(elem) > 0 && elem[0] == '<' && elem[len(elem)-1] == '>' && len(elem) >= 2 {
			if !allowMultipath {
				return nil, nil, false, errKey(sprintf("Key path value '%s' specifies multipath in a section where multipath is not allowed", elem))
			}
			if mp != nil {
				return nil, nil, false, makeError(ErrMultipath, "Multiple multipath key path specifiers found")
			}
			nums := strings.Split(elem[1:len(elem)-1], ";")
			if len(nums) < 2 {
				return nil, nil, false, makeError(ErrMultipath, "Multipath key path specifiers must have at least two items")
			}
			mp = &multipath{pos: len(path)}
			seen := map[uint32]bool{}
			for _, num := range nums {
				v, err := parseKeyPathElement(num, apostrophe, &hasHardened)
				if err != nil {
					return nil, nil, false, err
				}
				if seen[v] {
					return nil, nil, false, makeError(ErrMultipath, sprintf("Duplicated key path value %d in multipath specifier", v))
				}
				seen[v] = true
				mp.alts = append(mp.alts, v)
			}
			path = append(path, mp.alts[0])
			continue
		}
		v, err := parseKeyPathElement(elem, apostrophe, &hasHardened)
		if err != nil {
			return nil, nil, false, err
		}
		path = append(path, v)
	}
	return path, mp, hasHardened, nil
}

// parseDeriveType removes a final wildcard from split and reports its kind.
func parseDeriveType(split []string, apostrophe *bool) ([]string, deriveType) {
	last := split[len(split)-1]
	switch last {
	case "*":
		return split[:len(split)-1], unhardenedRanged
	case "*'", "*h":
		*apostrophe = last == "*'"
		return split[:len(split)-1], hardenedRanged
	}
	return split, nonRanged
}

// parsePubkeyInner parses a key expression without origin.
func (p *parser) parsePubkeyInner(sp string, ctx pctx, apostrophe *bool) (keyExpr, error) {
	permitUncompressed := ctx == ctxTop || ctx == ctxP2SH
	split := strings.Split(sp, "/")
	str := split[0]
	if str == "" {
		return nil, errKey("No key provided")
	}
	if isSpace(str[0]) || isSpace(str[len(str)-1]) {
		return nil, errKey(sprintf("Key '%s' is invalid due to whitespace", str))
	}
	if len(split) == 1 {
		if isHex(str) {
			data, _ := hex.DecodeString(str)
			if pubKeyShapeValid(data) && !pubKeyNonHybrid(data) {
				return nil, errKey("Hybrid public keys are not allowed")
			}
			if pubKeyFullyValid(data) {
				if permitUncompressed || len(data) == 33 {
					k := &constKey{idx: p.keyIdx, pub: data}
					p.keyIdx++
					return k, nil
				}
				return nil, errKey("Uncompressed keys are not allowed")
			} else if len(data) == 32 && ctx == ctxP2TR {
				if full, ok := xonlyToFull(data); ok {
					k := &constKey{idx: p.keyIdx, pub: full, xonly: true}
					p.keyIdx++
					return k, nil
				}
			}
			return nil, errKey(sprintf("Pubkey '%s' is invalid", str))
		}
		if w, ok := decodeWIF(str, p.net); ok {
			if permitUncompressed || w.compressed {
				pub := w.pubKey()
				p.addPriv(pub, PrivateKey{Key: w.priv, Compressed: w.compressed})
				k := &constKey{idx: p.keyIdx, pub: pub, xonly: ctx == ctxP2TR}
				p.keyIdx++
				return k, nil
			}
			return nil, errKey("Uncompressed keys are not allowed")
		}
	}
	xk, ok := decodeExtKey(str, p.net)
	if !ok {
		return nil, errKey(sprintf("key '%s' is not valid", str))
	}
	split, typ := parseDeriveType(split, apostrophe)
	path, mp, _, err := parseKeyPath(split, true, apostrophe)
	if err != nil {
		return nil, err
	}
	if xk.priv != nil {
		p.addPriv(xk.pub[:], PrivateKey{Key: *xk.priv, Compressed: true})
		xk = xk.neuter()
	}
	k := &bip32Key{idx: p.keyIdx, root: xk, rootFP: xk.fingerprint(), path: path, derive_: typ, apostrophe: *apostrophe, mp: mp}
	p.keyIdx++
	return k, nil
}

// parsePubkey parses a key expression with optional origin, or musig().
func (p *parser) parsePubkey(sp string, ctx pctx) (keyExpr, error) {
	if strings.HasPrefix(sp, "musig(") {
		return p.parseMuSig(sp, ctx)
	}
	originSplit := strings.Split(sp, "]")
	if len(originSplit) > 2 {
		return nil, errKey("Multiple ']' characters found for a single pubkey")
	}
	apostrophe := false
	if len(originSplit) == 1 {
		return p.parsePubkeyInner(originSplit[0], ctx, &apostrophe)
	}
	o := originSplit[0]
	if o == "" || o[0] != '[' {
		c := byte(']')
		if o != "" {
			c = o[0]
		}
		return nil, errKey(sprintf("Key origin start '[ character expected but not found, got '%c' instead", c))
	}
	slashSplit := strings.Split(o[1:], "/")
	if len(slashSplit[0]) != 8 {
		return nil, errKey(sprintf("Fingerprint is not 4 bytes (%d characters instead of 8 characters)", len(slashSplit[0])))
	}
	if !isHex(slashSplit[0]) {
		return nil, errKey(sprintf("Fingerprint '%s' is not hex", slashSplit[0]))
	}
	var info KeyOrigin
	fp, _ := hex.DecodeString(slashSplit[0])
	copy(info.Fingerprint[:], fp)
	path, _, _, err := parseKeyPath(slashSplit, false, &apostrophe)
	if err != nil {
		return nil, err
	}
	info.Path = path
	inner, err := p.parsePubkeyInner(originSplit[1], ctx, &apostrophe)
	if err != nil {
		return nil, err
	}
	return &originKey{origin: info, inner: inner, apostrophe: apostrophe}, nil
}

// parseScript parses one script expression at *sp (advancing past it) in
// context ctx.
func (p *parser) parseScript(sp *string, ctx pctx) (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 300 {
		return nil, errSyntax("descriptor nesting too deep")
	}
	expr := nextExpr(sp)
	if funcCall("pk", &expr) {
		k, err := p.parsePubkey(expr, ctx)
		if err != nil {
			return nil, prefixed("pk(): ", err)
		}
		return &node{kind: KindPK, keys: []keyExpr{k}, xonly: ctx == ctxP2TR}, nil
	}
	if (ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH) && funcCall("pkh", &expr) {
		k, err := p.parsePubkey(expr, ctx)
		if err != nil {
			return nil, prefixed("pkh(): ", err)
		}
		return &node{kind: KindPKH, keys: []keyExpr{k}}, nil
	}
	if ctx == ctxTop && funcCall("combo", &expr) {
		k, err := p.parsePubkey(expr, ctx)
		if err != nil {
			return nil, prefixed("combo(): ", err)
		}
		return &node{kind: KindCombo, keys: []keyExpr{k}}, nil
	} else if funcCall("combo", &expr) {
		return nil, errSyntax("Can only have combo() at top level")
	}
	multi := funcCall("multi", &expr)
	sortedMulti := !multi && funcCall("sortedmulti", &expr)
	multiA := !(multi || sortedMulti) && funcCall("multi_a", &expr)
	sortedMultiA := !(multi || sortedMulti || multiA) && funcCall("sortedmulti_a", &expr)
	if ((ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH) && (multi || sortedMulti)) ||
		(ctx == ctxP2TR && (multiA || sortedMultiA)) {
		return p.parseMulti(expr, ctx, multi || sortedMulti, sortedMulti || sortedMultiA)
	} else if multi || sortedMulti {
		return nil, errSyntax("Can only have multi/sortedmulti at top level, in sh(), or in wsh()")
	} else if multiA || sortedMultiA {
		return nil, errSyntax("Can only have multi_a/sortedmulti_a inside tr()")
	}
	if (ctx == ctxTop || ctx == ctxP2SH) && funcCall("wpkh", &expr) {
		k, err := p.parsePubkey(expr, ctxP2WPKH)
		if err != nil {
			return nil, prefixed("wpkh(): ", err)
		}
		return &node{kind: KindWPKH, keys: []keyExpr{k}}, nil
	} else if funcCall("wpkh", &expr) {
		return nil, errSyntax("Can only have wpkh() at top level or inside sh()")
	}
	if ctx == ctxTop && funcCall("sh", &expr) {
		sub, err := p.parseScript(&expr, ctxP2SH)
		if err != nil {
			return nil, err
		}
		if expr != "" {
			return nil, errSyntax("")
		}
		return &node{kind: KindSH, subs: []*node{sub}}, nil
	} else if funcCall("sh", &expr) {
		return nil, errSyntax("Can only have sh() at top level")
	}
	if (ctx == ctxTop || ctx == ctxP2SH) && funcCall("wsh", &expr) {
		sub, err := p.parseScript(&expr, ctxP2WSH)
		if err != nil {
			return nil, err
		}
		if expr != "" {
			return nil, errSyntax("")
		}
		return &node{kind: KindWSH, subs: []*node{sub}}, nil
	} else if funcCall("wsh", &expr) {
		return nil, errSyntax("Can only have wsh() at top level or inside sh()")
	}
	if ctx == ctxTop && funcCall("addr", &expr) {
		spk, err := address.Decode(expr, p.net)
		if err != nil {
			return nil, errSyntax("Address is not valid")
		}
		return &node{kind: KindAddr, script: spk}, nil
	} else if funcCall("addr", &expr) {
		return nil, errSyntax("Can only have addr() at top level")
	}
	if ctx == ctxTop && funcCall("tr", &expr) {
		return p.parseTR(expr)
	} else if funcCall("tr", &expr) {
		return nil, errSyntax("Can only have tr at top level")
	}
	if ctx == ctxTop && funcCall("rawtr", &expr) {
		arg := nextExpr(&expr)
		if expr != "" {
			return nil, errSyntax("rawtr(): only one key expected.")
		}
		k, err := p.parsePubkey(arg, ctxP2TR)
		if err != nil {
			return nil, prefixed("rawtr(): ", err)
		}
		return &node{kind: KindRawTR, keys: []keyExpr{k}}, nil
	} else if funcCall("rawtr", &expr) {
		return nil, errSyntax("Can only have rawtr at top level")
	}
	if ctx == ctxTop && funcCall("raw", &expr) {
		if !isHex(expr) {
			return nil, errSyntax("Raw script is not hex")
		}
		b, _ := hex.DecodeString(expr)
		return &node{kind: KindRaw, script: b}, nil
	} else if funcCall("raw", &expr) {
		return nil, errSyntax("Can only have raw() at top level")
	}
	if parseMiniscript != nil {
		n, err := parseMiniscript(p, expr, ctx)
		if err != nil {
			return nil, err
		}
		if n != nil {
			return n, nil
		}
	}
	switch ctx {
	case ctxP2SH:
		return nil, errSyntax("A function is needed within P2SH")
	case ctxP2WSH:
		return nil, errSyntax("A function is needed within P2WSH")
	}
	return nil, errSyntax(sprintf("'%s' is not a valid descriptor function", expr))
}

// parseMiniscript is the entry point of the miniscript engine: it returns a
// KindMiniscript node for expr, nil when expr is not miniscript, or the
// error Core reports. It is nil while the engine is not built.
var parseMiniscript func(p *parser, expr string, ctx pctx) (*node, error)

// parseMulti parses the arguments of multi, sortedmulti, multi_a and
// sortedmulti_a.
func (p *parser) parseMulti(expr string, ctx pctx, legacy, sorted bool) (*node, error) {
	threshold := nextExpr(&expr)
	thres, ok := parseUint32(threshold)
	if !ok {
		return nil, makeError(ErrMultisig, sprintf("Multi threshold '%s' is not valid", threshold))
	}
	var keys []keyExpr
	scriptSize := 0
	for expr != "" {
		if !constPrefix(",", &expr, true) {
			return nil, errSyntax(sprintf("Multi: expected ',', got '%c'", expr[0]))
		}
		arg := nextExpr(&expr)
		k, err := p.parsePubkey(arg, ctx)
		if err != nil {
			return nil, prefixed("Multi: ", err)
		}
		scriptSize += k.size() + 1
		keys = append(keys, k)
	}
	if legacy && (len(keys) == 0 || len(keys) > maxPubKeysPerMultisig) {
		return nil, makeError(ErrMultisig, sprintf("Cannot have %d keys in multisig; must have between 1 and %d keys, inclusive", len(keys), maxPubKeysPerMultisig))
	} else if !legacy && (len(keys) == 0 || len(keys) > maxPubKeysPerMultiA) {
		return nil, makeError(ErrMultisig, sprintf("Cannot have %d keys in multi_a; must have between 1 and %d keys, inclusive", len(keys), maxPubKeysPerMultiA))
	} else if thres < 1 {
		return nil, makeError(ErrMultisig, sprintf("Multisig threshold cannot be %d, must be at least 1", thres))
	} else if int(thres) > len(keys) {
		return nil, makeError(ErrMultisig, sprintf("Multisig threshold cannot be larger than the number of keys; threshold is %d but only %d keys specified", thres, len(keys)))
	}
	if ctx == ctxTop && len(keys) > 3 {
		return nil, makeError(ErrMultisig, sprintf("Cannot have %d pubkeys in bare multisig; only at most 3 pubkeys", len(keys)))
	}
	if ctx == ctxP2SH && scriptSize+3 > maxScriptElementSize {
		return nil, makeError(ErrMultisig, sprintf("P2SH script is too large, %d bytes is larger than %d bytes", scriptSize+3, maxScriptElementSize))
	}
	if err := checkMultipath(keys); err != nil {
		return nil, prefixed("multi(): ", err)
	}
	kind := KindMulti
	switch {
	case legacy && sorted:
		kind = KindSortedMulti
	case !legacy && sorted:
		kind = KindSortedMultiA
	case !legacy:
		kind = KindMultiA
	}
	return &node{kind: kind, keys: keys, threshold: int(thres)}, nil
}

// checkMultipath checks that every key has one branch or the same number of
// branches as the others.
func checkMultipath(keys []keyExpr) error {
	max := 1
	for _, k := range keys {
		if k.paths() > max {
			max = k.paths()
		}
	}
	for _, k := range keys {
		if k.paths() != 1 && k.paths() != max {
			return makeError(ErrMultipath, "Multipath derivation paths have mismatched lengths")
		}
	}
	return nil
}

// parseTR parses the arguments of tr(): the internal key and an optional
// script tree written with braces.
func (p *parser) parseTR(expr string) (*node, error) {
	arg := nextExpr(&expr)
	internal, err := p.parsePubkey(arg, ctxP2TR)
	if err != nil {
		return nil, prefixed("tr(): ", err)
	}
	n := &node{kind: KindTR, keys: []keyExpr{internal}}
	if expr != "" {
		if !constPrefix(",", &expr, true) {
			return nil, errSyntax(sprintf("tr: expected ',', got '%c'", expr[0]))
		}
		var branches []bool
		for {
			for constPrefix("{", &expr, true) {
				branches = append(branches, false)
				if len(branches) > taprootMaxDepth {
					return nil, errSyntax(sprintf("tr() supports at most %d nesting levels", taprootMaxDepth))
				}
			}
			sarg := nextExpr(&expr)
			sub, err := p.parseScript(&sarg, ctxP2TR)
			if err != nil {
				return nil, err
			}
			n.subs = append(n.subs, sub)
			n.depths = append(n.depths, len(branches))
			for len(branches) > 0 && branches[len(branches)-1] {
				if !constPrefix("}", &expr, true) {
					return nil, errSyntax("tr(): expected '}' after script expression")
				}
				branches = branches[:len(branches)-1]
			}
			if len(branches) > 0 && !branches[len(branches)-1] {
				if !constPrefix(",", &expr, true) {
					return nil, errSyntax("tr(): expected ',' after script expression")
				}
				branches[len(branches)-1] = true
			}
			if len(branches) == 0 {
				break
			}
		}
		if expr != "" {
			return nil, errSyntax("tr(): expected ')' after script expression")
		}
	}
	max := internal.paths()
	for _, s := range n.subs {
		if s.paths() > max {
			max = s.paths()
		}
	}
	for _, s := range n.subs {
		if s.paths() != 1 && s.paths() != max {
			return nil, makeError(ErrMultipath, "tr(): Multipath subscripts have mismatched lengths")
		}
	}
	if internal.paths() > 1 && internal.paths() != max {
		return nil, makeError(ErrMultipath, "tr(): Multipath internal key mismatches multipath subscripts lengths")
	}
	return n, nil
}
