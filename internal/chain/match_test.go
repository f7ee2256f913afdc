package chain

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/aead/siphash"
	"github.com/btcsuite/btcd/btcutil/v2/gcs"
	"github.com/btcsuite/btcd/btcutil/v2/gcs/builder"
	"github.com/btcsuite/btcd/chainhash/v2"
)

// TestSipHash checks the prepared-key SipHash-2-4 against a reference
// implementation for every length from 0 to 64 bytes.
func TestSipHash(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 64; n++ {
		for r := 0; r < 20; r++ {
			var key [16]byte
			binary.LittleEndian.PutUint64(key[:8], rng.Uint64())
			binary.LittleEndian.PutUint64(key[8:], rng.Uint64())
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			k := newSipKey(binary.LittleEndian.Uint64(key[:8]),
				binary.LittleEndian.Uint64(key[8:]))
			if got, want := k.sum64(p), siphash.Sum64(p, &key); got != want {
				t.Fatalf("len %d: %x, want %x", n, got, want)
			}
		}
	}
}

// TestSipLanes checks the many-lane SipHash against the scalar one for
// every script length from 0 to 64 bytes and group sizes that leave lanes
// to fill.
func TestSipLanes(t *testing.T) {
	t.Parallel()
	if !haveSipLanes {
		t.Log("no many-lane SipHash on this processor; the scalar path is tested alone")
		return
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n <= 64; n++ {
		count := 1 + rng.IntN(3*lanes)
		var scripts [][]byte
		for i := 0; i < count; i++ {
			s := make([]byte, n)
			for j := range s {
				s[j] = byte(rng.Uint32())
			}
			scripts = append(scripts, s)
		}
		k := newSipKey(rng.Uint64(), rng.Uint64())
		groups := makeLaneGroups(scripts)
		if want := (count + lanes - 1) / lanes; len(groups) != want {
			t.Fatalf("len %d: %d groups, want %d", n, len(groups), want)
		}
		var out [lanes]uint64
		for g, q := range groups {
			sipLanes(&k, &q.words[0], q.n, &out)
			for j, h := range out {
				s := scripts[min(g*lanes+j, count-1)]
				if want := k.sum64(s); h != want {
					t.Fatalf("len %d, script %d: %x, want %x", n,
						g*lanes+j, h, want)
				}
			}
		}
	}
}

// randScript returns a script of 1 to 40 random bytes, most of them
// of the sizes wallets use.
func randScript(rng *rand.Rand) []byte {
	sizes := []int{22, 34, 25, 23, 1 + rng.IntN(40)}
	s := make([]byte, sizes[rng.IntN(len(sizes))])
	for i := range s {
		s[i] = byte(rng.Uint32())
	}
	return s
}

// TestMatchDifferential builds random filters with btcutil's gcs and checks
// that the decoded filter answers Match, MatchAny and MatchWatch exactly as
// gcs does, for scripts in the filter, scripts not in it and mixes of both,
// over sets of every size class.
func TestMatchDifferential(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{1, 2, 3, 5, smallSet, smallSet + 1, 40, 300, 3000}
	for round := 0; round < 60; round++ {
		var hash chainhash.Hash
		for i := range hash {
			hash[i] = byte(rng.Uint32())
		}
		key := builder.DeriveKey(&hash)
		n := sizes[round%len(sizes)]
		var members [][]byte
		for i := 0; i < n; i++ {
			members = append(members, randScript(rng))
		}
		ref, err := gcs.BuildGCSFilter(builder.DefaultP, builder.DefaultM,
			key, members)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := ref.NBytes()
		if err != nil {
			t.Fatal(err)
		}
		f, err := DecodeFilter(raw, hash)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if f.N() != ref.N() {
			t.Fatalf("round %d: N %d, want %d", round, f.N(), ref.N())
		}
		var queries [][]byte
		for i := 0; i < 200; i++ {
			queries = append(queries, randScript(rng))
		}
		queries = append(queries, members...)
		for _, q := range queries {
			want, err := ref.Match(key, q)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := f.Match(q); got != want {
				t.Fatalf("round %d: Match(%x) = %v, want %v", round,
					q, got, want)
			}
		}
		for i := 0; i < 30; i++ {
			var list [][]byte
			for j := rng.IntN(50); j > 0; j-- {
				list = append(list, randScript(rng))
			}
			if rng.IntN(2) == 0 {
				list = append(list, members[rng.IntN(len(members))])
				rng.Shuffle(len(list), func(a, b int) {
					list[a], list[b] = list[b], list[a]
				})
			}
			want, err := ref.MatchAny(key, list)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := f.MatchAny(list)
			if got != want {
				t.Fatalf("round %d: MatchAny = %v, want %v", round,
					got, want)
			}
			w := NewWatch(list)
			if gotW := f.MatchWatch(w); gotW != want {
				t.Fatalf("round %d: MatchWatch = %v, want %v",
					round, gotW, want)
			}
			scalar := newWatch(list, false)
			if gotS := f.MatchWatch(scalar); gotS != want {
				t.Fatalf("round %d: scalar MatchWatch = %v, want %v",
					round, gotS, want)
			}
		}
	}
}

// TestMatchVectorsWatch checks MatchWatch on the BIP158 vectors: every
// filter matches a watch list holding one of its scripts among strangers.
func TestMatchVectorsWatch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, v := range loadFilterVectors(t) {
		f, err := DecodeFilter(v.Filter, v.Hash)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := DecodeBlock(v.Block, v.Hash)
		if err != nil {
			t.Fatal(err)
		}
		var strangers [][]byte
		for i := 0; i < 100; i++ {
			strangers = append(strangers, randScript(rng))
		}
		key := builder.DeriveKey(&v.Hash)
		ref, err := gcs.FromNBytes(builder.DefaultP, builder.DefaultM, v.Filter)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ref.MatchAny(key, strangers)
		if got := f.MatchWatch(NewWatch(strangers)); got != want {
			t.Errorf("%d: strangers match %v, want %v", v.Height, got, want)
		}
		for _, tx := range blk.Transactions {
			for _, out := range tx.TxOut {
				s := out.PkScript
				if len(s) == 0 || s[0] == 0x6a {
					continue
				}
				list := append(append([][]byte{}, strangers...), s)
				if !f.MatchWatch(NewWatch(list)) {
					t.Errorf("%d: watch misses %x", v.Height, s)
				}
			}
		}
	}
}

