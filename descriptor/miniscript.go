package descriptor

import (
	"encoding/hex"

	"github.com/descwallet/descwallet/descriptor/miniscript"
)

// This file connects the miniscript engine to the parser (wsh() arguments
// and tr() leaves that are not descriptor functions) and to inference.

func init() {
	parseMiniscript = parseMiniscriptExpr
	inferMiniscript = inferMiniscriptScript
}

// msNode adapts a miniscript tree to the Miniscript interface.
type msNode struct{ n *miniscript.Node }

func (m msNode) Script(keys [][]byte) ([]byte, error) { return m.n.Script(keys) }

func (m msNode) String(key func(i int) string) string { return m.n.String(key) }

// MiniscriptNode returns the miniscript tree of m when m comes from this
// package's engine.
func MiniscriptNode(m Miniscript) (*miniscript.Node, bool) {
	n, ok := m.(msNode)
	return n.n, ok
}

// msKeys collects the key expressions of a miniscript being parsed.
type msKeys struct {
	p    *parser
	ctx  pctx
	keys []keyExpr
}

func (k *msKeys) env() *env { return &env{net: k.p.net, keys: k.p.keys, memo: newMemo()} }

func (k *msKeys) ParseKey(s string) (int, error) {
	ke, err := k.p.parsePubkey(s, k.ctx)
	if err != nil {
		return 0, err
	}
	k.keys = append(k.keys, ke)
	return len(k.keys) - 1, nil
}

// KeyID is the key derived at position 0 of its first branch, as Core
// compares miniscript keys; a key that cannot be derived is named by its
// expression.
func (k *msKeys) KeyID(i int) string {
	b := k.keys[i].branch(0)
	if pub, err := b.derive(0, k.env(), newCollector()); err == nil {
		return "k" + string(pub)
	}
	s, _ := b.str(strPublic, k.env())
	return "s" + s
}

func (k *msKeys) keyString(i int) string {
	s, _ := k.keys[i].branch(0).str(strPublic, k.env())
	return s
}

// parseMiniscriptExpr is Core's miniscript step of ParseScript: nil when
// expr is not miniscript, an error for a key error, a miniscript outside
// wsh()/tr(), or one that is not sane.
func parseMiniscriptExpr(p *parser, expr string, ctx pctx) (*node, error) {
	msctx, kctx := miniscript.Tapscript, ctxP2TR
	if ctx == ctxP2WSH {
		msctx, kctx = miniscript.P2WSH, ctxP2WSH
	}
	kp := &msKeys{p: p, ctx: kctx}
	n, err := miniscript.Parse(expr, msctx, kp)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, nil
	}
	if ctx != ctxP2WSH && ctx != ctxP2TR {
		return nil, makeError(ErrMiniscript, "Miniscript expressions can only be used in wsh or tr.")
	}
	if msg := n.SaneError(kp.keyString); msg != "" {
		return nil, makeError(ErrMiniscript, msg)
	}
	max := 1
	for _, k := range kp.keys {
		if k.paths() > max {
			max = k.paths()
		}
	}
	for _, k := range kp.keys {
		if k.paths() != 1 && k.paths() != max {
			return nil, makeError(ErrMultipath, "Miniscript: Multipath derivation paths have mismatched lengths")
		}
	}
	return &node{kind: KindMiniscript, keys: kp.keys, ms: msNode{n}, xonly: ctx == ctxP2TR}, nil
}

// msInfer resolves the keys of a script being decoded through a Provider.
type msInfer struct {
	p    Provider
	ctx  pctx
	keys []keyExpr
	ids  []string
}

func (m *msInfer) add(k keyExpr, id []byte) (int, bool) {
	if k == nil {
		return 0, false
	}
	m.keys = append(m.keys, k)
	m.ids = append(m.ids, hex.EncodeToString(id))
	return len(m.keys) - 1, true
}

func (m *msInfer) FromPKBytes(pub []byte) (int, bool) {
	if m.ctx == ctxP2TR {
		if len(pub) != 32 {
			return 0, false
		}
		return m.add(inferXOnly(pub, m.p), append([]byte{2}, pub...))
	}
	return m.add(inferPubkey(pub, m.ctx, m.p), pub)
}

func (m *msInfer) FromPKHBytes(h []byte) (int, bool) {
	var id KeyID
	copy(id[:], h)
	pub, ok := m.p.PubKey(id)
	if !ok {
		return 0, false
	}
	return m.add(inferPubkey(pub, m.ctx, m.p), pub)
}

func (m *msInfer) KeyID(i int) string { return m.ids[i] }

// inferMiniscriptScript is Core's miniscript step of InferScript: a sane
// miniscript whose keys the provider can place, or nil.
func inferMiniscriptScript(s []byte, ctx pctx, p Provider) *node {
	msctx := miniscript.Tapscript
	if ctx == ctxP2WSH {
		msctx = miniscript.P2WSH
	}
	kr := &msInfer{p: p, ctx: ctx}
	n := miniscript.Decode(s, msctx, kr)
	if n == nil || !n.IsSane() {
		return nil
	}
	return &node{kind: KindMiniscript, keys: kr.keys, ms: msNode{n}, xonly: ctx == ctxP2TR}
}
