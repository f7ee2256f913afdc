package sign

import (
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/address/v2/base58"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestPubKeyOf compares pubKeyOf with the library's PrivateKey.PubKey,
// for 1, n-1 and hashed keys.
func TestPubKeyOf(t *testing.T) {
	var ds []secp256k1.ModNScalar
	var one, nm1 secp256k1.ModNScalar
	one.SetInt(1)
	nm1.SetInt(1).Negate()
	ds = append(ds, one, nm1)
	for i := range 200 {
		h := sha256.Sum256([]byte{byte(i), 'p'})
		var d secp256k1.ModNScalar
		d.SetBytes(&h)
		ds = append(ds, d)
	}
	for i, d := range ds {
		got := pubKeyOf(&d)
		want := secp256k1.NewPrivateKey(&d).PubKey()
		if !got.IsEqual(want) || string(got.SerializeUncompressed()) != string(want.SerializeUncompressed()) {
			t.Fatalf("key %d: public key differs", i)
		}
	}
}

// TestNonceRFC6979At compares nonceRFC6979At with the library's RFC 6979
// for keys, hashes, extra data and iterations, and checks it allocates
// nothing.
func TestNonceRFC6979At(t *testing.T) {
	for i := range 100 {
		d := sha256.Sum256([]byte{byte(i), 'd'})
		h := sha256.Sum256([]byte{byte(i), 'h'})
		var extra []byte
		if i%2 == 1 {
			e := sha256.Sum256([]byte{byte(i), 'e'})
			extra = e[:]
		}
		for it := range uint32(3) {
			got := nonceRFC6979At(d[:], h[:], extra, it)
			want := secp256k1.NonceRFC6979(d[:], h[:], extra, nil, it)
			if !got.Equals(want) {
				t.Fatalf("case %d iteration %d: nonce differs", i, it)
			}
		}
	}
	d := sha256.Sum256([]byte("d"))
	h := sha256.Sum256([]byte("h"))
	if n := testing.AllocsPerRun(20, func() { nonceRFC6979At(d[:], h[:], d[:], 1) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// TestPubKeysOf compares the batched pubKeysOf with the library's
// PrivateKey.PubKey, for batches of 1 to 20 keys, and DecodeWIFs (which
// uses it on several goroutines) with DecodeWIF key by key.
func TestPubKeysOf(t *testing.T) {
	for n := 1; n <= 20; n++ {
		ds := make([]*secp256k1.ModNScalar, n)
		for i := range ds {
			h := sha256.Sum256([]byte{byte(n), byte(i), 'q'})
			ds[i] = new(secp256k1.ModNScalar)
			ds[i].SetBytes(&h)
		}
		for i, got := range pubKeysOf(ds) {
			want := secp256k1.NewPrivateKey(ds[i]).PubKey()
			if !got.IsEqual(want) {
				t.Fatalf("batch %d key %d: public key differs", n, i)
			}
		}
	}
	var wifs []string
	for i := range 100 {
		h := sha256.Sum256([]byte{byte(i), 'w'})
		payload := h[:]
		if i%3 != 0 {
			payload = append(payload, 1)
		}
		wifs = append(wifs, base58.CheckEncode(payload, chaincfg.RegressionNetParams.PrivateKeyID))
	}
	keys, err := DecodeWIFs(wifs, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range wifs {
		want, err := DecodeWIF(w, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		if string(keys[i].PubKey()) != string(want.PubKey()) || keys[i].id != want.id {
			t.Fatalf("key %d: DecodeWIFs differs from DecodeWIF", i)
		}
	}
}