// FuzzMatch decodes arbitrary filters and checks every answer against
// btcutil's gcs: a filter that decodes is one gcs reads without error, and
// both agree on Match and MatchAny.
func FuzzMatch(f *testing.F) {
	for _, v := range loadFilterVectors(f) {
		f.Add(v.Filter, v.Hash[:], []byte{0x51}, []byte{0x00, 0x14})
	}
	f.Add([]byte{1, 0xff, 0xff, 0xe0}, make([]byte, 32), []byte{1}, []byte{2})
	f.Fuzz(func(t *testing.T, raw, hashBytes, s1, s2 []byte) {
		var hash chainhash.Hash
		copy(hash[:], hashBytes)
		flt, err := DecodeFilter(raw, hash)
		if err != nil {
			return
		}
		ref, err := gcs.FromNBytes(builder.DefaultP, builder.DefaultM, raw)
		if err != nil {
			t.Fatalf("gcs rejects a filter we decode: %v", err)
		}
		key := builder.DeriveKey(&hash)
		for _, s := range [][]byte{s1, s2} {
			if len(s) == 0 || ref.N() == 0 {
				continue
			}
			want, err := ref.Match(key, s)
			if err != nil {
				t.Fatalf("gcs fails on a filter we decode: %v", err)
			}
			if got, _ := flt.Match(s); got != want {
				t.Fatalf("Match(%x) = %v, want %v", s, got, want)
			}
		}
		if ref.N() == 0 {
			if flt.MatchWatch(NewWatch([][]byte{s1, s2})) {
				t.Fatal("an empty filter matches")
			}
			return
		}
		list := [][]byte{s1, s2}
		want, err := ref.MatchAny(key, list)
		if err != nil {
			t.Fatalf("gcs fails on a filter we decode: %v", err)
		}
		if got, _ := flt.MatchAny(list); got != want {
			t.Fatalf("MatchAny = %v, want %v", got, want)
		}
		if got := flt.MatchWatch(NewWatch(list)); got != want {
			t.Fatalf("MatchWatch = %v, want %v", got, want)
		}
	})
}
