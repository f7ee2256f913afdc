package descriptor

import (
	"slices"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestExpandOriginMerge checks the origin of a derived key written with an
// explicit origin: prepended to the derivation steps, and taking over when
// the same key appeared before without one.
func TestExpandOriginMerge(t *testing.T) {
	fp := [4]byte{0xd3, 0x4d, 0xb3, 0x3f}
	root, ok := decodeExtKey(benchXPub, &chaincfg.MainNetParams)
	if !ok {
		t.Fatal("bad xpub")
	}
	for _, tc := range []struct {
		desc string
		keys int
	}{
		{"wpkh([d34db33f/84h/0h/0h]" + benchXPub + "/0/*)", 1},
		{"sh(multi(1," + benchXPub + "/0/*,[d34db33f/84h/0h/0h]" + benchXPub + "/0/*))", 1},
		{"sh(multi(1,[d34db33f/84h/0h/0h]" + benchXPub + "/0/*," + benchXPub + "/1/*))", 2},
	} {
		d, err := Parse(tc.desc, &chaincfg.MainNetParams)
		if err != nil {
			t.Fatalf("%s: %v", tc.desc, err)
		}
		for _, i := range []uint32{0, 7} {
			outs, err := d.Expand(i, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.desc, err)
			}
			keys := outs[0].Keys
			if len(keys) != tc.keys {
				t.Fatalf("%s at %d: %d keys", tc.desc, i, len(keys))
			}
			want, err := root.deriveChild(0)
			if err == nil {
				want, err = want.deriveChild(i)
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(keys[0].PubKey) != string(want.pub[:]) {
				t.Fatalf("%s at %d: first key differs", tc.desc, i)
			}
			o := keys[0].Origin
			wantPath := []uint32{84 | hardenedFlag, hardenedFlag, hardenedFlag, 0, i}
			if o.Fingerprint != fp || !slices.Equal(o.Path, wantPath) {
				t.Fatalf("%s at %d: origin %x %v", tc.desc, i, o.Fingerprint, o.Path)
			}
			if tc.keys == 2 && keys[1].Origin.Fingerprint != root.fingerprint() {
				t.Fatalf("%s at %d: second key's origin %x", tc.desc, i, keys[1].Origin.Fingerprint)
			}
		}
	}
}
