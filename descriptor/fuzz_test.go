package descriptor

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/descwallet/descwallet/internal/testvec"
)

// fuzzSeeds returns every descriptor string of the vector files.
func fuzzSeeds(t testing.TB) []string {
	var seeds []string
	for _, f := range []string{"descriptors_valid.json", "descriptors_invalid.json"} {
		var v struct {
			Cases []map[string]json.RawMessage `json:"cases"`
		}
		testvec.Load(t, f, &v)
		for _, c := range v.Cases {
			for _, k := range []string{"private", "public", "descriptor", "private_variant", "normalized_public"} {
				var s string
				if json.Unmarshal(c[k], &s) == nil && s != "" {
					seeds = append(seeds, s)
				}
			}
		}
	}
	return seeds
}

// FuzzParse checks that parsing never panics, that every descriptor that
// parses prints a public string which parses to the same descriptor, that
// the private string does too, and that the checksum round-trips.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	nets := []*chaincfg.Params{&chaincfg.MainNetParams, &chaincfg.RegressionNetParams}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		for _, net := range nets {
			d, err := Parse(s, net)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error of type %T", err)
				}
				continue
			}
			pub := d.String()
			d2, err := Parse(pub, net, RequireChecksum())
			if err != nil {
				t.Fatalf("%q prints %q which does not parse: %v", s, pub, err)
			}
			if got := d2.String(); got != pub {
				t.Fatalf("%q: public string not stable:\n%s\n%s", s, pub, got)
			}
			if d2.IsRange() != d.IsRange() || d2.IsMultipath() != d.IsMultipath() || d2.IsSolvable() != d.IsSolvable() {
				t.Fatalf("%q: properties changed after round trip", s)
			}
			priv, _ := d.PrivateString()
			d3, err := Parse(priv, net)
			if err != nil {
				t.Fatalf("%q: private string does not parse: %v", s, err)
			}
			if d3.String() != pub {
				t.Fatalf("%q: private string parses to another descriptor", s)
			}
			body, sum, _ := strings.Cut(pub, "#")
			if got, err := Checksum(body); err != nil || got != sum {
				t.Fatalf("%q: checksum %q (%v), printed %q", s, got, err, sum)
			}
			for _, b := range d.Multipath() {
				if _, err := Parse(b.String(), net, RequireChecksum()); err != nil {
					t.Fatalf("%q: branch %q does not parse: %v", s, b.String(), err)
				}
			}
		}
	})
}
