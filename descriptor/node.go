package descriptor

import (
	"bytes"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/script"
)

// Kind is the type of a script expression.
type Kind int

// The script expression kinds. The set is closed: every descriptor is a tree
// of these nodes.
const (
	KindPK Kind = iota
	KindPKH
	KindWPKH
	KindCombo
	KindMulti
	KindSortedMulti
	KindMultiA
	KindSortedMultiA
	KindSH
	KindWSH
	KindTR
	KindRawTR
	KindAddr
	KindRaw
	KindMiniscript
)

var kindNames = [...]string{"pk", "pkh", "wpkh", "combo", "multi", "sortedmulti",
	"multi_a", "sortedmulti_a", "sh", "wsh", "tr", "rawtr", "addr", "raw", "miniscript"}

// String returns the function name of the kind ("pk", "sh", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Miniscript is a miniscript expression placed inside wsh() or as a tr()
// leaf. The miniscript engine implements it; the descriptor tree holds it as
// a node of KindMiniscript whose keys are the node's key expressions.
type Miniscript interface {
	// Script returns the script for the derived keys, in key order
	// (33-byte keys under wsh, 32-byte x-only keys under tr).
	Script(keys [][]byte) ([]byte, error)
	// String prints the expression, each key i printed by key(i).
	String(key func(i int) string) string
}

// node is one script expression.
type node struct {
	kind      Kind
	keys      []keyExpr
	subs      []*node
	depths    []int // tr: depth of each leaf in subs
	threshold int
	xonly     bool   // pk() inside tr()
	script    []byte // addr(), raw(): the scriptPubKey
	ms        Miniscript
}

// walkKeys calls f for every key expression of the tree in parse order.
func (n *node) walkKeys(f func(keyExpr)) {
	for _, k := range n.keys {
		f(k)
	}
	for _, s := range n.subs {
		s.walkKeys(f)
	}
}

// mapKeys returns a copy of the tree with every key replaced by f(key).
func (n *node) mapKeys(f func(keyExpr) keyExpr) *node {
	c := *n
	c.keys = make([]keyExpr, len(n.keys))
	for i, k := range n.keys {
		c.keys[i] = f(k)
	}
	c.subs = make([]*node, len(n.subs))
	for i, s := range n.subs {
		c.subs[i] = s.mapKeys(f)
	}
	return &c
}

func (n *node) isRange() bool {
	r := false
	n.walkKeys(func(k keyExpr) { r = r || k.isRange() })
	return r
}

// paths is the number of multipath branches of the tree.
func (n *node) paths() int {
	p := 1
	n.walkKeys(func(k keyExpr) {
		if k.paths() > p {
			p = k.paths()
		}
	})
	return p
}

func (n *node) isSolvable() bool {
	switch n.kind {
	case KindAddr, KindRaw:
		return false
	case KindMiniscript:
		return true
	}
	for _, s := range n.subs {
		if !s.isSolvable() {
			return false
		}
	}
	return true
}

// outputType is Core's GetOutputType: "legacy", "p2sh-segwit", "bech32",
// "bech32m" or "" for none.
func (n *node) outputType(e *env) string {
	switch n.kind {
	case KindPKH:
		return "legacy"
	case KindWPKH, KindWSH:
		return "bech32"
	case KindTR, KindRawTR:
		return "bech32m"
	case KindSH:
		if n.subs[0].outputType(e) == "bech32" {
			return "p2sh-segwit"
		}
		return "legacy"
	case KindAddr, KindRaw:
		return outputTypeOfScript(n.script)
	}
	return ""
}

// outputTypeOfScript is the output type of a scriptPubKey with an address.
func outputTypeOfScript(s []byte) string {
	switch {
	case len(s) == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 20 && s[23] == 0x88 && s[24] == 0xac:
		return "legacy"
	case len(s) == 23 && s[0] == 0xa9 && s[1] == 20 && s[22] == 0x87:
		return "legacy"
	case len(s) == 22 && s[0] == 0 && s[1] == 20, len(s) == 34 && s[0] == 0 && s[1] == 32:
		return "bech32"
	}
	// Any other witness program with an address: Core maps taproot and
	// unknown versions to bech32m.
	if len(s) >= 4 && len(s) <= 42 && (s[0] == 0 || s[0] >= 0x51 && s[0] <= 0x60) && int(s[1])+2 == len(s) && s[1] >= 2 && s[1] <= 40 {
		if s[0] != 0 {
			return "bech32m"
		}
	}
	return ""
}

// str prints the node (without checksum). ok follows Core: for strPrivate it
// tells whether any private key was printed; otherwise false means the form
// cannot be made.
func (n *node) str(m strMode, e *env) (string, bool) {
	if n.kind == KindMiniscript {
		any := false
		fail := false
		s := n.ms.String(func(i int) string {
			ks, ok := n.keys[i].str(m, e)
			if m == strPrivate {
				any = any || ok
			} else if !ok {
				fail = true
			}
			return ks
		})
		if m == strPrivate {
			return s, any
		}
		return s, !fail
	}
	var b strings.Builder
	b.WriteString(n.kind.String())
	b.WriteByte('(')
	isPriv := m == strPrivate
	anyOK := !isPriv
	pos := 0
	switch n.kind {
	case KindAddr:
		a, _ := address.Encode(n.script, e.net)
		b.WriteString(a)
		pos = 1
	case KindRaw:
		b.WriteString(hex.EncodeToString(n.script))
		pos = 1
	case KindMulti, KindSortedMulti, KindMultiA, KindSortedMultiA:
		b.WriteString(sprintf("%d", n.threshold))
		pos = 1
	}
	for _, k := range n.keys {
		if pos > 0 {
			b.WriteByte(',')
		}
		pos++
		ks, ok := k.str(m, e)
		if isPriv {
			anyOK = anyOK || ok
		} else if !ok {
			return "", false
		}
		b.WriteString(ks)
	}
	var sub string
	var subOK bool
	if n.kind == KindTR {
		sub, subOK = n.treeString(m, e)
	} else {
		var sb strings.Builder
		subOK = !isPriv
		for i, s := range n.subs {
			if i > 0 {
				sb.WriteByte(',')
			}
			ss, ok := s.str(m, e)
			if !isPriv && !ok {
				return "", false
			}
			subOK = subOK || ok
			sb.WriteString(ss)
		}
		sub = sb.String()
	}
	if !isPriv && !subOK {
		return "", false
	}
	anyOK = anyOK || subOK
	if pos > 0 && sub != "" {
		b.WriteByte(',')
	}
	b.WriteString(sub)
	b.WriteByte(')')
	return b.String(), anyOK
}

