package descriptor

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestMasterXprv compares MasterXprv with hdkeychain's NewMaster on seeds
// of the allowed lengths and on two networks, checks the bounds, and that
// the xprv parses back with its public key.
func TestMasterXprv(t *testing.T) {
	for _, net := range []*chaincfg.Params{&chaincfg.MainNetParams, &chaincfg.RegressionNetParams} {
		for _, n := range []int{16, 32, 33, 64} {
			for v := range 5 {
				h := sha256.Sum256([]byte{byte(n), byte(v)})
				seed := bytes.Repeat(h[:], 2)[:n]
				got, ok := MasterXprv(seed, net)
				m, err := hdkeychain.NewMaster(seed, net)
				if err != nil || !ok {
					t.Fatalf("seed %x: ok %v, hdkeychain %v", seed, ok, err)
				}
				if want := m.String(); got != want {
					t.Fatalf("seed %x: %s, want %s", seed, got, want)
				}
				k, ok := decodeExtKey(got, net)
				if !ok || k.priv == nil {
					t.Fatalf("%s does not parse back", got)
				}
				wantPub, _ := m.ECPubKey()
				if !bytes.Equal(k.pub[:], wantPub.SerializeCompressed()) {
					t.Fatalf("%s: public key %x", got, k.pub)
				}
			}
		}
	}
	for _, n := range []int{0, 15, 65} {
		if _, ok := MasterXprv(make([]byte, n), &chaincfg.MainNetParams); ok {
			t.Errorf("seed of %d bytes accepted", n)
		}
	}
	// BIP 32 test vector 1.
	seed := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	const want = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
	if got, _ := MasterXprv(seed, &chaincfg.MainNetParams); got != want {
		t.Errorf("BIP 32 vector 1: %s, want %s", got, want)
	}
}
