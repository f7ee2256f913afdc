package methods

import (
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
)

// TestCreateMultisigErrors covers the key and threshold errors the corpus
// does not reach.
func TestCreateMultisigErrors(t *testing.T) {
	s := statelessServer(t)
	const k1 = "035171329e85212f00ce440916d435792c9fc822a0b4e7ed96b20d1cf4cc16a7cb"
	for _, c := range []struct{ params, code, msg string }{
		{`[3,["` + k1 + `","` + k1 + `"]]`, "-8", "not enough keys supplied (got 2 keys, but need at least 3 to redeem)"},
		{`[0,["` + k1 + `"]]`, "-8", "a multisignature address must require at least one key to redeem"},
		{`[1,["xyz"]]`, "-5", `Pubkey "xyz" must be a hex string`},
		{`[1,[""]]`, "-5", `Pubkey "" must be a hex string`},
		{`[1,["0351"]]`, "-5", `Pubkey "0351" must have a length of either 33 or 65 bytes`},
		{`[1,["04` + k1[2:] + k1[2:] + `"]]`, "-5", `Pubkey "04` + k1[2:] + k1[2:] + `" must be cryptographically valid.`},
		{`[1,[1]]`, "-3", "JSON value of type number is not of expected type string"},
		{`[1.5,["` + k1 + `"]]`, "-1", "JSON integer out of range"},
	} {
		body := rawCall(t, s, "createmultisig", json.RawMessage(c.params))
		var r struct {
			Error *struct {
				Code    json.Number
				Message string
			}
		}
		_ = json.Unmarshal(body, &r)
		if r.Error == nil || string(r.Error.Code) != c.code || r.Error.Message != c.msg {
			t.Errorf("%s: got %s, want %s %q", c.params, body, c.code, c.msg)
		}
	}
}

// TestFullyValidPubKey checks the hybrid form: accepted with the header
// matching y's parity, refused otherwise.
func TestFullyValidPubKey(t *testing.T) {
	priv, _ := btcec.NewPrivateKey()
	u := priv.PubKey().SerializeUncompressed()
	odd := u[64]&1 == 1
	h := append([]byte(nil), u...)
	h[0] = 0x06
	if odd {
		h[0] = 0x07
	}
	if !fullyValidPubKey(h) {
		t.Fatalf("hybrid key %x refused", h)
	}
	h[0] ^= 1
	if fullyValidPubKey(h) {
		t.Fatalf("hybrid key with the wrong parity %x accepted", h)
	}
	if !fullyValidPubKey(priv.PubKey().SerializeCompressed()) || !fullyValidPubKey(u) {
		t.Fatal("plain keys refused")
	}
	c := priv.PubKey().SerializeCompressed()
	if fullyValidPubKey(append([]byte{0x04}, c[1:]...)) || fullyValidPubKey(append(c, 0)) {
		t.Fatal("header and length mismatch accepted")
	}
}
