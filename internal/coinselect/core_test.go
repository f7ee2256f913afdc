package coinselect

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"
)

// Scenarios of Core's src/wallet/test/coinselection_tests.cpp, with its
// default parameters: P2WPKH change, 5 sat/vB, long-term 10 sat/vB,
// discard 3 sat/vB.

const (
	cent            = 1000000
	p2wpkhInVsize   = 68
	p2wpkhOutVsize  = 31
	coreTestFeeRate = FeeRate(5000)
)

var lockTime uint32

func coreParams(rate FeeRate) *Params {
	p := &Params{
		Options:          DefaultOptions(),
		FeeRate:          rate,
		LongTermFeeRate:  10000,
		DiscardFeeRate:   3000,
		ChangeOutputSize: p2wpkhOutVsize,
		ChangeSpendSize:  p2wpkhInVsize,
		MinChangeTarget:  50000,
		TxNoInputsSize:   11 + p2wpkhOutVsize,
	}
	p.ChangeFee = p.FeeRate.Fee(p.ChangeOutputSize)
	p.MinViableChange = p.DiscardFeeRate.Fee(p.ChangeSpendSize)
	p.CostOfChange = p.MinViableChange + p.ChangeFee
	p.Rand = seedRand(1)
	return p
}

// makeGroup is Core's MakeCoin: one coin whose effective value (or value)
// is amount, spent with vsize vbytes.
func makeGroup(amount int64, isEff bool, p *Params, vsize int) *group {
	fee := p.FeeRate.Fee(vsize)
	v := amount
	if isEff {
		v += fee
	}
	lockTime++
	c := &Coin{Value: v, InputWeight: vsize * 4, Depth: 1, Safe: true}
	c.OutPoint = wire.OutPoint{Index: lockTime}
	c.OutPoint.Hash[0], c.OutPoint.Hash[1], c.OutPoint.Hash[2] = byte(lockTime), byte(lockTime>>8), byte(lockTime>>16)
	g := newGroup(p)
	x := newCoin(c, p)
	g.insert(&x)
	return g
}

func addCoins(pool []*group, p *Params, amounts ...int64) []*group {
	for _, a := range amounts {
		pool = append(pool, makeGroup(a, true, p, p2wpkhInVsize))
	}
	return pool
}

func values(s *selection) []int64 {
	var v []int64
	for _, x := range s.coins {
		v = append(v, x.c.Value)
	}
	slices.Sort(v)
	return v
}

func expectBnB(t *testing.T, name string, pool []*group, target int64, want []int64, p *Params, vsize, maxWeight int) {
	t.Helper()
	var exp []int64
	for _, a := range want {
		exp = append(exp, a+p.FeeRate.Fee(vsize))
	}
	slices.Sort(exp)
	s, err := selectBnB(pool, target, coreParams(coreTestFeeRate).CostOfChange, maxWeight)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if got := values(s); !slices.Equal(got, exp) {
		t.Errorf("%s: selected %v, want %v", name, got, exp)
	}
}

func expectBnBFail(t *testing.T, name string, pool []*group, target int64, maxWeight int, weightErr bool) {
	t.Helper()
	s, err := selectBnB(pool, target, coreParams(coreTestFeeRate).CostOfChange, maxWeight)
	if err == nil {
		t.Errorf("%s: selected %v, want failure", name, values(s))
		return
	}
	if got := errors.Is(err, MaxWeightExceeded); got != weightErr {
		t.Errorf("%s: %v, weight error expected %v", name, err, weightErr)
	}
}

