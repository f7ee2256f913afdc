package scan

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/testenv"
)

// benchBlocks is the length of the benchmark chain.
const benchBlocks = 5000

// BenchmarkRescan measures a rescan of a 5 000-block regtest chain, about
// 10 % of whose coinbases pay a 1 000-script wallet, with filters and with
// full blocks, against the raw speed of fetching the same data from the
// backend: hashes and filters plus the blocks the filter scan fetched, and
// hashes plus every block. It reports blocks per second of each and the
// ratio of scan time to raw fetch time.
func BenchmarkRescan(b *testing.B) {
	if testing.Short() {
		b.Skip("starts a btcd and mines 5000 blocks")
	}
	wallet := testenv.NewKey("bench wallet")
	args := []string{}
	for i := 0; i < 9; i++ {
		args = append(args, "--miningaddr="+testenv.NewKey(fmt.Sprint("bench stranger ", i)).WPKH.Address)
	}
	node := testenv.StartBtcd(b, &testenv.BtcdOptions{
		MiningAddr: wallet.WPKH.Address, Args: args})
	for n := 0; n < benchBlocks; n += 500 {
		node.Generate(500)
	}
	backend, err := chain.New(chain.Config{Kind: chain.KindBtcd,
		Net: &chaincfg.RegressionNetParams, Host: node.RPCAddr,
		User: node.User, Password: node.Pass})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tip, err := backend.Tip(ctx)
	if err != nil {
		b.Fatal(err)
	}
	scripts := append(decoys(999), wallet.WPKH.Script)
	heights := make([]int32, tip.Height+1)
	for i := range heights {
		heights[i] = int32(i)
	}
	blocks := float64(len(heights))

	var fetchedHashes []chainhash.Hash
	scan := func(noFilters bool) (time.Duration, Result) {
		w := &testWallet{scripts: scripts}
		s := New(Config{Backend: backend, Source: w, Sink: w,
			NoFilters: noFilters})
		t0 := time.Now()
		res, err := s.Rescan(ctx, 0, -1)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(t0), res
	}
	rawFilters := func() time.Duration {
		t0 := time.Now()
		hashes, err := backend.BlockHashes(ctx, heights)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := backend.Filters(ctx, hashes); err != nil {
			b.Fatal(err)
		}
		if _, err := backend.Blocks(ctx, fetchedHashes); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	rawBlocks := func() time.Duration {
		t0 := time.Now()
		hashes, err := backend.BlockHashes(ctx, heights)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := backend.Blocks(ctx, hashes); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}

	// The blocks a filter scan fetches: those whose filter matches.
	{
		hashes, err := backend.BlockHashes(ctx, heights)
		if err != nil {
			b.Fatal(err)
		}
		filters, err := backend.Filters(ctx, hashes)
		if err != nil {
			b.Fatal(err)
		}
		for i, f := range filters {
			if ok, _ := f.MatchAny(scripts); ok {
				fetchedHashes = append(fetchedHashes, hashes[i])
			}
		}
	}

	b.ReportAllocs()
	b.ResetTimer()
	var tF, tB, rF, rB time.Duration
	var resF, resB Result
	for i := 0; i < b.N; i++ {
		d, r := scan(false)
		tF, resF = tF+d, r
		d, r = scan(true)
		tB, resB = tB+d, r
		rF += rawFilters()
		rB += rawBlocks()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(blocks*n/tF.Seconds(), "filterscan-blocks/s")
	b.ReportMetric(blocks*n/tB.Seconds(), "fullscan-blocks/s")
	b.ReportMetric(blocks*n/rF.Seconds(), "rawfilters-blocks/s")
	b.ReportMetric(blocks*n/rB.Seconds(), "rawblocks-blocks/s")
	b.ReportMetric(tF.Seconds()/rF.Seconds(), "filterscan/raw")
	b.ReportMetric(tB.Seconds()/rB.Seconds(), "fullscan/raw")
	b.ReportMetric(tF.Seconds()/n, "filterscan-s")
	b.ReportMetric(tB.Seconds()/n, "fullscan-s")
	b.Logf("%d blocks; filter scan fetched %d and found %d transactions; full scan found %d",
		len(heights), resF.Fetched, resF.Found, resB.Found)
	if resF.Found != resB.Found || resF.Fetched != len(fetchedHashes) {
		b.Fatalf("scans disagree: %+v %+v (%d matching filters)", resF,
			resB, len(fetchedHashes))
	}
}
