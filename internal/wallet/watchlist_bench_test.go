package wallet

import (
	"context"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
)

// BenchmarkWatchListScripts1M derives the watch list of a watch-only
// wpkh range of 1 000 000 indexes, as WatchList does the first time:
// deriveScripts into a scriptCache, then the list handed to the follower.
// Run with -benchtime 1x.
func BenchmarkWatchListScripts1M(b *testing.B) {
	benchWatchListScripts(b, 1_000_000)
}

func benchWatchListScripts(b *testing.B, n int64) {
	priv, err := descriptor.Parse("wpkh("+watchTPrv+"/0/*)", &chaincfg.RegressionNetParams)
	if err != nil {
		b.Fatal(err)
	}
	d := priv.Public()
	b.ReportAllocs()
	for b.Loop() {
		chunks, err := deriveScripts(context.Background(), d, descriptor.NewCache(), 0, n)
		if err != nil {
			b.Fatal(err)
		}
		sc := &scriptCache{d: d, start: 0, end: n, chunks: chunks}
		list := sc.appendTo(make([][]byte, 0, sc.count()))
		if int64(len(list)) != n {
			b.Fatalf("%d scripts", len(list))
		}
	}
}

func BenchmarkWatchListScripts100k(b *testing.B) {
	benchWatchListScripts(b, 100_000)
}
