package sign

import (
	"bytes"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/address/v2/base58"
	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestDecodeWIFs decodes enough keys to take the parallel path: each key
// equals DecodeWIF's, in order, and a bad key anywhere fails the call.
func TestDecodeWIFs(t *testing.T) {
	net := &chaincfg.RegressionNetParams
	var wifs []string
	for i := range 3 * parallelThreshold {
		k := benchKey(byte(i))
		d := privBytes(k)
		payload := append(append([]byte(nil), d...), 1)
		if i%3 == 0 {
			payload = payload[:32] // uncompressed
		}
		wifs = append(wifs, base58.CheckEncode(payload, net.PrivateKeyID))
	}
	keys, err := DecodeWIFs(wifs, net)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range wifs {
		want, err := DecodeWIF(s, net)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(keys[i].PubKey(), want.PubKey()) || keys[i].Compressed() != want.Compressed() {
			t.Fatalf("key %d differs", i)
		}
	}
	bad := append([]string(nil), wifs...)
	bad[2*parallelThreshold] = "not a key"
	if _, err := DecodeWIFs(bad, net); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("bad key: %v", err)
	}
}
