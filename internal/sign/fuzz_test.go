package sign

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
)

// FuzzDecodeTx checks that the transaction decoder never panics, fails only
// with ErrTxDecode, and that what it accepts serializes back to bytes it
// decodes to the same transaction. Seeds are Core's valid transactions.
func FuzzDecodeTx(f *testing.F) {
	var rows [][]json.RawMessage
	testvec.Load(f, "tx_valid.json", &rows)
	for _, r := range rows {
		var s string
		if len(r) >= 2 && json.Unmarshal(r[1], &s) == nil {
			f.Add(s)
		}
	}
	f.Add("")
	f.Add("02000000000000000000")
	f.Add("0200000000010000000000")
	f.Fuzz(func(t *testing.T, s string) {
		tx, err := DecodeTx(s)
		if err != nil {
			if !errors.Is(err, ErrTxDecode) || err.Error() != txDecodeFailed {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := tx.Serialize(&b); err != nil {
			t.Fatal(err)
		}
		again, err := DecodeTx(hex.EncodeToString(b.Bytes()))
		if err != nil {
			t.Fatalf("re-decode of %x: %v", b.Bytes(), err)
		}
		var b2 bytes.Buffer
		_ = again.Serialize(&b2)
		if !bytes.Equal(b.Bytes(), b2.Bytes()) {
			t.Fatalf("round trip changed %x into %x", b.Bytes(), b2.Bytes())
		}
	})
}
