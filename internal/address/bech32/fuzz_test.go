package bech32

import (
	"errors"
	"strings"
	"testing"
)

// FuzzDecode checks that Decode never panics, returns a result or an error
// but not both, that decoded strings re-encode to their lower-case form, and
// that errors carry Core's messages with positions inside the string.
func FuzzDecode(f *testing.F) {
	v := loadVectors(f)
	for _, sec := range []section{v.Core, v.BIP173, v.BIP350} {
		for _, c := range sec.ValidBech32.Cases {
			f.Add(c.String)
		}
		for _, c := range sec.ValidBech32m.Cases {
			f.Add(c.String)
		}
		for _, c := range sec.InvalidBech32.Cases {
			f.Add(c.raw(f))
		}
		for _, c := range sec.InvalidBech32m.Cases {
			f.Add(c.raw(f))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, hrp, data, err := Decode(s)
		if err != nil {
			var e *Error
			if enc != Invalid || data != nil || !errors.As(err, &e) {
				t.Fatalf("error %v with result", err)
			}
			if e.Description == "" {
				t.Fatal("empty message")
			}
			for _, l := range e.Locations {
				if l < 0 || l >= len(s) {
					t.Fatalf("location %d outside %q", l, s)
				}
			}
			return
		}
		if enc == Invalid {
			t.Fatal("no error and no encoding")
		}
		if got := Encode(enc, hrp, data); got != strings.ToLower(s) {
			t.Fatalf("re-encoded %q as %q", s, got)
		}
	})
}
