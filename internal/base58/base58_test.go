package base58

import (
	"bytes"
	"crypto/sha256"
	"testing"

	btcbase58 "github.com/btcsuite/btcd/address/v2/base58"
)

// refDecodeCheck is btcd's base58.Decode followed by the checksum check
// and the length bound: what DecodeCheckSecret must accept.
func refDecodeCheck(s string, maxLen int) ([]byte, bool) {
	b := btcbase58.Decode(s)
	if len(b) < 4 || len(b) > maxLen+4 {
		return nil, false
	}
	p := b[:len(b)-4]
	if Checksum(p) != [4]byte(b[len(b)-4:]) {
		return nil, false
	}
	return p, true
}

func TestCharOf(t *testing.T) {
	for d := range uint32(len(Alphabet)) {
		if c := charOf(d); c != Alphabet[d] {
			t.Errorf("charOf(%d) = %q, want %q", d, c, Alphabet[d])
		}
		if got, ok := digitOf(uint32(Alphabet[d])); got != d || ok != 1 {
			t.Errorf("digitOf(%q) = %d, %d", Alphabet[d], got, ok)
		}
	}
	for c := range uint32(256) {
		if _, ok := digitOf(c); (ok == 1) != bytes.ContainsRune([]byte(Alphabet), rune(c)) {
			t.Errorf("digitOf(%d) validity %d", c, ok)
		}
	}
}

// TestSecretRoundTrip encodes payloads of every length up to 82 bytes
// (WIF is 33 or 34, an extended key 78), with leading zero bytes and
// without, and checks both encoders against btcd's and the decoder
// against the payload and the length bound.
func TestSecretRoundTrip(t *testing.T) {
	for n := 0; n <= 82; n++ {
		for v := range 4 {
			h := sha256.Sum256([]byte{byte(n), byte(v)})
			p := bytes.Repeat(h[:], 3)[:n]
			switch v {
			case 1:
				if n > 0 {
					p[0] = 0
				}
			case 2:
				for i := 0; i < n && i < 3; i++ {
					p[i] = 0
				}
			case 3:
				for i := range p {
					p[i] = 0xff
				}
			}
			sum := Checksum(p)
			want := btcbase58.Encode(append(append([]byte{}, p...), sum[:]...))
			if got := EncodeCheckSecret(p); got != want {
				t.Fatalf("EncodeCheckSecret(%x) = %s, want %s", p, got, want)
			}
			if got := EncodeCheck(p); got != want {
				t.Fatalf("EncodeCheck(%x) = %s, want %s", p, got, want)
			}
			got, ok := DecodeCheckSecret(want, n)
			if !ok || !bytes.Equal(got, p) {
				t.Fatalf("DecodeCheckSecret(%s, %d) = %x, %v; want %x", want, n, got, ok, p)
			}
			if n > 0 {
				if _, ok := DecodeCheckSecret(want, n-1); ok {
					t.Fatalf("DecodeCheckSecret(%s, %d) accepted %d bytes", want, n-1, n)
				}
			}
			// One character changed: the checksum fails (or the
			// character is invalid), as for btcd.
			bad := []byte(want)
			bad[len(bad)/2] ^= 1
			_, ok1 := DecodeCheckSecret(string(bad), n)
			_, ok2 := refDecodeCheck(string(bad), n)
			if ok1 != ok2 {
				t.Fatalf("%s: secret decoder %v, btcd %v", bad, ok1, ok2)
			}
		}
	}
	for _, s := range []string{"", " ", "1", "1111", "0", "I", "O", "l", "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ ", "\x00"} {
		_, ok := DecodeCheckSecret(s, 34)
		if _, want := refDecodeCheck(s, 34); ok != want {
			t.Errorf("DecodeCheckSecret(%q) = %v, want %v", s, ok, want)
		}
	}
}

// FuzzDecodeCheckSecret compares the secret decoder with btcd's decoder
// and the checksum check on any string and bound.
func FuzzDecodeCheckSecret(f *testing.F) {
	f.Add("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", uint8(34))
	f.Add("KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn", uint8(34))
	f.Add("xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi", uint8(78))
	f.Add("1111111111", uint8(10))
	f.Add("", uint8(0))
	f.Fuzz(func(t *testing.T, s string, maxLen uint8) {
		got, ok := DecodeCheckSecret(s, int(maxLen))
		want, wok := refDecodeCheck(s, int(maxLen))
		if ok != wok || !bytes.Equal(got, want) {
			t.Fatalf("DecodeCheckSecret(%q, %d) = %x, %v; btcd %x, %v", s, maxLen, got, ok, want, wok)
		}
	})
}

// FuzzEncodeCheckSecret compares the secret encoder with btcd's.
func FuzzEncodeCheckSecret(f *testing.F) {
	f.Add([]byte{0x80, 1, 2, 3})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) > 200 {
			p = p[:200]
		}
		sum := Checksum(p)
		want := btcbase58.Encode(append(append([]byte{}, p...), sum[:]...))
		if got := EncodeCheckSecret(p); got != want {
			t.Fatalf("EncodeCheckSecret(%x) = %s, want %s", p, got, want)
		}
	})
}
