package descriptor

import (
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// BIP 32 test vector 1, chain m.
const (
	bip32V1Xpub = "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
	bip32V1Xprv = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
	// Its chain m/0H.
	bip32V1Xpub0H = "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw"
)

// TestHDKeys: the extended keys of a descriptor's key expressions as Core's
// gethdkeys takes them (the key as written, origins and paths aside, once
// each, musig() participants left out), with whether the descriptor holds
// each private key, its xprv, and the xpub parser and xprv builder of
// createwalletdescriptor.
func TestHDKeys(t *testing.T) {
	net := &chaincfg.MainNetParams
	d, err := Parse("wsh(multi(1,[00000000/1h]"+bip32V1Xprv+"/0/*,"+bip32V1Xpub0H+"/1/*,"+bip32V1Xpub+"/2/*))", net)
	if err != nil {
		t.Fatal(err)
	}
	keys := d.HDKeys()
	if len(keys) != 2 {
		t.Fatalf("%d keys: %+v", len(keys), keys)
	}
	if CompareHDKeys(&keys[0], &keys[1]) >= 0 {
		t.Error("not in order")
	}
	byXpub := map[string]HDKey{}
	for _, k := range keys {
		byXpub[k.Xpub] = k
	}
	m, ok := byXpub[bip32V1Xpub]
	if !ok || !m.HasPrivate {
		t.Fatalf("master: %+v", keys)
	}
	c, ok := byXpub[bip32V1Xpub0H]
	if !ok || c.HasPrivate {
		t.Fatalf("child: %+v", keys)
	}
	if x, ok := d.HDXprv(&m); !ok || x != bip32V1Xprv {
		t.Errorf("xprv %q %v", x, ok)
	}
	if _, ok := d.HDXprv(&c); ok {
		t.Error("xprv of a key the descriptor lacks")
	}
	pk, ok := d.PrivateKey(m.ID)
	if !ok {
		t.Fatal("no private key")
	}
	if x, ok := ExtendXprv(bip32V1Xpub, &pk, net); !ok || x != bip32V1Xprv {
		t.Errorf("ExtendXprv %q %v", x, ok)
	}
	if _, ok := ExtendXprv(bip32V1Xpub0H, &pk, net); ok {
		t.Error("ExtendXprv with another key's private key")
	}
	if h, ok := ParseXpub(bip32V1Xpub, net); !ok || h.ID != m.ID || h.Xpub != bip32V1Xpub {
		t.Errorf("ParseXpub: %+v %v", h, ok)
	}
	for _, bad := range []string{bip32V1Xprv, "xpub", "", bip32V1Xpub + "1"} {
		if _, ok := ParseXpub(bad, net); ok {
			t.Errorf("ParseXpub(%q) accepted", bad)
		}
	}
	if _, ok := ParseXpub(bip32V1Xpub, &chaincfg.RegressionNetParams); ok {
		t.Error("mainnet xpub accepted on regtest")
	}

	// Lone keys and musig() participants have no HD key to show.
	for _, s := range []string{
		"wpkh(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)",
		"tr(musig(" + bip32V1Xpub + "," + bip32V1Xpub0H + ")/0/*)",
		"addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)",
	} {
		d, err := Parse(s, net)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if k := d.HDKeys(); len(k) != 0 {
			t.Errorf("%s: %+v", s, k)
		}
	}
}
