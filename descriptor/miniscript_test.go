package descriptor

import (
	"regexp"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestMiniscriptInfer expands miniscript descriptors and infers them back
// from their scriptPubKeys with the expansion's keys and scripts, as
// getaddressinfo does: the inferred descriptor is the original with each
// key carrying the origin the expansion recorded for it (its own
// fingerprint, as Core prints).
func TestMiniscriptInfer(t *testing.T) {
	const (
		k1 = "03ee0ebbb5b94c9fa99815b348bb964ab01b239a23ed487a56bf0498adf3b53c36"
		k2 = "0338220ec76f62a7e678aae73fc66960ef37c4268c64ec5477b01553597eb42d80"
		k3 = "02cfc119494e46afbc4ee87894fe68c94640a149c040e193b7e37d4d8237dadfc0"
	)
	for _, s := range []string{
		"wsh(or_d(pk(" + k1 + "),and_v(v:pk(" + k2 + "),older(144))))",
		"wsh(and_v(v:pk(" + k1 + "),after(500000)))",
		"wsh(thresh(2,pk(" + k1 + "),s:pk(" + k2 + "),s:pk(" + k3 + ")))",
		"wsh(or_i(and_v(v:pkh(" + k1 + "),hash160(cb6beedc196ff46c1e0a2e6003f0e5a3cf295881)),pk(" + k2 + ")))",
		"sh(wsh(andor(pk(" + k1 + "),older(10),pk(" + k2 + "))))",
		"tr(" + k3[2:] + ",and_v(v:pk(" + k1[2:] + "),older(144)))",
	} {
		d, err := Parse(s, &chaincfg.MainNetParams)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		outs, err := d.Expand(0, nil)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		p := NewFlatProvider()
		p.AddOutput(outs[0])
		got := Infer(outs[0].ScriptPubKey, p, &chaincfg.MainNetParams).String()
		if !strings.Contains(got, "[") {
			t.Errorf("inferred %s has no key origins", got)
		}
		bare := origins.ReplaceAllString(got[:len(got)-9], "")
		if bare != s {
			t.Errorf("inferred %s, want %s with origins", got, s)
		}
	}
}

var origins = regexp.MustCompile(`\[[0-9a-f]{8}\]`)

// TestMiniscriptInferNotSane: a witness script that decodes as miniscript
// but is not sane infers as addr(), as in Core.
func TestMiniscriptInferNotSane(t *testing.T) {
	ws := []byte{0x01, 0x0a, 0xb2} // older(10): no signature needed
	p := NewFlatProvider()
	p.AddScript(ws)
	d := Infer(p2wsh(ws), p, &chaincfg.MainNetParams)
	if d.Kind() != KindAddr {
		t.Errorf("inferred %s", d.String())
	}
}
