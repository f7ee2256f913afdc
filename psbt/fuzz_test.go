package psbt

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to both readers: they must return a
// packet or an error, never panic, and a packet must re-encode to bytes
// that decode to the same serialization (Core's form is a fixed point).
func FuzzDecode(f *testing.F) {
	v := loadRPCPSBTF(f)
	for _, s := range append(append([]string{}, v.Valid...), v.Invalid...) {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err == nil {
			f.Add(raw)
		}
	}
	for _, c := range v.InvalidWithMsg {
		raw, _ := base64.StdEncoding.DecodeString(c[0])
		f.Add(raw)
	}
	var b bip370
	loadJSON(f, "bip370/vectors.json", &b)
	for _, c := range b.Valid {
		raw, _ := hex.DecodeString(c.Hex)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, dec := range []func([]byte) (*Packet, error){Decode, DecodeAny} {
			p, err := dec(raw)
			if err != nil {
				continue
			}
			out := p.Serialize()
			q, err := dec(out)
			if err != nil {
				t.Fatalf("re-encoded packet does not decode: %v", err)
			}
			if !bytes.Equal(q.Serialize(), out) {
				t.Fatal("Core's form is not a fixed point")
			}
			if p.UnsignedTx != nil {
				if v2, err := p.ToV2(); err == nil {
					if _, err := DecodeAny(v2.Serialize()); err != nil {
						t.Fatalf("version 2 form does not decode: %v", err)
					}
				}
			}
		}
	})
}
