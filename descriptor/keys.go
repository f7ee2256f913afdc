package descriptor

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// KeyOrigin is where a key comes from: the fingerprint of the key at the
// root of its derivation and the path from there (hardened steps carry
// bit 31).
type KeyOrigin struct {
	Fingerprint [4]byte
	Path        []uint32
}

// String prints the origin as in descriptors, with 'h' for hardened steps:
// "d34db33f/44h/0h/0h".
func (o KeyOrigin) String() string {
	return hex.EncodeToString(o.Fingerprint[:]) + formatPath(o.Path, false)
}

// formatPath prints "/a/bh/..." (or with "'" when apostrophe is set).
func formatPath(path []uint32, apostrophe bool) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(s&^hardenedFlag), 10))
		if s&hardenedFlag != 0 {
			if apostrophe {
				b.WriteByte('\'')
			} else {
				b.WriteByte('h')
			}
		}
	}
	return b.String()
}

// PrivateKey is a secret key known to a descriptor, with the compression of
// the public key it belongs to.
type PrivateKey struct {
	Key        [32]byte
	Compressed bool
}

// KeyMap holds a descriptor's private keys by the KeyID of their public key
// (compressed or not as the key says). It is kept apart from the descriptor's
// public structure, so printing a descriptor never shows a secret unless
// PrivateString is asked for.
type KeyMap map[KeyID]PrivateKey

// lookup returns the private key of the serialized public key pub.
func (m KeyMap) lookup(pub []byte) (PrivateKey, bool) {
	if m == nil {
		return PrivateKey{}, false
	}
	k, ok := m[script.Hash160(pub)]
	return k, ok
}

// lookupXOnly finds the private key for an x-only key, trying both parities.
func (m KeyMap) lookupXOnly(x []byte) (PrivateKey, bool) {
	if m == nil {
		return PrivateKey{}, false
	}
	for _, p := range []byte{2, 3} {
		if k, ok := m[script.Hash160(append([]byte{p}, x...))]; ok {
			return k, true
		}
	}
	return PrivateKey{}, false
}

// strMode selects a string form.
type strMode int

const (
	strPublic strMode = iota
	strPrivate
	strNormalized
	strCompat // apostrophes always; what the descriptor ID hashes
)

// env is what key expressions need besides themselves: the network, the
// private keys and the derivation cache.
type env struct {
	net   *chaincfg.Params
	keys  KeyMap
	cache *Cache
	memo  *memo
}

// keyExpr is one KEY expression of a descriptor.
type keyExpr interface {
	// exprIndex is the position of the key expression in the descriptor,
	// counted from 0 in parse order; the derivation cache is keyed by it.
	exprIndex() uint32
	isRange() bool
	// size is the length of the serialized public key: 33, 65, or 32
	// for musig().
	size() int
	isBIP32() bool
	// paths is the number of multipath branches (1 without multipath).
	paths() int
	// branch returns the key expression of multipath branch i.
	branch(i int) keyExpr
	// str prints the expression; ok is false when the form cannot be made
	// (normalized without the needed key) or, for strPrivate, when no
	// private key was available.
	str(m strMode, e *env) (string, bool)
	// derive returns the public key at pos and records it in out.
	derive(pos uint32, e *env, out *collector) ([]byte, error)
	// havePrivate reports whether the private key is known.
	havePrivate(e *env) bool
}

// collector gathers the keys, scripts and taproot data met while expanding
// one index, like Core's FlatSigningProvider.
type collector struct {
	keys    []Key
	scripts map[[20]byte][]byte
	trees   map[[32]byte]*Taproot
	// keyBuf backs keys while there is one; one holds the script list a
	// single-script node returns (its caller reads it at once); outBuf
	// backs Expand's result when there is one output.
	keyBuf [1]Key
	one    [1][]byte
	outBuf [1]Output
}

// single returns the script list [s], held in c.
func (c *collector) single(s []byte) [][]byte {
	c.one[0] = s
	return c.one[:]
}

func newCollector() *collector {
	return &collector{}
}

// addKey records a public key with its origin; a later entry for the same
// key keeps the first origin unless override is set.
func (c *collector) addKey(pub []byte, origin KeyOrigin, override bool) {
	if i := c.find(pub); i >= 0 {
		if override {
			c.keys[i].Origin = origin
		}
		return
	}
	c.addOwnedKey(append([]byte(nil), pub...), origin)
}

