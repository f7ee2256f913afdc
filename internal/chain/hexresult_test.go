package chain

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
)

// TestHexResults checks that hex and hash results read straight from the
// reply bytes decode exactly as through encoding/json, escapes included,
// and that malformed ones are refused either way.
func TestHexResults(t *testing.T) {
	t.Parallel()
	hexTests := []struct {
		raw  string
		want []byte // nil: an error
	}{
		{`"00ff7a"`, []byte{0x00, 0xff, 0x7a}},
		{`"00FF7A"`, []byte{0x00, 0xff, 0x7a}},
		{`""`, []byte{}},
		{`"\u0030\u0031"`, []byte{0x01}},
		{`"0"`, nil},
		{`"0g"`, nil},
		{`"00 "`, nil},
		{`12`, nil},
		{`null`, []byte{}}, // as encoding/json reads null into a string
		{`"00`, nil},
		{`"0\"0"`, nil},
	}
	for _, tc := range hexTests {
		got, err := decodeHexResult(json.RawMessage(tc.raw), 16)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: accepted as %x", tc.raw, got)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %x, %v; want %x", tc.raw, got, err, tc.want)
		}
	}
	if _, err := decodeHexResult(json.RawMessage(`"`+strings.Repeat("00", 17)+`"`), 16); err == nil {
		t.Error("hex over the bound accepted")
	}

	const hashHex = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
	want, _ := chainhash.NewHashFromStr(hashHex)
	escaped := `"\u0030` + hashHex[1:] + `"`
	for _, raw := range []string{`"` + hashHex + `"`, `"` + strings.ToUpper(hashHex) + `"`, escaped} {
		got, err := hashResult(json.RawMessage(raw))
		if err != nil || got != *want {
			t.Errorf("%s: %s, %v; want %s", raw, got, err, want)
		}
	}
	for _, raw := range []string{`"` + hashHex[2:] + `"`, `"` + hashHex[:63] + `z"`, `null`, `"` + hashHex + `00"`} {
		if got, err := hashResult(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: accepted as %s", raw, got)
		}
	}
}