func TestCoreBnB(t *testing.T) {
	t.Parallel()
	costOfChange := coreParams(coreTestFeeRate).CostOfChange
	for _, rate := range []FeeRate{0, 1, 5000, 10000, 25000, 59764, 500000, 999000, 1500000} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			p := coreParams(rate)
			var pool []*group
			expectBnBFail(t, "empty pool", pool, cent, MaxStandardTxWeight, false)
			pool = addCoins(pool, p, 1*cent, 3*cent, 5*cent)
			ok := func(name string, target int64, want ...int64) {
				expectBnB(t, name, pool, target, want, p, p2wpkhInVsize, MaxStandardTxWeight)
			}
			ok("smallest", 1*cent, 1*cent)
			ok("middle", 3*cent, 3*cent)
			ok("biggest", 5*cent, 5*cent)
			ok("two", 4*cent, 1*cent, 3*cent)
			ok("all", 9*cent, 1*cent, 3*cent, 5*cent)
			ok("upper bound", 4*cent-costOfChange, 1*cent, 3*cent)
			expectBnBFail(t, "overshoot upper bound", pool, 4*cent-costOfChange-1, MaxStandardTxWeight, false)
			expectBnB(t, "max weight", pool, 4*cent, []int64{1 * cent, 3 * cent}, p, p2wpkhInVsize, 4*2*p2wpkhInVsize)
			expectBnBFail(t, "exceed max weight", pool, 4*cent, 4*2*p2wpkhInVsize-1, true)
			expectBnBFail(t, "smallest too big", pool, cent/2, MaxStandardTxWeight, false)
			expectBnBFail(t, "no combination in window", pool, 7*cent, MaxStandardTxWeight, false)
			expectBnBFail(t, "more than available", pool, 10*cent, MaxStandardTxWeight, false)

			clones := addCoins(nil, p, 2*cent, 7*cent, 7*cent)
			for range 50000 {
				clones = append(clones, makeGroup(5*cent, true, p, p2wpkhInVsize))
			}
			expectBnB(t, "skip equivalent sets", clones, 16*cent, []int64{2 * cent, 7 * cent, 7 * cent}, p, p2wpkhInVsize, MaxStandardTxWeight)

			// Every combination of eight of seventeen is visited; with
			// eighteen the try limit is reached first.
			var dopp []*group
			var want []int64
			for i := range int64(17) {
				if i < 8 {
					dopp = addCoins(dopp, p, cent+i)
					want = append(want, cent+i)
				} else {
					dopp = addCoins(dopp, p, cent+costOfChange+i)
				}
			}
			expectBnB(t, "smallest 8 of 17", dopp, 8*cent, want, p, p2wpkhInVsize, MaxStandardTxWeight)
			dopp = addCoins(dopp, p, cent+costOfChange+17)
			expectBnBFail(t, "try limit with 18", dopp, 8*cent, MaxStandardTxWeight, false)
		})
	}
}

func TestCoreBnBFeeRateSensitivity(t *testing.T) {
	low := coreParams(coreTestFeeRate)
	lowPool := addCoins(nil, low, 2*cent, 3*cent, 5*cent, 10*cent)
	expectBnB(t, "many inputs at low rates", lowPool, 10*cent, []int64{2 * cent, 3 * cent, 5 * cent}, low, p2wpkhInVsize, MaxStandardTxWeight)

	high := coreParams(25000)
	highPool := addCoins(nil, high, 2*cent, 3*cent, 5*cent, 10*cent)
	expectBnB(t, "one input at high rates", highPool, 10*cent, []int64{10 * cent}, high, p2wpkhInVsize, MaxStandardTxWeight)

	lowPool = append(lowPool, makeGroup(6*cent, true, low, 500), makeGroup(7*cent, true, low, 500))
	expectBnB(t, "two heavy inputs at low rates", lowPool, 13*cent, []int64{6 * cent, 7 * cent}, low, 500, MaxStandardTxWeight)

	highPool = append(highPool, makeGroup(6*cent, true, high, 500), makeGroup(7*cent, true, high, 500))
	expectBnB(t, "two light inputs at high rates", highPool, 13*cent, []int64{3 * cent, 10 * cent}, high, p2wpkhInVsize, MaxStandardTxWeight)
}

func TestKindMessages(t *testing.T) {
	kinds := []Kind{InsufficientFunds, PresetInsufficient, MaxWeightExceeded, PresetMaxWeight,
		WeightBelowNoInputs, WeightNoChange, LongChain, BumpFeeCluster, MaxTxWeightRange,
		AmountTooSmall, ZeroTarget, NotSolvable, TooSmallToPayFee, TooSmallAfterFee, TxTooLarge,
		MaxFeeExceeded, Internal}
	if len(kindMessages) != len(kinds) {
		t.Errorf("%d messages for %d kinds", len(kindMessages), len(kinds))
	}
	for i, k := range kinds {
		if kindMessages[k] == "" {
			t.Errorf("kind %v has no message", k)
		}
		err := error(newError(k))
		if !errors.Is(err, k) {
			t.Errorf("errors.Is(%v, %v) false", err, k)
		}
		if next := kinds[(i+1)%len(kinds)]; errors.Is(err, next) {
			t.Errorf("kind %v matches %v", k, next)
		}
	}
	if got := newError(MaxTxWeightRange, 260, 400000).Error(); got != "Maximum transaction weight must be between 260 and 400000" {
		t.Errorf("got %q", got)
	}
}
