package bech32

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
)

type validCase struct {
	String   string `json:"string"`
	Encoding string `json:"encoding"`
}

type invalidCase struct {
	String         string `json:"string"`
	BytesHex       string `json:"bytes_hex"`
	Error          string `json:"error"`
	ErrorLocations []int  `json:"error_locations"`
	Reason         string `json:"reason"`
}

// raw returns the exact byte string of a case.
func (c invalidCase) raw(tb testing.TB) string {
	if c.BytesHex == "" {
		return c.String
	}
	b, err := hex.DecodeString(c.BytesHex)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

type group struct {
	Cases []validCase `json:"cases"`
}

type invalidGroup struct {
	Cases []invalidCase `json:"cases"`
}

type section struct {
	ValidBech32    group        `json:"valid_bech32"`
	ValidBech32m   group        `json:"valid_bech32m"`
	InvalidBech32  invalidGroup `json:"invalid_bech32"`
	InvalidBech32m invalidGroup `json:"invalid_bech32m"`
}

type vectors struct {
	Core   section `json:"core_bech32_tests"`
	BIP173 section `json:"bip173"`
	BIP350 section `json:"bip350"`
}

func loadVectors(tb testing.TB) vectors {
	var v vectors
	testvec.Load(tb, "bech32.json", &v)
	return v
}

// TestVectors decodes every valid string with its stated encoding and
// re-encodes it, and checks every invalid string fails; Core's cases also
// fix the exact message and error locations.
func TestVectors(t *testing.T) {
	t.Parallel()
	v := loadVectors(t)
	n := 0
	for _, sec := range []section{v.Core, v.BIP173, v.BIP350} {
		for _, tc := range append(slices.Clone(sec.ValidBech32.Cases), sec.ValidBech32m.Cases...) {
			n++
			enc, hrp, data, err := Decode(tc.String)
			if err != nil {
				t.Errorf("%q: %v", tc.String, err)
				continue
			}
			if enc.String() != tc.Encoding {
				t.Errorf("%q: encoding %s, want %s", tc.String, enc, tc.Encoding)
			}
			if got := Encode(enc, hrp, data); got != strings.ToLower(tc.String) {
				t.Errorf("%q: re-encoded as %q", tc.String, got)
			}
			if msg, locs := LocateErrors(tc.String); msg != "" || len(locs) != 0 {
				t.Errorf("%q: LocateErrors on a valid string gave %q %v", tc.String, msg, locs)
			}
		}
		for _, tc := range append(slices.Clone(sec.InvalidBech32.Cases), sec.InvalidBech32m.Cases...) {
			n++
			s := tc.raw(t)
			_, _, _, err := Decode(s)
			if err == nil {
				t.Errorf("%q decoded (%s)", s, tc.Reason)
				continue
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, e.Kind) {
				t.Fatalf("%q: error %T is not an *Error of its kind", s, err)
			}
			if tc.Error == "" {
				continue
			}
			if e.Error() != tc.Error {
				t.Errorf("%q: message %q, want %q", s, e.Error(), tc.Error)
			}
			if !slices.Equal(e.Locations, tc.ErrorLocations) {
				t.Errorf("%q: locations %v, want %v", s, e.Locations, tc.ErrorLocations)
			}
		}
	}
	t.Logf("%d cases", n)
}

// TestLocateSubstitutions corrupts valid strings at one or two data
// positions and checks the positions are found and attributed to the right
// encoding.
func TestLocateSubstitutions(t *testing.T) {
	t.Parallel()
	prog := bytes.Repeat([]byte{0xa5, 0x3c, 0x91}, 11)
	data, _ := ConvertBits(prog, 8, 5, true)
	data = append([]byte{1}, data...)
	for _, enc := range []Encoding{Bech32, Bech32m} {
		good := Encode(enc, "bc", data)
		sep := strings.LastIndexByte(good, '1')
		want := "Invalid Bech32 checksum"
		if enc == Bech32m {
			want = "Invalid Bech32m checksum"
		}
		flip := func(s []byte, i int) {
			v := charsetRev[s[i]]
			s[i] = charset[(int(v)+7)%32]
		}
		for i := sep + 1; i < len(good); i += 5 {
			for j := i; j < len(good); j += 13 {
				s := []byte(good)
				flip(s, i)
				locs := []int{i}
				if j != i {
					flip(s, j)
					locs = []int{i, j}
				}
				_, _, _, err := Decode(string(s))
				var e *Error
				if !errors.As(err, &e) || e.Kind != ErrChecksum {
					t.Fatalf("%s: error %v", s, err)
				}
				if e.Description != want || !slices.Equal(e.Locations, locs) {
					t.Errorf("%s: %q %v, want %q %v", s, e.Description, e.Locations, want, locs)
				}
			}
		}
	}
}

func TestConvertBits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		from, to uint
		pad      bool
		out      string
		ok       bool
	}{
		{"ff", 8, 5, true, "1f1c", true},
		{"1f1c", 5, 8, false, "ff", true},
		{"1f1d", 5, 8, false, "", false},   // non-zero padding
		{"1f1c00", 5, 8, false, "", false}, // five padding bits
		{"", 8, 5, true, "", true},
		{"751e76e8199196d454941c45d1b3a323f1433bd6", 8, 5, true,
			"0e140f070d1a001912060b0d081504140311021d030c1d03040f1814060e1e16", true},
	}
	for _, tc := range tests {
		in, _ := hex.DecodeString(tc.in)
		out, ok := ConvertBits(in, tc.from, tc.to, tc.pad)
		if ok != tc.ok || ok && hex.EncodeToString(out) != tc.out {
			t.Errorf("ConvertBits(%s, %d, %d, %v) = %x, %v; want %s, %v",
				tc.in, tc.from, tc.to, tc.pad, out, ok, tc.out, tc.ok)
		}
	}
}
