package address

import (
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
)

func BenchmarkDecode(b *testing.B) {
	for name, addr := range map[string]string{
		"p2pkh":  "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
		"p2wpkh": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		"p2tr":   "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(addr, &chaincfg.MainNetParams); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	spk, err := Decode("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", &chaincfg.MainNetParams)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Encode(spk, &chaincfg.MainNetParams)
	}
}
