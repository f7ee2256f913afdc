package sign

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	btcecdsa "github.com/btcsuite/btcd/btcec/v2/ecdsa"
)

// TestSignECDSAExhaustive checks the signing shortcut (s computed only for
// a low R) against Core's loop written out in full, over hashes that need
// no retry, one retry and several, and that every signature verifies and
// has a low R.
func TestSignECDSAExhaustive(t *testing.T) {
	k := benchKey(7)
	pub, err := btcec.ParsePubKey(k.PubKey())
	if err != nil {
		t.Fatal(err)
	}
	retries := map[bool]int{}
	for i := range 64 {
		h := sha256.Sum256([]byte{byte(i), 'h'})
		got, ok := SignECDSA(k.priv, k.pub, h[:])
		if !ok {
			t.Fatalf("hash %d: signature refused", i)
		}
		want := signExhaustive(&k.priv.Key, privBytes(k), h[:], nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("hash %d: shortcut %x, exhaustive %x", i, got, want)
		}
		if len(got) > 70 {
			t.Fatalf("hash %d: %d-byte signature, R not low", i, len(got))
		}
		sig, err := btcecdsa.ParseDERSignature(got)
		if err != nil || !sig.Verify(h[:], pub) {
			t.Fatalf("hash %d: signature does not verify", i)
		}
		k0, r0 := nonceRFC6979(privBytes(k), h[:], nil, nil)
		k0.Zero()
		retries[!lowR(&r0)] = retries[!lowR(&r0)] + 1
	}
	if retries[true] == 0 || retries[false] == 0 {
		t.Fatalf("grinding not exercised both ways: %v", retries)
	}
}

func privBytes(k *Key) []byte {
	var d [32]byte
	k.priv.Key.PutBytes(&d)
	return d[:]
}
