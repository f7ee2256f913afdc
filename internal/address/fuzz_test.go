package address

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks that Decode never panics, returns a script or an
// *Error with a message but not both, and that a decoded address re-encodes
// to an address that decodes to the same script.
func FuzzDecode(f *testing.F) {
	v := loadVectors(f)
	for _, c := range v.Valid {
		f.Add(c.Address, uint8(0))
		f.Add(c.Address, uint8(4))
	}
	for _, c := range v.Invalid {
		f.Add(c.String, uint8(0))
	}
	f.Add(" 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 ", uint8(0))
	f.Add("bcrt1pfeesnyr2tx", uint8(4))
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		net := networks[networkNames[int(n)%len(networkNames)]]
		spk, err := Decode(s, net)
		if err != nil {
			var e *Error
			if spk != nil || !errors.As(err, &e) || e.Error() == "" {
				t.Fatalf("%q: bad failure %x, %v", s, spk, err)
			}
			for _, l := range e.Locations {
				if l < 0 || l >= len(s) {
					t.Fatalf("%q: location %d", s, l)
				}
			}
			return
		}
		addr, ok := Encode(spk, net)
		if !ok {
			t.Fatalf("%q decoded to %x, which has no address", s, spk)
		}
		back, err := Decode(addr, net)
		if err != nil || !bytes.Equal(back, spk) {
			t.Fatalf("%q -> %x -> %q -> %x, %v", s, spk, addr, back, err)
		}
		if _, ok := Describe(spk); !ok {
			t.Fatalf("%x has no description", spk)
		}
	})
}
