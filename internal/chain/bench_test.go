package chain

import (
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/gcs"
	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chainhash/v2"
)

// BenchmarkMatchWatch matches a 1 000-script watch list against a filter of
// a regtest block (two elements), the scanner's common case.
func BenchmarkMatchWatch(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	var hash chainhash.Hash
	key := builder.DeriveKey(&hash)
	members := [][]byte{randScript(rng), randScript(rng)}
	ref, _ := gcs.BuildGCSFilter(builder.DefaultP, builder.DefaultM, key, members)
	raw, _ := ref.NBytes()
	var scripts [][]byte
	for i := 0; i < 1000; i++ {
		s := make([]byte, 22)
		for j := range s {
			s[j] = byte(rng.Uint32())
		}
		scripts = append(scripts, s)
	}
	w := NewWatch(scripts)
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, _ := DecodeFilter(raw, hash)
			f.MatchWatch(w)
		}
	})
	b.Run("gcs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, _ := gcs.FromNBytes(builder.DefaultP, builder.DefaultM, raw)
			f.MatchAny(key, scripts)
		}
	})
}
