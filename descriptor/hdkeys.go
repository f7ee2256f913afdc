package descriptor

import (
	"bytes"
	"sort"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// HDKey is the extended key a BIP 32 key expression is written with (the
// key before its derivation path; Core's GetRootExtPubKey), as Core's
// gethdkeys lists it. The participants of a musig() have none: an
// aggregate is no key to show on its own.
type HDKey struct {
	// Xpub is the key as an extended public key of the descriptor's
	// network.
	Xpub string
	// PubKey and ChainCode are the key's public key and chain code; Core
	// orders extended keys by them (CompareHDKeys).
	PubKey    [33]byte
	ChainCode [32]byte
	// ID is the KeyID of PubKey.
	ID KeyID
	// HasPrivate reports whether the descriptor holds the key's private
	// key.
	HasPrivate bool
}

// HDKeys returns the distinct extended keys of the descriptor's key
// expressions, musig() participants left out, in Core's order
// (CompareHDKeys).
func (d *Descriptor) HDKeys() []HDKey {
	e := d.env(nil)
	var out []HDKey
	seen := map[[65]byte]bool{}
	d.root.walkKeys(func(k keyExpr) {
		if o, ok := k.(*originKey); ok {
			k = o.inner
		}
		b, ok := k.(*bip32Key)
		if !ok {
			return
		}
		var sk [65]byte
		copy(sk[:33], b.root.pub[:])
		copy(sk[33:], b.root.chain[:])
		if seen[sk] {
			return
		}
		seen[sk] = true
		h := HDKey{Xpub: b.root.xpub(d.net), PubKey: b.root.pub, ChainCode: b.root.chain,
			HasPrivate: b.havePrivate(e)}
		h.ID = KeyID(script.Hash160(b.root.pub[:]))
		out = append(out, h)
	})
	sort.Slice(out, func(i, j int) bool { return CompareHDKeys(&out[i], &out[j]) < 0 })
	return out
}

// CompareHDKeys orders extended keys as Core's CExtPubKey does: by public
// key, then chain code (depth, parent and child number do not count).
func CompareHDKeys(a, b *HDKey) int {
	if c := bytes.Compare(a.PubKey[:], b.PubKey[:]); c != 0 {
		return c
	}
	return bytes.Compare(a.ChainCode[:], b.ChainCode[:])
}

// HDXprv returns the extended private key of the extended key h of the
// descriptor (Core's CExtKey(xpub, key)), false when the descriptor does not
// hold its private key. The string holds a secret: the caller keeps it out
// of logs and errors.
func (d *Descriptor) HDXprv(h *HDKey) (string, bool) {
	e := d.env(nil)
	var res string
	found := false
	d.root.walkKeys(func(k keyExpr) {
		if found {
			return
		}
		if o, ok := k.(*originKey); ok {
			k = o.inner
		}
		b, ok := k.(*bip32Key)
		if !ok || b.root.pub != h.PubKey || b.root.chain != h.ChainCode {
			return
		}
		x, ok := b.rootPriv(e)
		if !ok {
			return
		}
		res, found = x.xprv(d.net), true
		clear(x.priv[:])
	})
	return res, found
}

// PrivateKey returns the descriptor's private key of the public key whose
// KeyID is id.
func (d *Descriptor) PrivateKey(id KeyID) (PrivateKey, bool) {
	k, ok := d.keys[id]
	return k, ok
}

// ParseXpub reads an extended public key of the network as Core's
// DecodeExtPubKey does (an extended private key is not one) and returns it
// with its public key's KeyID; false when s is no such key.
func ParseXpub(s string, net *chaincfg.Params) (HDKey, bool) {
	k, ok := decodeExtKey(s, net)
	if !ok {
		return HDKey{}, false
	}
	if k.priv != nil {
		clear(k.priv[:])
		return HDKey{}, false
	}
	h := HDKey{Xpub: k.xpub(net), PubKey: k.pub, ChainCode: k.chain}
	h.ID = KeyID(script.Hash160(k.pub[:]))
	return h, true
}

// ExtendXprv returns the extended private key made of the extended public
// key xpub (of the network) and the private key priv (Core's CExtKey(xpub,
// key)), false when xpub does not parse or priv is not its key. The string
// holds a secret: the caller keeps it out of logs and errors.
func ExtendXprv(xpub string, priv *PrivateKey, net *chaincfg.Params) (string, bool) {
	k, ok := decodeExtKey(xpub, net)
	if !ok || k.priv != nil {
		return "", false
	}
	key := priv.Key
	defer clear(key[:])
	pub, ok := privToPub(&key)
	if !ok || !bytes.Equal(pub, k.pub[:]) {
		return "", false
	}
	k.priv = &key
	return k.xprv(net), true
}
