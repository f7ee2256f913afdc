package coinselect

import (
	"errors"
	"slices"
	"testing"
)

// More of Core's coinselector_tests.cpp: BnB with preset inputs, with fees
// from the outputs and over the weight limit, and SelectCoins on random
// wallets.

func TestCoreBnBPresetDisadvantageous(t *testing.T) {
	p := &Params{Options: DefaultOptions(), FeeRate: 5000, LongTermFeeRate: 3000, DiscardFeeRate: 1000,
		ChangeOutputSize: 31, ChangeSpendSize: 68}
	p.ChangeFee = p.FeeRate.Fee(31)
	p.CostOfChange = p.FeeRate.Fee(68) + p.ChangeFee
	p.MinViableChange = p.FeeRate.Fee(68)
	p.Rand = seedRand(1)
	inputFee := p.FeeRate.Fee(68)
	a, b, c := wpkhCoin(1, 10*cent+inputFee, 144, false), wpkhCoin(2, 9*cent+inputFee, 144, false), wpkhCoin(3, cent+inputFee, 144, false)
	s, err := SelectCoins([]Coin{a, c}, []Coin{b}, 10*cent, true, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, x := range s.Coins {
		got = append(got, x.Value)
	}
	slices.Sort(got)
	if want := []int64{cent + inputFee, 9*cent + inputFee}; !slices.Equal(got, want) {
		t.Fatalf("selected %v, want %v", got, want)
	}
}

func TestCoreBnBMaxWeightSFFO(t *testing.T) {
	p := &Params{SubtractFeeOutputs: true, FeeRate: 5000}
	pool := func(coins [][2]int64) []*group {
		var out []*group
		for _, c := range coins {
			lockTime++
			cc := &Coin{Value: c[0], InputWeight: int(c[1]) * 4, Depth: 144, Safe: true}
			cc.OutPoint.Index = lockTime
			g := newGroup(p)
			x := newCoin(cc, p)
			g.insert(&x)
			out = append(out, g)
		}
		return out
	}
	coins := [][2]int64{{10 * cent, 68}, {9 * cent, 68}, {8 * cent, 68}, {5 * cent, MaxStandardTxWeight}, {3 * cent, 68}, {cent, 68}}
	_, err := selectBnB(pool(coins), 16*cent, 0, MaxStandardTxWeight)
	if !errors.Is(err, MaxWeightExceeded) {
		t.Fatalf("got %v", err)
	}
	s, err := selectBnB(pool(append(coins, [2]int64{5 * cent, 68})), 16*cent, 0, MaxStandardTxWeight)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(s); !slices.Equal(got, []int64{3 * cent, 5 * cent, 8 * cent}) {
		t.Fatalf("selected %v", got)
	}
}

// TestCoreBnBSFFORestriction: no changeless BnB result when the fee comes
// from the outputs, even where it would be the least waste.
func TestCoreBnBSFFORestriction(t *testing.T) {
	for seed := range uint64(20) {
		p := &Params{Options: DefaultOptions(), FeeRate: 3000, LongTermFeeRate: 1000, DiscardFeeRate: 1000,
			ChangeOutputSize: 31, ChangeSpendSize: 68, SubtractFeeOutputs: true}
		p.ChangeFee = p.FeeRate.Fee(31)
		p.CostOfChange = p.DiscardFeeRate.Fee(68) + p.ChangeFee
		p.MinChangeTarget = p.CostOfChange + 1
		p.Rand = seedRand(seed)
		coins := []Coin{
			wpkhCoin(1, btc+p.CostOfChange, 6, true),
			wpkhCoin(2, btc/2+p.CostOfChange, 6, true),
			wpkhCoin(3, btc/2, 6, true),
		}
		s, err := SelectCoins(coins, nil, btc, true, p)
		if err != nil {
			t.Fatal(err)
		}
		if (s.Algorithm != SRD && s.Algorithm != Knapsack) || len(s.Coins) != 2 {
			t.Fatalf("seed %d: %v with %d inputs", seed, s.Algorithm, len(s.Coins))
		}
	}
}

// TestCoreSelectCoinsRandomWallets: with no fees, any target up to the
// balance of 1000 exponentially distributed coins is paid.
func TestCoreSelectCoinsRandomWallets(t *testing.T) {
	t.Parallel()
	r := seedRand(31)
	for run := range 30 {
		var coins []Coin
		var balance int64
		for j := range 1000 {
			v := int64(r.ExpFloat64() / 100 * 10000000)
			c := wpkhCoin(j, v, 144, false)
			c.OutPoint.Hash[2] = byte(run)
			coins = append(coins, c)
			balance += v
		}
		p := &Params{Options: DefaultOptions(), ChangeOutputSize: 34, ChangeSpendSize: 148, MinChangeTarget: cent,
			CostOfChange: 1, MinViableChange: 1}
		p.Rand = r
		target := r.Int64N(balance-1000) + 1000
		s, err := SelectCoins(coins, nil, target, true, p)
		if err != nil {
			t.Fatalf("run %d: %v paying %d of %d", run, err, target, balance)
		}
		if s.Value < target {
			t.Fatalf("run %d: selected %d for %d", run, s.Value, target)
		}
	}
}
