package descriptor

import (
	"crypto/sha256"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// Descriptor is a parsed output script descriptor. Its public structure and
// its private keys (a KeyMap) are held apart: String prints only public
// data. A Descriptor is immutable after Parse and safe for concurrent use.
type Descriptor struct {
	root *node
	net  *chaincfg.Params
	keys KeyMap
	memo *memo
	// branches are the expansions of a multipath descriptor (nil when
	// the descriptor is not multipath).
	branches []*Descriptor
}

// Option changes how Parse reads a descriptor.
type Option func(*parseConfig)

type parseConfig struct {
	requireChecksum bool
}

// RequireChecksum makes Parse fail with "Missing checksum" when the string
// has no '#checksum' suffix (importdescriptors and deriveaddresses require
// one; getdescriptorinfo does not).
func RequireChecksum() Option {
	return func(c *parseConfig) { c.requireChecksum = true }
}

// Parse reads a descriptor for the network net. A checksum, when present,
// must be right; with RequireChecksum it must be present. Errors are *Error
// values whose message is Core's.
func Parse(s string, net *chaincfg.Params, opts ...Option) (*Descriptor, error) {
	var cfg parseConfig
	for _, o := range opts {
		o(&cfg)
	}
	if len(s) > maxDescriptorLength {
		return nil, errSyntax("descriptor too long")
	}
	text, _, err := splitChecksum(s, cfg.requireChecksum)
	if err != nil {
		return nil, err
	}
	p := &parser{net: net, keys: KeyMap{}}
	sp := text
	root, err := p.parseScript(&sp, ctxTop)
	if err != nil {
		return nil, err
	}
	if sp != "" {
		return nil, errSyntax("")
	}
	d := &Descriptor{root: root, net: net, keys: p.keys, memo: newMemo()}
	if n := root.paths(); n > 1 {
		// The branches keep the hardened marker as written, as Core's
		// per-path key providers do.
		for i := 0; i < n; i++ {
			b := root.mapKeys(func(k keyExpr) keyExpr {
				return cloneKey(k.branch(i))
			})
			d.branches = append(d.branches, &Descriptor{root: b, net: net, keys: p.keys, memo: newMemo()})
		}
	}
	return d, nil
}

func (d *Descriptor) env(cache *Cache) *env {
	return &env{net: d.net, keys: d.keys, cache: cache, memo: d.memo}
}

// Net returns the network the descriptor was parsed for.
func (d *Descriptor) Net() *chaincfg.Params { return d.net }

// Kind returns the kind of the top-level script expression.
func (d *Descriptor) Kind() Kind { return d.root.kind }

// String returns the public form with checksum (Core's ToString): private
// keys printed as public keys (x-only inside tr()), hex lower-cased, the
// hardened marker kept as written. A multipath descriptor prints with its
// <a;b> steps.
func (d *Descriptor) String() string {
	s, _ := d.root.str(strPublic, d.env(nil))
	return AddChecksum(s)
}

// PrivateString returns the form with private keys (Core's
// ToPrivateString) and whether any private key was printed.
func (d *Descriptor) PrivateString() (string, bool) {
	s, ok := d.root.str(strPrivate, d.env(nil))
	return AddChecksum(s), ok
}

// NormalizedString returns Core's ToNormalizedString: every extended key
// replaced by the xpub at its last hardened step, with that part of the path
// moved into the key origin and 'h' as hardened marker. It needs the private
// key, or cache holding the last hardened xpub, of every key with hardened
// steps; it fails with ErrHardenedFromPublic otherwise.
func (d *Descriptor) NormalizedString(cache *Cache) (string, error) {
	s, ok := d.root.str(strNormalized, d.env(cache))
	if !ok {
		return "", errHardened
	}
	return AddChecksum(s), nil
}

// compatString is Core's COMPAT string (apostrophes always), hashed by ID.
func (d *Descriptor) compatString() string {
	s, _ := d.root.str(strCompat, d.env(nil))
	return AddChecksum(s)
}

// ID returns Core's DescriptorID: the SHA256 of the compat string, in the
// byte order Core displays uint256 (reversed).
func (d *Descriptor) ID() [32]byte {
	h := sha256.Sum256([]byte(d.compatString()))
	for i := 0; i < 16; i++ {
		h[i], h[31-i] = h[31-i], h[i]
	}
	return h
}

// IsRange reports whether the descriptor has a wildcard (/*) anywhere.
func (d *Descriptor) IsRange() bool { return d.root.isRange() }

// IsSolvable reports whether the descriptor's scripts can be solved with
// its keys: false for addr() and raw(), and for sh()/wsh() around them.
func (d *Descriptor) IsSolvable() bool { return d.root.isSolvable() }

// IsMultipath reports whether the descriptor has <a;b;...> steps.
func (d *Descriptor) IsMultipath() bool { return len(d.branches) > 0 }

// Multipath returns the descriptors a multipath descriptor stands for, in
// order; for any other descriptor it returns the descriptor itself.
func (d *Descriptor) Multipath() []*Descriptor {
	if len(d.branches) == 0 {
		return []*Descriptor{d}
	}
	return append([]*Descriptor(nil), d.branches...)
}

// OutputType returns Core's output type name: "legacy", "p2sh-segwit",
// "bech32", "bech32m", or "" when the descriptor has none (pk(), combo(),
// bare multisig, raw() of a script without address...).
func (d *Descriptor) OutputType() string { return d.root.outputType(d.env(nil)) }

// HasPrivateKeys reports whether at least one key of the descriptor has its
// private key, a musig() participant's included (getdescriptorinfo's
// hasprivatekeys; importdescriptors refuses a descriptor without one in a
// wallet with private keys).
func (d *Descriptor) HasPrivateKeys() bool { return d.root.anyPrivate(d.env(nil)) }

// HasPrivateForm reports whether Core's ToPrivateString succeeds: every key
// expression has its private key, except that a musig() needs only one
// participant's (PrivateString prints the others public). listdescriptors
// with private=true fails on a descriptor for which it is false. It is
// false for addr() and raw(), true for a miniscript without keys.
func (d *Descriptor) HasPrivateForm() bool { return d.root.privateForm(d.env(nil)) }

// HasAllPrivateKeys is Core's HavePrivateKeys: every key of the descriptor
// has its private key (false for addr() and raw()).
func (d *Descriptor) HasAllPrivateKeys() bool { return d.root.havePrivate(d.env(nil)) }

// PrivateKeys returns a copy of the descriptor's private keys.
func (d *Descriptor) PrivateKeys() KeyMap {
	m := make(KeyMap, len(d.keys))
	for k, v := range d.keys {
		m[k] = v
	}
	return m
}

// WithPrivateKeys returns a copy of the descriptor that also knows keys
// (for example a public descriptor with the keys stored apart).
func (d *Descriptor) WithPrivateKeys(keys KeyMap) *Descriptor {
	m := d.PrivateKeys()
	for k, v := range keys {
		m[k] = v
	}
	c := &Descriptor{root: d.root, net: d.net, keys: m, memo: newMemo()}
	for _, b := range d.branches {
		c.branches = append(c.branches, b.WithPrivateKeys(keys))
	}
	return c
}

// Public returns a copy of the descriptor without private keys.
func (d *Descriptor) Public() *Descriptor {
	c := &Descriptor{root: d.root, net: d.net, keys: KeyMap{}, memo: newMemo()}
	for _, b := range d.branches {
		c.branches = append(c.branches, b.Public())
	}
	return c
}

// KeyExprCount returns the number of key expressions (cache positions).
func (d *Descriptor) KeyExprCount() int {
	n := 0
	d.root.walkKeys(func(keyExpr) { n++ })
	return n
}

func cloneKey(k keyExpr) keyExpr {
	switch v := k.(type) {
	case *constKey:
		c := *v
		return &c
	case *bip32Key:
		c := *v
		return &c
	case *originKey:
		c := *v
		c.inner = cloneKey(v.inner)
		return &c
	case *musigKey:
		c := *v
		c.parts = make([]keyExpr, len(v.parts))
		for i, p := range v.parts {
			c.parts[i] = cloneKey(p)
		}
		return &c
	}
	return k
}
