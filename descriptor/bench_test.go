package descriptor

import (
	"runtime"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
)

// benchXPub is BIP 32 test vector 1's m/0H/1/2H/2 xpub.
const benchXPub = "xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV"

// BenchmarkExpandWPKH expands wpkh(xpub/0/*) at one new index per
// iteration: the per-index cost of deriving a receive script.
func BenchmarkExpandWPKH(b *testing.B) { benchmarkExpand(b, "wpkh("+benchXPub+"/0/*)") }

// benchmarkExpand expands the ranged descriptor desc at one new index per
// iteration, after a first expansion outside the timer.
func benchmarkExpand(b *testing.B, desc string) {
	d, err := Parse(desc, &chaincfg.MainNetParams)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.Expand(0, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Expand(uint32(i%(1<<31)), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawDeriveHash160 is the baseline: btcd's hdkeychain deriving
// the same child from the already derived parent, then HASH160 of its key
// (what a P2WPKH script commits to).
func BenchmarkRawDeriveHash160(b *testing.B) {
	k, err := hdkeychain.NewKeyFromString(benchXPub)
	if err != nil {
		b.Fatal(err)
	}
	parent, err := k.Derive(0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := parent.Derive(uint32(i % (1 << 31)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Address(&chaincfg.MainNetParams); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExpandRange100k expands 100 000 indexes of wpkh(xpub/0/*) on one
// and on two cores; the ratio of the two is the parallel speed-up.
func BenchmarkExpandRange100k(b *testing.B) {
	for _, procs := range []int{1, 2} {
		b.Run("procs="+string(rune('0'+procs)), func(b *testing.B) {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d, err := Parse("wpkh("+benchXPub+"/0/*)", &chaincfg.MainNetParams)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.ExpandRange(0, 99999, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExpandWPKHOrigin is BenchmarkExpandWPKH with a key origin, the
// form wallets import: [fingerprint/84h/0h/0h]xpub/0/*.
func BenchmarkExpandWPKHOrigin(b *testing.B) {
	benchmarkExpand(b, "wpkh([d34db33f/84h/0h/0h]"+benchXPub+"/0/*)")
}
