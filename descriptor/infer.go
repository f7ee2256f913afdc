package descriptor

import (
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// Provider supplies what inference needs to know about a script: public
// keys by KeyID, their origins, scripts by HASH160 and taproot spend data by
// output key (Core's SigningProvider, read side).
type Provider interface {
	PubKey(id KeyID) ([]byte, bool)
	Origin(id KeyID) (KeyOrigin, bool)
	Script(id [20]byte) ([]byte, bool)
	TaprootSpendData(outputKey [32]byte) (*Taproot, bool)
}

// FlatProvider is a Provider held in maps, filled from expansions or by
// hand.
type FlatProvider struct {
	pubkeys map[KeyID][]byte
	origins map[KeyID]KeyOrigin
	scripts map[[20]byte][]byte
	trees   map[[32]byte]*Taproot
}

// NewFlatProvider returns an empty FlatProvider.
func NewFlatProvider() *FlatProvider {
	return &FlatProvider{pubkeys: map[KeyID][]byte{}, origins: map[KeyID]KeyOrigin{},
		scripts: map[[20]byte][]byte{}, trees: map[[32]byte]*Taproot{}}
}

// AddPubKey records a public key and, when origin is not nil, its origin.
func (p *FlatProvider) AddPubKey(pub []byte, origin *KeyOrigin) {
	id := KeyID(script.Hash160(pub))
	p.pubkeys[id] = append([]byte(nil), pub...)
	if origin != nil {
		p.origins[id] = *origin
	}
}

// AddScript records a script by its HASH160.
func (p *FlatProvider) AddScript(s []byte) { p.scripts[script.Hash160(s)] = append([]byte(nil), s...) }

// AddTaproot records taproot spend data.
func (p *FlatProvider) AddTaproot(t *Taproot) { p.trees[t.OutputKey] = t }

// AddOutput records the keys, scripts and taproot data of an expansion.
func (p *FlatProvider) AddOutput(o Output) {
	for _, k := range o.Keys {
		origin := k.Origin
		p.AddPubKey(k.PubKey, &origin)
	}
	for _, s := range o.Scripts {
		p.AddScript(s)
	}
	for _, t := range o.Trees {
		p.AddTaproot(t)
	}
}

// PubKey implements Provider.
func (p *FlatProvider) PubKey(id KeyID) ([]byte, bool) { k, ok := p.pubkeys[id]; return k, ok }

// Origin implements Provider.
func (p *FlatProvider) Origin(id KeyID) (KeyOrigin, bool) { o, ok := p.origins[id]; return o, ok }

// Script implements Provider.
func (p *FlatProvider) Script(id [20]byte) ([]byte, bool) { s, ok := p.scripts[id]; return s, ok }

// TaprootSpendData implements Provider.
func (p *FlatProvider) TaprootSpendData(k [32]byte) (*Taproot, bool) {
	t, ok := p.trees[k]
	return t, ok
}

// Infer returns the descriptor Core's InferDescriptor builds for script
// with what provider knows.
func Infer(script []byte, provider Provider, net *chaincfg.Params) *Descriptor {
	n := inferScript(script, ctxTop, provider, net)
	return &Descriptor{root: n, net: net, keys: KeyMap{}, memo: newMemo()}
}

// inferPubkey is Core's InferPubkey: a constant key, with its origin when
// the provider knows one; nil for hybrid keys and for uncompressed keys
// outside the top level and sh().
func inferPubkey(pub []byte, ctx pctx, p Provider) keyExpr {
	if !pubKeyNonHybrid(pub) {
		return nil
	}
	if ctx != ctxTop && ctx != ctxP2SH && len(pub) != 33 {
		return nil
	}
	var k keyExpr = &constKey{pub: append([]byte(nil), pub...)}
	if o, ok := p.Origin(KeyID(script.Hash160(pub))); ok {
		k = &originKey{origin: o, inner: k}
	}
	return k
}

// inferXOnly is Core's InferXOnlyPubkey.
func inferXOnly(x []byte, p Provider) keyExpr {
	full := append([]byte{2}, x...)
	var k keyExpr = &constKey{pub: full, xonly: true}
	for _, prefix := range []byte{2, 3} {
		if o, ok := p.Origin(KeyID(script.Hash160(append([]byte{prefix}, x...)))); ok {
			return &originKey{origin: o, inner: k}
		}
	}
	return k
}

// inferMiniscript decodes a witness or tapscript as miniscript; nil while
// the miniscript engine is not built.
var inferMiniscript func(s []byte, ctx pctx, p Provider) *node

// inferScript is Core's InferScript.
func inferScript(s []byte, ctx pctx, p Provider, net *chaincfg.Params) *node {
	if ctx == ctxP2TR && len(s) == 34 && s[0] == 32 && s[33] == 0xac {
		return &node{kind: KindPK, keys: []keyExpr{inferXOnly(s[1:33], p)}, xonly: true}
	}
	if ctx == ctxP2TR {
		if k, keys, ok := script.MatchMultiA(s); ok {
			n := &node{kind: KindMultiA, threshold: k}
			for _, x := range keys {
				n.keys = append(n.keys, inferXOnly(x, p))
			}
			return n
		}
	}
	class, data := script.Solve(s)
	legacyCtx := ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH
	switch {
	case class == script.PubKey && legacyCtx:
		if k := inferPubkey(data[0], ctx, p); k != nil {
			return &node{kind: KindPK, keys: []keyExpr{k}}
		}
	case class == script.PubKeyHash && legacyCtx:
		var id KeyID
		copy(id[:], data[0])
		if pub, ok := p.PubKey(id); ok {
			if k := inferPubkey(pub, ctx, p); k != nil {
				return &node{kind: KindPKH, keys: []keyExpr{k}}
			}
		}
	case class == script.WitnessV0KeyHash && (ctx == ctxTop || ctx == ctxP2SH):
		var id KeyID
		copy(id[:], data[0])
		if pub, ok := p.PubKey(id); ok {
			if k := inferPubkey(pub, ctxP2WPKH, p); k != nil {
				return &node{kind: KindWPKH, keys: []keyExpr{k}}
			}
		}
	case class == script.Multisig && legacyCtx:
		n := &node{kind: KindMulti, threshold: int(data[0][0])}
		ok := true
		for _, pub := range data[1 : len(data)-1] {
			k := inferPubkey(pub, ctx, p)
			if k == nil {
				ok = false
				break
			}
			n.keys = append(n.keys, k)
		}
		if ok {
			return n
		}
	case class == script.ScriptHash && ctx == ctxTop:
		var id [20]byte
		copy(id[:], data[0])
		if sub, ok := p.Script(id); ok {
			if n := inferScript(sub, ctxP2SH, p, net); n != nil {
				return &node{kind: KindSH, subs: []*node{n}}
			}
		}
	case class == script.WitnessV0ScriptHash && (ctx == ctxTop || ctx == ctxP2SH):
		if sub, ok := p.Script(script.RIPEMD160(data[0])); ok {
			if n := inferScript(sub, ctxP2WSH, p, net); n != nil {
				return &node{kind: KindWSH, subs: []*node{n}}
			}
		}
	case class == script.WitnessV1Taproot && ctx == ctxTop:
		var out [32]byte
		copy(out[:], data[0])
		if tr, ok := p.TaprootSpendData(out); ok {
			if n := inferTaproot(tr, p, net); n != nil {
				return n
			}
		}
		if _, ok := xonlyToFull(data[0]); ok {
			return &node{kind: KindRawTR, keys: []keyExpr{inferXOnly(data[0], p)}}
		}
	}
	if (ctx == ctxP2WSH || ctx == ctxP2TR) && inferMiniscript != nil {
		if n := inferMiniscript(s, ctx, p); n != nil {
			return n
		}
	}
	if ctx != ctxTop {
		return nil
	}
	if _, ok := address.Encode(s, net); ok {
		return &node{kind: KindAddr, script: append([]byte(nil), s...)}
	}
	return &node{kind: KindRaw, script: append([]byte(nil), s...)}
}

// inferTaproot rebuilds tr(KEY,TREE) from spend data, with the leaves in
// the order Core's tree inference gives them, or nil when the tree or a
// leaf cannot be inferred.
func inferTaproot(tr *Taproot, p Provider, net *chaincfg.Params) *node {
	leaves, ok := inferTapLeaves(tr)
	if !ok {
		return nil
	}
	n := &node{kind: KindTR, keys: []keyExpr{inferXOnly(tr.InternalKey[:], p)}}
	for _, l := range leaves {
		if l.LeafVersion != LeafVersionTapscript {
			return nil
		}
		sub := inferScript(l.Script, ctxP2TR, p, net)
		if sub == nil {
			return nil
		}
		n.subs = append(n.subs, sub)
		n.depths = append(n.depths, l.Depth)
	}
	return n
}
