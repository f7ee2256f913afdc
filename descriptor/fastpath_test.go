package descriptor

import (
	"bytes"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// fastPathTPrv is BIP 32 test vector 1's master key on the test networks.
const fastPathTPrv = "tprv8ZgxMBicQKsPeDgjzdC36fs6bMjGApWDNLR9erAXMs5skhMv36j9MV5ecvfavji5khqjWaWSFhN3YcCUUdiKH6isR4Pwy3U5y5egddBr16m"

// TestForEachScriptMatchesExpand checks that the scripts of ForEachScript
// are those of Expand, index by index, for the fast-path templates (with
// and without origins, public and private, across batch boundaries) and
// for descriptors that take the general path; and that the cache it fills
// lets a public copy expand past hardened steps.
func TestForEachScriptMatchesExpand(t *testing.T) {
	xpub := benchXPub
	cases := []struct {
		desc       string
		net        *chaincfg.Params
		begin, end uint32
	}{
		{"wpkh(" + xpub + "/0/*)", &chaincfg.MainNetParams, 0, 600},
		{"pkh([d34db33f/44h/0h/0h]" + xpub + "/1/*)", &chaincfg.MainNetParams, 250, 260},
		{"sh(wpkh(" + xpub + "/*))", &chaincfg.MainNetParams, 2147483600, 2147483647},
		{"tr(" + xpub + "/0/*)", &chaincfg.MainNetParams, 5, 40},
		{"wpkh(" + fastPathTPrv + "/84h/1h/0h/0/*)", &chaincfg.RegressionNetParams, 0, 300},
		{"tr(" + fastPathTPrv + "/86h/1h/0h/1/*)", &chaincfg.RegressionNetParams, 7, 9},
		// General path: hardened wildcard, several keys, combo, no range.
		{"wpkh(" + fastPathTPrv + "/0h/*h)", &chaincfg.RegressionNetParams, 0, 5},
		{"wsh(multi(1," + xpub + "/0/*," + xpub + "/1/*))", &chaincfg.MainNetParams, 3, 8},
		{"combo(" + xpub + "/*)", &chaincfg.MainNetParams, 0, 3},
		{"wpkh(" + xpub + ")", &chaincfg.MainNetParams, 0, 0},
	}
	for _, tc := range cases {
		d, err := Parse(tc.desc, tc.net)
		if err != nil {
			t.Fatalf("%s: %v", tc.desc, err)
		}
		cache := NewCache()
		next := uint64(tc.begin)
		err = d.ForEachScript(tc.begin, tc.end, cache, func(index uint32, scripts [][]byte) error {
			if uint64(index) != next {
				t.Fatalf("%s: index %d, want %d", tc.desc, index, next)
			}
			next++
			outs, err := d.Expand(index, nil)
			if err != nil {
				return err
			}
			if len(outs) != len(scripts) {
				t.Fatalf("%s at %d: %d scripts, want %d", tc.desc, index, len(scripts), len(outs))
			}
			for i, o := range outs {
				if !bytes.Equal(o.ScriptPubKey, scripts[i]) {
					t.Fatalf("%s at %d: script %x, want %x", tc.desc, index, scripts[i], o.ScriptPubKey)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.desc, err)
		}
		if next != uint64(tc.end)+1 {
			t.Fatalf("%s: stopped at %d", tc.desc, next)
		}
		if d.HasPrivateKeys() && d.IsRange() {
			pub := d.Public()
			if _, err := pub.Expand(tc.begin, cache); err != nil {
				t.Errorf("%s: public expansion from the filled cache: %v", tc.desc, err)
			}
		}
	}
}

// TestForEachScriptErrors checks the argument errors and that an error of
// fn stops the walk.
func TestForEachScriptErrors(t *testing.T) {
	d, err := Parse("wpkh("+benchXPub+"/0/*)", &chaincfg.MainNetParams)
	if err != nil {
		t.Fatal(err)
	}
	noop := func(uint32, [][]byte) error { return nil }
	if err := d.ForEachScript(5, 4, nil, noop); err == nil {
		t.Error("end before begin accepted")
	}
	if err := d.ForEachScript(0, hardenedFlag, nil, noop); err == nil {
		t.Error("index 2^31 accepted")
	}
	stop := errors.New("stop")
	calls := 0
	err = d.ForEachScript(0, 1000, nil, func(uint32, [][]byte) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("got %v after %d calls", err, calls)
	}
	h, err := Parse("wpkh("+benchXPub+"/0h/*)", &chaincfg.MainNetParams)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ForEachScript(0, 3, nil, noop); !errors.Is(err, ErrHardenedFromPublic) {
		t.Errorf("hardened step from a public key: %v", err)
	}
}

// BenchmarkForEachScript100k walks the scripts of 100 000 indexes of
// wpkh(xpub/0/*) on one core, beside BenchmarkExpandRange100k.
func BenchmarkForEachScript100k(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d, err := Parse("wpkh("+benchXPub+"/0/*)", &chaincfg.MainNetParams)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.ForEachScript(0, 99999, nil, func(uint32, [][]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
