package sign

import (
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestProviderZero: Zero clears every key's scalar and its BIP 340 forms.
func TestProviderZero(t *testing.T) {
	var b [32]byte
	b[31] = 7
	k := NewKey(secp256k1.PrivKeyFromBytes(b[:]), true)
	p := NewProvider(k)
	plain, tweaked := k.schnorrKeys()
	if plain.d.IsZero() || tweaked.d.IsZero() {
		t.Fatal("BIP 340 forms are zero before Zero")
	}
	p.Zero()
	if !k.priv.Key.IsZero() || !plain.d.IsZero() || !tweaked.d.IsZero() {
		t.Fatal("a secret survives Provider.Zero")
	}
}
