package coinselect

import (
	"fmt"
	"testing"

	"github.com/descwallet/descwallet/internal/benchcpu"
)

// benchWallet is the benchmark wallet: n confirmed coins of
// 0.001 BTC, made as 500-output transactions to 500 P2WPKH addresses (so
// each address holds n/500 coins).
func benchWallet(n int) []Coin {
	coins := make([]Coin, n)
	for i := range coins {
		c := Coin{Value: 100000, Type: Bech32, InputWeight: inputWeights[0], Depth: 6 + i/500, Safe: true}
		c.PkScript = append([]byte(nil), wpkhScript...)
		c.PkScript[2], c.PkScript[3] = byte(i%500), byte(i%500>>8)
		c.OutPoint.Hash[0], c.OutPoint.Hash[1] = byte(i/500), byte(i/500>>8)
		c.OutPoint.Index = uint32(i % 500)
		coins[i] = c
	}
	return coins
}

// randomWallet has coins of assorted values and types.
func randomWallet(n int) []Coin {
	r := seedRand(99)
	coins := make([]Coin, n)
	for i := range coins {
		coins[i] = randCoin(r, i)
		coins[i].Depth, coins[i].Safe = 6+r.IntN(100), true
		coins[i].OutPoint.Hash[2] = byte(i >> 16)
	}
	return coins
}

func benchFund(b *testing.B, coins []Coin, amount int64, rate FeeRate, aps bool) {
	req := payRequest(amount, coins...)
	req.Recipients[0].PkScript = wpkhScript
	req.FeeRate = rate
	req.AvoidPartialSpends = aps
	req.Rand = seedRand(1)
	b.ReportAllocs()
	b.ResetTimer()
	var f *Funding
	var err error
	start := benchcpu.Used()
	for range b.N {
		if f, err = Fund(req); err != nil {
			b.Fatal(err)
		}
	}
	benchcpu.Report(b, start)
	b.ReportMetric(float64(len(f.Coins)), "inputs")
}

// BenchmarkFund pays 0.0005 BTC at 10 sat/vB from the wallets of
// 10 000 and 100 000 equal coins, and from wallets of assorted coins (also
// at 50 sat/vB, where CoinGrinder runs, and with avoid_partial_spends;
// equal-aps is the funding calls' second attempt, grouping by address).
func BenchmarkFund(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		equal, assorted := benchWallet(n), randomWallet(n)
		b.Run(fmt.Sprintf("equal/%d", n), func(b *testing.B) { benchFund(b, equal, 50000, 10000, false) })
		b.Run(fmt.Sprintf("equal-aps/%d", n), func(b *testing.B) { benchFund(b, equal, 50000, 10000, true) })
		b.Run(fmt.Sprintf("assorted/%d", n), func(b *testing.B) { benchFund(b, assorted, 50000, 10000, false) })
		b.Run(fmt.Sprintf("assorted-50satvb/%d", n), func(b *testing.B) { benchFund(b, assorted, 50000, 50000, false) })
		b.Run(fmt.Sprintf("assorted-aps/%d", n), func(b *testing.B) { benchFund(b, assorted, 50000, 10000, true) })
	}
}
