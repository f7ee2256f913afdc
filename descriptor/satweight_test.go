package descriptor

import (
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// Test keys (compressed, and one uncompressed).
const (
	swK1 = "035171329e85212f00ce440916d435792c9fc822a0b4e7ed96b20d1cf4cc16a7cb"
	swK2 = "03ae6da04c6f80c9419817fce062ab47952d439bd7ac25baa8a14a600cc09a5f1d"
	swK3 = "033d27059e8bfe2cefb3744c91e6f423576e809bc824ec028f4e2a49e4afb536ba"
	swU1 = "04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235"
)

// TestMaxSatisfactionWeight checks the figures against a hand computation
// of Core's formulas (script/descriptor.cpp), with 72- and 71-byte ECDSA
// signatures:
//
//	pkh:       4*(1+sig+1+keylen)
//	wpkh:      1+sig+1+33
//	pk:        4*(1+sig), 1+65 for an x-only key
//	multi:     4*(1+(1+sig)*k)
//	sh(X):     4*(1+len(X script)) + sat(X), times 4 unless X is segwit
//	wsh(X):    compactsize(len(X)) + len(X) + sat(X)
//	tr/rawtr:  1+65 (key path)
//	miniscript: its witness size with 72-byte signatures
func TestMaxSatisfactionWeight(t *testing.T) {
	multi := "multi(2," + swK1 + "," + swK2 + "," + swK3 + ")"
	for _, c := range []struct {
		desc          string
		max, min      int // weight with 72- and 71-byte signatures
		elems, script int
	}{
		{"pkh(" + swK1 + ")", 4 * 107, 4 * 106, 2, 25},
		{"pkh(" + swU1 + ")", 4 * 139, 4 * 138, 2, 25},
		{"wpkh(" + swK1 + ")", 107, 106, 2, 22},
		{"sh(wpkh(" + swK1 + "))", 4*23 + 107, 4*23 + 106, 3, 23},
		{"pk(" + swK1 + ")", 4 * 73, 4 * 72, 1, 35},
		{"pk(" + swU1 + ")", 4 * 73, 4 * 72, 1, 67},
		{multi, 4 * 147, 4 * 145, 3, 105},
		{"sh(" + multi + ")", 4*106 + 4*147, 4*106 + 4*145, 4, 23},
		{"wsh(" + multi + ")", 1 + 105 + 147, 1 + 105 + 145, 4, 34},
		{"sh(wsh(" + multi + "))", 4*35 + 253, 4*35 + 251, 5, 23},
		{"sh(pk(" + swU1 + "))", 4*68 + 4*73, 4*68 + 4*72, 2, 23},
		{"sh(sortedmulti(1," + swK1 + "," + swK2 + "))", 4*(1+71) + 4*74, 4*(1+71) + 4*73, 3, 23},
		{"tr(" + swK1 + ")", 66, 66, 1, 34},
		{"tr(" + swK1 + ",{pk(" + swK2 + "),pk(" + swK3 + ")})", 66, 66, 1, 34},
		{"rawtr(" + swK1 + ")", 66, 66, 1, 34},
		// <K1> CHECKSIGVERIFY 10 CSV: 37 bytes; one 73-byte signature.
		{"wsh(and_v(v:pk(" + swK1 + "),older(10)))", 1 + 37 + 73, 1 + 37 + 73, 2, 34},
		// <K1> CHECKSIG IFDUP NOTIF <K2> CHECKSIGVERIFY 144 CSV ENDIF:
		// 77 bytes; the longer branch is an empty dissatisfaction of the
		// first key and a signature for the second.
		{"wsh(or_d(pk(" + swK1 + "),and_v(v:pk(" + swK2 + "),older(144))))", 1 + 77 + 1 + 73, 1 + 77 + 1 + 73, 3, 34},
		// A 275-byte witness script (8 keys) needs a 3-byte length.
		{"wsh(multi(1," + swK1 + "," + swK2 + "," + swK3 + "," + swK1 + "," + swK2 + "," + swK3 + "," + swK1 + "," + swK2 + "))",
			3 + 275 + 74, 3 + 275 + 73, 3, 34},
		// Thresholds above 16 are two-byte pushes: 17 of 17 keys.
		{"sh(wsh(multi(17" + strings.Repeat(","+swK1, 17) + ")))", 4*35 + 3 + (1 + 2 + 2 + 17*34) + 1 + 17*73,
			4*35 + 3 + (1 + 2 + 2 + 17*34) + 1 + 17*72, 20, 23},
	} {
		d, err := Parse(c.desc, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		outs, err := d.Expand(0, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		if s, ok := d.ScriptSize(); !ok || s != len(outs[0].ScriptPubKey) || s != c.script {
			t.Errorf("%s: script size %d %v, output script %d bytes, want %d", c.desc, s, ok, len(outs[0].ScriptPubKey), c.script)
		}
		hi, ok1 := d.MaxSatisfactionWeight(true)
		lo, ok2 := d.MaxSatisfactionWeight(false)
		el, ok3 := d.MaxSatisfactionElems()
		if !ok1 || !ok2 || !ok3 || hi != c.max || lo != c.min || el != c.elems {
			t.Errorf("%s: weight %d/%d elems %d (%v %v %v), want %d/%d %d", c.desc, hi, lo, el, ok1, ok2, ok3, c.max, c.min, c.elems)
		}
	}
}

// TestMaxSatisfactionWeightNone checks the descriptors Core gives no
// figure for.
func TestMaxSatisfactionWeightNone(t *testing.T) {
	for _, s := range []string{
		"combo(" + swK1 + ")",
		"addr(bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd)",
		"raw(51)",
	} {
		d, err := Parse(s, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := d.MaxSatisfactionWeight(true); ok {
			t.Errorf("%s: weight %d", s, w)
		}
		if e, ok := d.MaxSatisfactionElems(); ok {
			t.Errorf("%s: elems %d", s, e)
		}
	}
}

// TestMaxWeightToSatisfy checks rust-miniscript's measure: equal to Core's
// figure with 72-byte signatures where the prefixes do not grow, larger
// where they do (a redeem script pushed with OP_PUSHDATA1 and a scriptSig
// whose length needs three bytes), and the largest script path of a tr()
// tree.
func TestMaxWeightToSatisfy(t *testing.T) {
	multi := "multi(2," + swK1 + "," + swK2 + "," + swK3 + ")"
	for _, c := range []struct {
		desc string
		want int
	}{
		{"pkh(" + swK1 + ")", 4 * 107},
		{"wpkh(" + swK1 + ")", 107},
		{"sh(wpkh(" + swK1 + "))", 4*23 + 107},
		{"pk(" + swK1 + ")", 4 * 73},
		{multi, 4 * 147},
		{"wsh(" + multi + ")", 1 + 105 + 147},
		{"sh(wsh(" + multi + "))", 4*35 + 253},
		// scriptSig: 147 of signatures, OP_PUSHDATA1 105 and the 105-byte
		// script: 254 bytes, whose length takes 3 bytes instead of 1.
		{"sh(" + multi + ")", 4 * (2 + 2 + 105 + 147)},
		{"sh(sortedmulti(1," + swK1 + "," + swK2 + "))", 4 * (1 + 71 + 74)},
		{"tr(" + swK1 + ")", 66},
		{"rawtr(" + swK1 + ")", 66},
		// Each leaf: a 66-byte signature, the 34-byte script and its
		// length, a 65-byte control block (depth 1) and its length.
		{"tr(" + swK1 + ",{pk(" + swK2 + "),pk(" + swK3 + ")})", 66 + 35 + 66},
		// The deeper leaf (depth 2) of a 2-of-3 multi_a: 2 signatures, one
		// empty push, the 104-byte script, a 97-byte control block.
		{"tr(" + swK1 + ",{pk(" + swK2 + "),{pk(" + swK3 + "),multi_a(2," + swK1[2:] + "," + swK2[2:] + "," + swK3[2:] + ")}})",
			2*66 + 1 + 1 + 104 + 1 + 97},
		{"wsh(and_v(v:pk(" + swK1 + "),older(10)))", 1 + 37 + 73},
	} {
		d, err := Parse(c.desc, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		if got, ok := d.MaxWeightToSatisfy(); !ok || got != c.want {
			t.Errorf("%s: %d %v, want %d", c.desc, got, ok, c.want)
		}
	}
	for _, s := range []string{"combo(" + swK1 + ")", "raw(51)", "addr(bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd)"} {
		d, _ := Parse(s, &chaincfg.RegressionNetParams)
		if w, ok := d.MaxWeightToSatisfy(); ok {
			t.Errorf("%s: %d", s, w)
		}
	}
}
