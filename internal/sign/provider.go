package sign

import (
	"crypto/sha256"

	"github.com/descwallet/descwallet/internal/script"
)

// Provider is a signing provider: the keys and scripts a signer may use.
// Keys are found by their key id (HASH160 of the public key as the WIF
// serializes it) or, for taproot, by X coordinate; scripts (redeemScripts
// and witnessScripts) by HASH160, which is also RIPEMD160 of a P2WSH
// program. A Provider is filled before signing and only read afterwards,
// so one may serve concurrent signers once filled.
type Provider struct {
	keys    []*Key
	byID    map[[20]byte]*Key
	scripts map[[20]byte][]byte
	// preimages maps "<hash kind>:<digest>" to a preimage (AddPreimage).
	preimages map[string][]byte
	// pubs and xonlyPubs map the HASH160 of a public key's serialization,
	// and of its x-only form (compressed keys), to the key (AddKey,
	// AddPubKey).
	pubs      map[[20]byte][]byte
	xonlyPubs map[[20]byte][]byte
	// taproot holds the spend data of taproot outputs by output key.
	taproot map[[32]byte]*taprootData
}

// NewProvider returns a provider holding keys. A key given twice is kept
// once.
func NewProvider(keys ...*Key) *Provider {
	p := &Provider{
		byID:    make(map[[20]byte]*Key, len(keys)),
		scripts: make(map[[20]byte][]byte),
	}
	for _, k := range keys {
		p.AddKey(k)
	}
	return p
}

// AddKey adds a key.
func (p *Provider) AddKey(k *Key) {
	if _, ok := p.byID[k.id]; ok {
		return
	}
	p.byID[k.id] = k
	p.keys = append(p.keys, k)
	p.addPub(k.pubBytes)
}

// Zero clears the private keys the provider holds (Key.Zero), once
// signing with it is over.
func (p *Provider) Zero() {
	for _, k := range p.keys {
		k.Zero()
	}
}

// AddPubKey adds a public key without its private key: scripts that hash
// it (pkh(), miniscript pk_h) can then be solved when another key signs.
func (p *Provider) AddPubKey(pub []byte) {
	p.addPub(append([]byte(nil), pub...))
}

func (p *Provider) addPub(pub []byte) {
	if p.pubs == nil {
		p.pubs = make(map[[20]byte][]byte)
		p.xonlyPubs = make(map[[20]byte][]byte)
	}
	p.pubs[script.Hash160(pub)] = pub
	if len(pub) == 33 {
		p.xonlyPubs[script.Hash160(pub[1:])] = pub
	}
}

// pubKeyByID returns the public key whose serialization has HASH160 id.
func (p *Provider) pubKeyByID(id [20]byte) ([]byte, bool) {
	pub, ok := p.pubs[id]
	return pub, ok
}

// pubKeyByXOnlyID returns the compressed public key whose x-only form has
// HASH160 id.
func (p *Provider) pubKeyByXOnlyID(id [20]byte) ([]byte, bool) {
	pub, ok := p.xonlyPubs[id]
	return pub, ok
}

// AddScript adds a script, found later by its HASH160.
func (p *Provider) AddScript(s []byte) {
	p.scripts[script.Hash160(s)] = append([]byte(nil), s...)
}

// AddWitnessScript adds a witnessScript and its P2WSH output script
// (0020 <sha256>), as Core does for a prevtxs witnessScript, so that the
// pair also serves a P2SH-wrapped P2WSH.
func (p *Provider) AddWitnessScript(s []byte) {
	p.AddScript(s)
	p.AddScript(P2WSH(s))
}

// Script returns the script whose HASH160 is id.
func (p *Provider) Script(id [20]byte) ([]byte, bool) {
	s, ok := p.scripts[id]
	return s, ok
}

// keyByID returns the key whose public key hashes to id.
func (p *Provider) keyByID(id [20]byte) *Key { return p.byID[id] }

// keyByXOnly returns a key whose compressed public key has X coordinate x
// (Core's GetKeyByXOnly: either parity, compressed keys only).
func (p *Provider) keyByXOnly(x []byte) *Key {
	var c [33]byte
	copy(c[1:], x)
	for _, prefix := range []byte{2, 3} {
		c[0] = prefix
		if k := p.byID[script.Hash160(c[:])]; k != nil {
			return k
		}
	}
	return nil
}

// keyByBIP86 returns a key whose BIP 86 output key (the key tweaked with no
// script tree) has X coordinate x. Core cannot sign for such an output
// without the tweaked key (its issue #27017); we can.
func (p *Provider) keyByBIP86(x []byte) *schnorrKey {
	for _, k := range p.keys {
		if !k.compressed {
			continue
		}
		_, tw := k.schnorrKeys()
		if string(tw.xonly[:]) == string(x) {
			return tw
		}
	}
	return nil
}

// P2WSH returns the P2WSH output script of a witnessScript.
func P2WSH(witnessScript []byte) []byte {
	h := sha256.Sum256(witnessScript)
	return append([]byte{0x00, 0x20}, h[:]...)
}