// addOwnedKey is addKey for a key new to c whose bytes c may keep.
func (c *collector) addOwnedKey(pub []byte, origin KeyOrigin) {
	if c.keys == nil {
		c.keys = c.keyBuf[:0]
	}
	c.keys = append(c.keys, Key{PubKey: pub, Origin: origin})
}

// find returns the position of pub among the keys met, or -1.
func (c *collector) find(pub []byte) int {
	for i := range c.keys {
		if string(c.keys[i].PubKey) == string(pub) {
			return i
		}
	}
	return -1
}

func (c *collector) setPriv(pub []byte, priv []byte) {
	if i := c.find(pub); i >= 0 && c.keys[i].PrivKey == nil {
		c.keys[i].PrivKey = append([]byte(nil), priv...)
	}
}

func (c *collector) addScript(s []byte) {
	if c.scripts == nil {
		c.scripts = map[[20]byte][]byte{}
	}
	c.scripts[script.Hash160(s)] = s
}

// constKey is a literal public key (hex or WIF).
type constKey struct {
	idx   uint32
	pub   []byte // 33 or 65 bytes; an x-only key is stored as 02||x
	xonly bool
}

func (k *constKey) exprIndex() uint32  { return k.idx }
func (k *constKey) isRange() bool      { return false }
func (k *constKey) size() int          { return len(k.pub) }
func (k *constKey) isBIP32() bool      { return false }
func (k *constKey) paths() int         { return 1 }
func (k *constKey) branch(int) keyExpr { return k }
func (k *constKey) priv(e *env) (PrivateKey, bool) {
	if k.xonly {
		return e.keys.lookupXOnly(k.pub[1:])
	}
	return e.keys.lookup(k.pub)
}

func (k *constKey) pubString() string {
	if k.xonly {
		return hex.EncodeToString(k.pub[1:])
	}
	return hex.EncodeToString(k.pub)
}

func (k *constKey) str(m strMode, e *env) (string, bool) {
	if m == strPrivate {
		if p, ok := k.priv(e); ok {
			return encodeWIF(p.Key[:], p.Compressed, e.net), true
		}
		return k.pubString(), false
	}
	return k.pubString(), true
}

func (k *constKey) derive(_ uint32, e *env, out *collector) ([]byte, error) {
	h := script.Hash160(k.pub)
	out.addKey(k.pub, KeyOrigin{Fingerprint: [4]byte{h[0], h[1], h[2], h[3]}}, false)
	if p, ok := k.priv(e); ok {
		out.setPriv(k.pub, p.Key[:])
	}
	return k.pub, nil
}

func (k *constKey) havePrivate(e *env) bool {
	_, ok := k.priv(e)
	return ok
}

// deriveType is the kind of final wildcard step.
type deriveType int

const (
	nonRanged deriveType = iota
	unhardenedRanged
	hardenedRanged
)

// multipath records the <a;b;...> step of an extended key that has not
// been split into branches yet.
type multipath struct {
	pos  int
	alts []uint32
}

// bip32Key is an extended key with a derivation path and wildcard.
type bip32Key struct {
	idx        uint32
	root       *extKey // public
	rootFP     [4]byte // fingerprint of root
	path       []uint32
	derive_    deriveType
	apostrophe bool
	mp         *multipath
}

func (k *bip32Key) exprIndex() uint32 { return k.idx }
func (k *bip32Key) isRange() bool     { return k.derive_ != nonRanged }
func (k *bip32Key) size() int         { return 33 }
func (k *bip32Key) isBIP32() bool     { return true }
func (k *bip32Key) paths() int {
	if k.mp == nil {
		return 1
	}
	return len(k.mp.alts)
}

func (k *bip32Key) branch(i int) keyExpr {
	if k.mp == nil {
		return k
	}
	c := *k
	c.path = append([]uint32(nil), k.path...)
	c.path[k.mp.pos] = k.mp.alts[i]
	c.mp = nil
	return &c
}

// hardenedSteps reports whether deriving needs a private key.
func (k *bip32Key) hardenedSteps() bool {
	if k.derive_ == hardenedRanged {
		return true
	}
	for _, s := range k.path {
		if s&hardenedFlag != 0 {
			return true
		}
	}
	return false
}

func (k *bip32Key) rootPriv(e *env) (*extKey, bool) {
	p, ok := e.keys.lookup(k.root.pub[:])
	if !ok {
		return nil, false
	}
	x := *k.root
	pk := p.Key
	x.priv = &pk
	return &x, true
}