// treeString prints the script tree of a tr() node with braces.
func (n *node) treeString(m strMode, e *env) (string, bool) {
	if len(n.depths) == 0 {
		return "", m != strPrivate
	}
	isPriv := m == strPrivate
	anyOK := !isPriv
	var b strings.Builder
	var path []bool
	for i, d := range n.depths {
		if i > 0 {
			b.WriteByte(',')
		}
		for len(path) <= d {
			if len(path) > 0 {
				b.WriteByte('{')
			}
			path = append(path, false)
		}
		s, ok := n.subs[i].str(m, e)
		if !isPriv && !ok {
			return "", false
		}
		anyOK = anyOK || ok
		b.WriteString(s)
		for len(path) > 0 && path[len(path)-1] {
			if len(path) > 1 {
				b.WriteByte('}')
			}
			path = path[:len(path)-1]
		}
		if len(path) > 0 {
			path[len(path)-1] = true
		}
	}
	return b.String(), anyOK
}

// havePrivate is Core's HavePrivateKeys: every key of the tree has its
// private key (false for a tree without keys).
func (n *node) havePrivate(e *env) bool {
	if len(n.keys) == 0 && len(n.subs) == 0 {
		return false
	}
	for _, s := range n.subs {
		if !s.havePrivate(e) {
			return false
		}
	}
	for _, k := range n.keys {
		if !k.havePrivate(e) {
			return false
		}
	}
	return true
}

// anyPrivate reports whether at least one private key is known, a musig()
// participant's included.
func (n *node) anyPrivate(e *env) bool {
	r := false
	n.walkKeys(func(k keyExpr) { r = r || somePrivate(k, e) })
	return r
}

// privateForm is Core's ToPrivateString success: every key expression
// prints in private form (see somePrivate); never for addr() and raw().
func (n *node) privateForm(e *env) bool {
	if n.kind == KindAddr || n.kind == KindRaw {
		return false
	}
	r := true
	n.walkKeys(func(k keyExpr) { r = r && somePrivate(k, e) })
	return r
}

// Script building.

func pushData(b []byte, d []byte) []byte {
	switch {
	case len(d) < 0x4c:
		b = append(b, byte(len(d)))
	case len(d) <= 0xff:
		b = append(b, 0x4c, byte(len(d)))
	default:
		b = append(b, 0x4d, byte(len(d)), byte(len(d)>>8))
	}
	return append(b, d...)
}

// pushInt appends the minimal push of a small non-negative number.
func pushInt(b []byte, v int) []byte {
	switch {
	case v == 0:
		return append(b, 0x00)
	case v <= 16:
		return append(b, byte(0x50+v))
	}
	var num []byte
	for x := v; x > 0; x >>= 8 {
		num = append(num, byte(x))
	}
	if num[len(num)-1]&0x80 != 0 {
		num = append(num, 0)
	}
	return pushData(b, num)
}

func p2pkh(pub []byte) []byte {
	b := make([]byte, 25)
	b[0], b[1], b[2] = 0x76, 0xa9, 20
	h := script.Hash160(pub)
	copy(b[3:], h[:])
	b[23], b[24] = 0x88, 0xac
	return b
}

func p2wpkh(pub []byte) []byte {
	b := make([]byte, 22)
	b[1] = 20
	h := script.Hash160(pub)
	copy(b[2:], h[:])
	return b
}

func p2sh(s []byte) []byte {
	b := make([]byte, 23)
	b[0], b[1] = 0xa9, 20
	h := script.Hash160(s)
	copy(b[2:], h[:])
	b[22] = 0x87
	return b
}

func p2wsh(s []byte) []byte {
	h := sha256Sum(s)
	return append([]byte{0x00, 32}, h[:]...)
}

func p2tr(x []byte) []byte {
	return append([]byte{0x51, 32}, x...)
}

func p2pk(pub []byte) []byte {
	return append(pushData(nil, pub), 0xac)
}

func multisigScript(k int, keys [][]byte) []byte {
	b := pushInt(nil, k)
	for _, p := range keys {
		b = pushData(b, p)
	}
	b = pushInt(b, len(keys))
	return append(b, 0xae)
}

func sortKeys(keys [][]byte) [][]byte {
	s := append([][]byte(nil), keys...)
	sort.Slice(s, func(i, j int) bool { return bytes.Compare(s[i], s[j]) < 0 })
	return s
}

// xonlyOf returns the 32-byte x coordinate of a serialized key.
func xonlyOf(pub []byte) []byte {
	if len(pub) == 32 {
		return pub
	}
	return pub[1:33]
}
