package psbt

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestPreimageFields decodes each of the four hash preimage fields of an
// input: the preimage lands in its own map under the hash, and a key of the
// wrong size or a hash given twice is refused with Core's message.
func TestPreimageFields(t *testing.T) {
	tx := "0100000001" + strings.Repeat("00", 36) + "00ffffffff0000000000"
	unsigned := "01" + "00" + fmt.Sprintf("%02x", len(tx)/2) + tx
	preimage := "c0ffee"
	pair := func(typ byte, hash string) string {
		return fmt.Sprintf("%02x%02x", len(hash)/2+1, typ) + hash + fmt.Sprintf("%02x", len(preimage)/2) + preimage
	}
	packet := func(pairs ...string) []byte {
		b, err := hex.DecodeString("70736274ff" + unsigned + "00" + strings.Join(pairs, "") + "00")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name string
		typ  byte
		size int
		got  func(in *Input, hash []byte) ([]byte, int)
	}{
		{"ripemd160", InRIPEMD160, 20, func(in *Input, h []byte) ([]byte, int) {
			return in.RIPEMD160Preimages[[20]byte(h)], len(in.RIPEMD160Preimages)
		}},
		{"sha256", InSHA256, 32, func(in *Input, h []byte) ([]byte, int) {
			return in.SHA256Preimages[[32]byte(h)], len(in.SHA256Preimages)
		}},
		{"hash160", InHASH160, 20, func(in *Input, h []byte) ([]byte, int) {
			return in.HASH160Preimages[[20]byte(h)], len(in.HASH160Preimages)
		}},
		{"hash256", InHASH256, 32, func(in *Input, h []byte) ([]byte, int) {
			return in.HASH256Preimages[[32]byte(h)], len(in.HASH256Preimages)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h1 := strings.Repeat("11", c.size)
			h2 := strings.Repeat("22", c.size)
			p, err := Decode(packet(pair(c.typ, h1), pair(c.typ, h2)))
			if err != nil {
				t.Fatal(err)
			}
			in := &p.Inputs[0]
			hb, _ := hex.DecodeString(h1)
			v, n := c.got(in, hb)
			if n != 2 || hex.EncodeToString(v) != preimage {
				t.Fatalf("%d preimages, %x under the first hash", n, v)
			}
			total := len(in.RIPEMD160Preimages) + len(in.SHA256Preimages) + len(in.HASH160Preimages) + len(in.HASH256Preimages)
			if total != 2 {
				t.Fatalf("%d preimages in all the maps, want 2 in the %s one", total, c.name)
			}
			if raw := packet(pair(c.typ, h1), pair(c.typ, h2)); !bytes.Equal(p.Serialize(), raw) {
				t.Fatalf("round trip: %x, want %x", p.Serialize(), raw)
			}

			for _, bad := range []string{h1[2:], h1 + "33"} {
				_, err = Decode(packet(pair(c.typ, bad)))
				want := "Size of key was not the expected size for the type " + c.name + " preimage: iostream error"
				if err == nil || err.Error() != want {
					t.Fatalf("hash of %d bytes: got %v, want %q", len(bad)/2, err, want)
				}
			}
			_, err = Decode(packet(pair(c.typ, h1), pair(c.typ, h1)))
			want := "Duplicate Key, input " + c.name + " preimage already provided: iostream error"
			if err == nil || err.Error() != want {
				t.Fatalf("duplicate: got %v, want %q", err, want)
			}
		})
	}
}