func (k *bip32Key) pathString(apostrophe bool) string {
	if k.mp == nil {
		return formatPath(k.path, apostrophe)
	}
	var b strings.Builder
	for i, s := range k.path {
		if i != k.mp.pos {
			b.WriteString(formatPath([]uint32{s}, apostrophe))
			continue
		}
		b.WriteString("/<")
		for j, a := range k.mp.alts {
			if j > 0 {
				b.WriteByte(';')
			}
			b.WriteString(formatPath([]uint32{a}, apostrophe)[1:])
		}
		b.WriteByte('>')
	}
	return b.String()
}

func (k *bip32Key) suffix(apostrophe bool) string {
	s := k.pathString(apostrophe)
	switch k.derive_ {
	case unhardenedRanged:
		s += "/*"
	case hardenedRanged:
		if apostrophe {
			s += "/*'"
		} else {
			s += "/*h"
		}
	}
	return s
}

func (k *bip32Key) str(m strMode, e *env) (string, bool) {
	switch m {
	case strCompat:
		return k.root.xpub(e.net) + k.suffix(true), true
	case strPrivate:
		x, ok := k.rootPriv(e)
		if !ok {
			return k.root.xpub(e.net) + k.suffix(k.apostrophe), false
		}
		return x.xprv(e.net) + k.suffix(k.apostrophe), true
	case strNormalized:
		return k.normalized(e)
	}
	return k.root.xpub(e.net) + k.suffix(k.apostrophe), true
}

// lastHardened is the index of the last hardened step of the path, or -1.
func lastHardened(path []uint32) int {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i]&hardenedFlag != 0 {
			return i
		}
	}
	return -1
}

// normalized prints the key with the xpub at its last hardened step and that
// prefix moved into the origin.
func (k *bip32Key) normalized(e *env) (string, bool) {
	if k.derive_ == hardenedRanged || k.mp != nil {
		return k.root.xpub(e.net) + k.suffix(false), true
	}
	lh := lastHardened(k.path)
	if lh < 0 {
		return k.root.xpub(e.net) + k.suffix(k.apostrophe), true
	}
	prefix := k.path[:lh+1]
	var xpub *extKey
	if e.cache != nil {
		xpub = e.cache.lastHardened(k.idx)
	}
	if xpub == nil {
		x, ok := k.rootPriv(e)
		if !ok {
			return "", false
		}
		d, _, err := x.derivePath(prefix)
		if err != nil {
			return "", false
		}
		xpub = d.neuter()
	}
	origin := KeyOrigin{Fingerprint: k.rootFP, Path: prefix}
	s := "[" + origin.String() + "]" + xpub.xpub(e.net) + formatPath(k.path[lh+1:], false)
	if k.derive_ == unhardenedRanged {
		s += "/*"
	}
	return s, true
}

func (k *bip32Key) havePrivate(e *env) bool {
	_, ok := k.rootPriv(e)
	return ok
}

// derivedKey holds a derived public key and its origin path.
type derivedKey struct {
	pub  [33]byte
	path [8]uint32
}

// derive finds the public key at pos: from the cache when it has what is
// needed, else from the memoised parent, else by derivation (with the
// private key when the path has hardened steps).
func (k *bip32Key) derive(pos uint32, e *env, out *collector) ([]byte, error) {
	if k.mp != nil {
		return nil, makeError(ErrMultipath, "cannot expand a multipath descriptor; expand its branches")
	}
	// The child's key bytes and origin path share one allocation when the
	// path is short, as it nearly always is.
	kb := new(derivedKey)
	origin := KeyOrigin{Fingerprint: k.rootFP}
	if n := len(k.path); n < len(kb.path) {
		origin.Path = kb.path[: n : n+1]
	} else {
		origin.Path = make([]uint32, n, n+1)
	}
	copy(origin.Path, k.path)
	switch k.derive_ {
	case unhardenedRanged:
		origin.Path = append(origin.Path, pos)
	case hardenedRanged:
		origin.Path = append(origin.Path, pos|hardenedFlag)
	}
	var final *extKey
	privRoot, havePriv := k.rootPriv(e)

	if k.derive_ == hardenedRanged {
		if e.cache != nil {
			final = e.cache.derived(k.idx, pos)
		}
		if final == nil {
			if !havePriv {
				return nil, errHardened
			}
			parent, err := e.memo.privParent(k, privRoot)
			if err != nil {
				return nil, err
			}
			c, err := parent.deriveChild(pos | hardenedFlag)
			if err != nil {
				return nil, err
			}
			final = c
			if e.cache != nil && len(origin.Path) > 0 {
				e.cache.putDerived(k.idx, pos, c.neuter())
			}
		}
	} else {
		d, err := e.memo.pubParent(k, e, privRoot, havePriv)
		if err != nil {
			return nil, err
		}
		if k.derive_ == unhardenedRanged {
			if err := d.child(pos, &kb.pub, nil); err != nil {
				return nil, err
			}
			pub := kb.pub[:]
			if out.find(pub) < 0 {
				out.addOwnedKey(pub, origin)
			}
			if havePriv {
				if priv, err := e.memo.privChild(k, privRoot, pos); err == nil {
					out.setPriv(pub, priv[:])
				}
			}
			return pub, nil
		}
		final = &d.parent
	}
	out.addKey(final.pub[:], origin, false)
	if havePriv {
		if priv, err := e.memo.privChild(k, privRoot, pos); err == nil {
			out.setPriv(final.pub[:], priv[:])
		}
	}
	return final.pub[:], nil
}

