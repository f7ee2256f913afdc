package sign

import (
	"encoding/base64"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

// TestMessageSignVerify signs with Core's recorded key and checks Core's
// signature, then the verifier's reading of the header byte (no range
// check, as Core), the compressed flag, and base64 strictness.
func TestMessageSignVerify(t *testing.T) {
	k, err := DecodeWIF("cN8du1jViMj9cPwEsAUyKAGQPEHMBKDhK4XtkftP9BzwhyM6GotS", &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Hzgriauc2xg746r5mF81mCNCPDgZcY9ao1Gve9QRKRLMWhkhmqMbu4pSpkewFPaCOHnfY74CpzYfG7JgSihu1PY="
	sig, err := SignMessage(k, "hello")
	if err != nil || sig != want {
		t.Fatalf("signature %q %v, want Core's %q", sig, err, want)
	}
	id := k.id[:]
	if got := VerifyMessage(id, sig, "hello"); got != MessageOK {
		t.Fatalf("own signature: %v", got)
	}
	if got := VerifyMessage(id, sig, "hello!"); got != MessageNotSigned {
		t.Fatalf("other message: %v", got)
	}
	raw, _ := base64.StdEncoding.DecodeString(sig)
	withHeader := func(h byte) string {
		b := append([]byte(nil), raw...)
		b[0] = h
		return base64.StdEncoding.EncodeToString(b)
	}
	// raw[0] is 31 or 32 (compressed, recovery id 0 or 1). Adding 8 keeps
	// (h-27)&7, so Core reads the same; removing 4 drops the compressed
	// flag and recovers the uncompressed form, another address.
	if got := VerifyMessage(id, withHeader(raw[0]+8), "hello"); got != MessageOK {
		t.Fatalf("header %d: %v", raw[0]+8, got)
	}
	if got := VerifyMessage(id, withHeader(raw[0]-8), "hello"); got != MessageOK {
		t.Fatalf("header %d: %v", raw[0]-8, got)
	}
	if got := VerifyMessage(id, withHeader(raw[0]-4), "hello"); got != MessageNotSigned {
		t.Fatalf("uncompressed header: %v", got)
	}
	for _, s := range []string{"abc", "ab=c", "a===", "not base64!!", sig[:4] + "\n" + sig[5:]} {
		if got := VerifyMessage(id, s, "hello"); got != MessageMalformed {
			t.Errorf("%q: %v, want malformed", s, got)
		}
	}
	for _, s := range []string{"", "AAAA", base64.StdEncoding.EncodeToString(make([]byte, 65))} {
		if got := VerifyMessage(id, s, "hello"); got != MessageNotRecovered {
			t.Errorf("%q: %v, want not recovered", s, got)
		}
	}
	k.Zero()
	if !k.priv.Key.IsZero() {
		t.Fatal("Zero left the scalar")
	}
}

// FuzzVerifyMessage checks that VerifyMessage never panics on any
// signature text and that a malformed verdict means Core's base64 rules
// refuse the text.
func FuzzVerifyMessage(f *testing.F) {
	f.Add("Hzgriauc2xg746r5mF81mCNCPDgZcY9ao1Gve9QRKRLMWhkhmqMbu4pSpkewFPaCOHnfY74CpzYfG7JgSihu1PY=", "hello")
	f.Add("", "")
	f.Add("ab==", "x")
	f.Fuzz(func(t *testing.T, sig, msg string) {
		got := VerifyMessage(make([]byte, 20), sig, msg)
		if _, ok := decodeBase64(sig); ok == (got == MessageMalformed) {
			t.Fatalf("%q: verdict %v, base64 ok %v", sig, got, ok)
		}
	})
}
