package sign

import (
	"crypto/sha256"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestInvertField compares invertField with the library's inversion, at
// the edges of the field and for hashed values.
func TestInvertField(t *testing.T) {
	var vals []secp256k1.FieldVal
	for _, v := range []uint16{1, 2, 7} {
		var f secp256k1.FieldVal
		f.SetInt(v)
		vals = append(vals, f)
	}
	var pm1 secp256k1.FieldVal
	pm1.SetInt(1).Negate(1).Normalize() // p - 1
	vals = append(vals, pm1)
	for i := range 200 {
		h := sha256.Sum256([]byte{byte(i), 'f'})
		var f secp256k1.FieldVal
		f.SetBytes(&h)
		vals = append(vals, f)
	}
	for i, f := range vals {
		got, ok := invertField(&f)
		want := f
		want.Normalize()
		want.Inverse().Normalize()
		if !ok || !got.Normalize().Equals(&want) {
			t.Fatalf("value %d: inverse differs", i)
		}
	}
	var zero secp256k1.FieldVal
	if _, ok := invertField(&zero); ok {
		t.Fatal("zero inverted")
	}
}

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