// originKey wraps a key expression with an explicit [fingerprint/path].
type originKey struct {
	origin     KeyOrigin
	inner      keyExpr
	apostrophe bool
}

func (k *originKey) exprIndex() uint32 { return k.inner.exprIndex() }
func (k *originKey) isRange() bool     { return k.inner.isRange() }
func (k *originKey) size() int         { return k.inner.size() }
func (k *originKey) isBIP32() bool     { return k.inner.isBIP32() }
func (k *originKey) paths() int        { return k.inner.paths() }
func (k *originKey) branch(i int) keyExpr {
	if k.inner.paths() == 1 {
		return k
	}
	c := *k
	c.inner = k.inner.branch(i)
	return &c
}

func (k *originKey) originString(m strMode) string {
	ap := (m != strNormalized && k.apostrophe) || m == strCompat
	return hexFP(k.origin.Fingerprint) + formatPath(k.origin.Path, ap)
}

func hexFP(fp [4]byte) string { return hex.EncodeToString(fp[:]) }

func (k *originKey) str(m strMode, e *env) (string, bool) {
	sub, ok := k.inner.str(m, e)
	if m == strNormalized {
		if !ok {
			return "", false
		}
		// An inner normalized origin merges: its fingerprint is dropped
		// and its path appended to ours.
		if strings.HasPrefix(sub, "[") && len(sub) >= 9 {
			return "[" + k.originString(m) + sub[9:], true
		}
		return "[" + k.originString(m) + "]" + sub, true
	}
	if m == strPrivate {
		return "[" + k.originString(strPublic) + "]" + sub, ok
	}
	return "[" + k.originString(m) + "]" + sub, ok
}

func (k *originKey) derive(pos uint32, e *env, out *collector) ([]byte, error) {
	// The inner key records its keys in out directly; when the derived key
	// is new there, its origin gets ours prepended. A key out already held
	// (the same key twice in a descriptor) takes the general way below,
	// which merges with the inner origin of this occurrence.
	before := len(out.keys)
	pub, err := k.inner.derive(pos, e, out)
	if err != nil {
		return nil, err
	}
	if i := out.find(pub); i >= before {
		o := &out.keys[i].Origin
		var path []uint32
		if n := len(k.origin.Path) + len(o.Path); n > 0 {
			path = append(append(make([]uint32, 0, n), k.origin.Path...), o.Path...)
		}
		*o = KeyOrigin{Fingerprint: k.origin.Fingerprint, Path: path}
		return pub, nil
	}
	return k.deriveMerged(pos, e, out)
}

// deriveMerged derives the inner key into a collector of its own, then
// merges its keys into out with this key's origin prepended to the derived
// key's.
func (k *originKey) deriveMerged(pos uint32, e *env, out *collector) ([]byte, error) {
	sub := newCollector()
	pub, err := k.inner.derive(pos, e, sub)
	if err != nil {
		return nil, err
	}
	for _, key := range sub.keys {
		o := key.Origin
		if string(key.PubKey) == string(pub) {
			o = KeyOrigin{Fingerprint: k.origin.Fingerprint,
				Path: append(append([]uint32(nil), k.origin.Path...), o.Path...)}
			out.addKey(key.PubKey, o, true)
		} else {
			out.addKey(key.PubKey, o, false)
		}
		if key.PrivKey != nil {
			out.setPriv(key.PubKey, key.PrivKey)
		}
	}
	return pub, nil
}

func (k *originKey) havePrivate(e *env) bool { return k.inner.havePrivate(e) }
