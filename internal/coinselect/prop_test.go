package coinselect

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"
)

// Seeded random property tests over thousands of pools: exhaustive
// searches check Branch and Bound and CoinGrinder on small pools, and
// every funded result is checked for its fee, weight and amounts.

// Signed input weights of common script types (InputWeight of their
// descriptors' satisfactions).
var inputWeights = []int{
	InputWeight(107, 2, true),      // wpkh
	InputWeight(66, 1, true),       // tr key path
	InputWeight(4*107, 2, false),   // pkh
	InputWeight(4*23+107, 2, true), // sh(wpkh)
	InputWeight(254, 4, true),      // wsh(multi(2,...)) 2-of-3
}

func randPool(r *rand.Rand, n int, p *Params, spread int64) []*group {
	var pool []*group
	for range n {
		vsize := vsizeOf(inputWeights[r.IntN(len(inputWeights))])
		amount := 1 + r.Int64N(spread)
		if r.IntN(4) == 0 {
			amount = 1 + r.Int64N(spread/50+1) // some small coins
		}
		pool = append(pool, makeGroup(amount, true, p, vsize))
	}
	return pool
}

func randRate(r *rand.Rand) FeeRate {
	switch r.IntN(4) {
	case 0:
		return FeeRate(r.Int64N(5000))
	case 1:
		return FeeRate(1000 + r.Int64N(20000))
	default:
		return FeeRate(1000 + r.Int64N(200000))
	}
}

func positive(pool []*group) []*group {
	var out []*group
	for _, g := range pool {
		if g.amount() > 0 {
			out = append(out, g)
		}
	}
	return out
}

func checkUnique(t *testing.T, s *selection) {
	t.Helper()
	seen := map[wire.OutPoint]bool{}
	for _, x := range s.coins {
		if seen[x.c.OutPoint] {
			t.Fatalf("coin %v selected twice", x.c.OutPoint)
		}
		seen[x.c.OutPoint] = true
	}
}

// TestBnBFindsChangelessExhaustive: whenever some subset of a small pool
// lands in [target, target+cost_of_change] within the weight limit, Branch
// and Bound finds one, and one of least waste.
func TestBnBFindsChangelessExhaustive(t *testing.T) {
	t.Parallel()
	r := seedRand(13)
	found := 0
	for iter := range 4000 {
		p := coreParams(randRate(r))
		p.CostOfChange = r.Int64N(20000)
		pool := positive(randPool(r, 1+r.IntN(11), p, 200000))
		if len(pool) == 0 {
			continue
		}
		var total int64
		for _, g := range pool {
			total += g.amount()
		}
		target := 1 + r.Int64N(total)
		maxW := MaxStandardTxWeight
		if r.IntN(4) == 0 {
			maxW = 4 * (60 + r.IntN(600))
		}

		// Branch and Bound walks the pool by descending amount and never
		// adds to a selection that already reaches the target (more
		// inputs would only burn value), so the sets it can return are
		// those whose last input was needed; among those it must find
		// the least waste. Any set in the window has such a subset.
		sorted := append([]*group(nil), pool...)
		sortDescending(sorted)
		best, exists := int64(0), false
		for mask := 1; mask < 1<<len(sorted); mask++ {
			var sum, waste int64
			w, last := 0, 0
			for i, g := range sorted {
				if mask&(1<<i) != 0 {
					sum += g.amount()
					waste += g.fee - g.ltFee
					w += g.weight
					last = i
				}
			}
			if sum < target || sum > target+p.CostOfChange || w > maxW || sum-sorted[last].amount() >= target {
				continue
			}
			waste += sum - target
			if !exists || waste < best {
				best, exists = waste, true
			}
		}

		s, err := selectBnB(pool, target, p.CostOfChange, maxW)
		if !exists {
			if err == nil {
				t.Fatalf("iter %d: BnB found %v where no changeless set exists", iter, values(s))
			}
			continue
		}
		found++
		if err != nil {
			t.Fatalf("iter %d: BnB failed (%v) but a changeless set of waste %d exists", iter, err, best)
		}
		checkUnique(t, s)
		sum := s.selectedEffectiveValue()
		if sum < target || sum > target+p.CostOfChange || s.weight > maxW {
			t.Fatalf("iter %d: BnB selection %d outside [%d, %d] or weight %d > %d", iter, sum, target, target+p.CostOfChange, s.weight, maxW)
		}
		if s.waste != best {
			t.Fatalf("iter %d: BnB waste %d, least possible %d", iter, s.waste, best)
		}
	}
	if found < 500 {
		t.Fatalf("only %d pools had a changeless solution; the test is too weak", found)
	}
}

// TestCoinGrinderLightestExhaustive: CoinGrinder returns the lightest
// selection covering target plus change target (the smallest amount among
// equally light ones).
func TestCoinGrinderLightestExhaustive(t *testing.T) {
	t.Parallel()
	r := seedRand(17)
	for iter := range 3000 {
		p := coreParams(randRate(r))
		pool := positive(randPool(r, 1+r.IntN(11), p, 300000))
		if len(pool) == 0 {
			continue
		}
		var total int64
		for _, g := range pool {
			total += g.amount()
		}
		target := 1 + r.Int64N(total)
		change := r.Int64N(100000)
		maxW := MaxStandardTxWeight
		if r.IntN(4) == 0 {
			maxW = 4 * (60 + r.IntN(600))
		}
		bestW, bestAmt := -1, int64(0)
		for mask := 1; mask < 1<<len(pool); mask++ {
			var sum int64
			w := 0
			for i, g := range pool {
				if mask&(1<<i) != 0 {
					sum += g.amount()
					w += g.weight
				}
			}
			if sum < target+change || w > maxW {
				continue
			}
			if bestW < 0 || w < bestW || (w == bestW && sum < bestAmt) {
				bestW, bestAmt = w, sum
			}
		}
		s, err := selectCoinGrinder(pool, target, change, maxW)
		if bestW < 0 {
			if err == nil {
				t.Fatalf("iter %d: CoinGrinder found a selection where none exists", iter)
			}
			continue
		}
		if err != nil {
			t.Fatalf("iter %d: CoinGrinder failed (%v), weight %d possible", iter, err, bestW)
		}
		checkUnique(t, s)
		if s.weight != bestW || s.selectedEffectiveValue() != bestAmt {
			t.Fatalf("iter %d: CoinGrinder weight %d amount %d, best %d %d", iter, s.weight, s.selectedEffectiveValue(), bestW, bestAmt)
		}
	}
}

// TestSRDKnapsackValid: SRD and Knapsack results pay their targets within
// the weight limit, and they succeed whenever the pool is enough without a
// weight limit.
func TestSRDKnapsackValid(t *testing.T) {
	t.Parallel()
	r := seedRand(19)
	for iter := range 2000 {
		p := coreParams(randRate(r))
		all := randPool(r, 1+r.IntN(40), p, 500000)
		pool := positive(all)
		var total, mixedTotal int64
		for _, g := range pool {
			total += g.amount()
		}
		for _, g := range all {
			mixedTotal += g.amount()
		}
		target := 1 + r.Int64N(max(total, 1)+100000)
		maxW := MaxStandardTxWeight
		if r.IntN(3) == 0 {
			maxW = 4 * (100 + r.IntN(3000))
		}

		s, err := selectSRD(pool, target, p.ChangeFee, p.Rand, maxW)
		if err == nil {
			checkUnique(t, s)
			if s.selectedEffectiveValue() < target+ChangeLower+p.ChangeFee || s.weight > maxW {
				t.Fatalf("iter %d: SRD selected %d (target %d) weight %d > %d", iter, s.selectedEffectiveValue(), target, s.weight, maxW)
			}
		} else if maxW == MaxStandardTxWeight && total >= target+ChangeLower+p.ChangeFee {
			t.Fatalf("iter %d: SRD failed with %d available for %d: %v", iter, total, target, err)
		}

		s, err = selectKnapsack(all, target, p.MinChangeTarget, p.Rand, maxW)
		if err == nil {
			checkUnique(t, s)
			if s.selectedEffectiveValue() < target || s.weight > maxW {
				t.Fatalf("iter %d: Knapsack selected %d (target %d) weight %d > %d", iter, s.selectedEffectiveValue(), target, s.weight, maxW)
			}
		} else if maxW == MaxStandardTxWeight && mixedTotal >= target {
			t.Fatalf("iter %d: Knapsack failed with %d available for %d: %v", iter, mixedTotal, target, err)
		}
	}
}

var (
	wpkhScript = append([]byte{0x00, 0x14}, make([]byte, 20)...)
	trScript   = append([]byte{0x51, 0x20}, make([]byte, 32)...)
	pkhScript  = append(append([]byte{0x76, 0xa9, 0x14}, make([]byte, 20)...), 0x88, 0xac)
)

func randCoin(r *rand.Rand, i int) Coin {
	c := Coin{Value: 1000 + r.Int64N(3000000), Depth: r.IntN(10), FromMe: r.IntN(2) == 0, Safe: true}
	if r.IntN(5) == 0 {
		c.Value = 200 + r.Int64N(20000)
	}
	c.OutPoint.Hash[0], c.OutPoint.Hash[1] = byte(i), byte(i>>8)
	c.OutPoint.Index = uint32(r.IntN(3))
	switch r.IntN(3) {
	case 0:
		c.Type, c.PkScript, c.InputWeight = Bech32, wpkhScript, inputWeights[0]
	case 1:
		c.Type, c.PkScript, c.InputWeight = Bech32m, trScript, inputWeights[1]
	default:
		c.Type, c.PkScript, c.InputWeight = Legacy, pkhScript, inputWeights[2]
	}
	// A few addresses per type, so avoid-partial-spends has groups.
	c.PkScript = append([]byte(nil), c.PkScript...)
	c.PkScript[len(c.PkScript)-1-boolInt(c.Type == Legacy)*2] = byte(r.IntN(3))
	if c.Depth == 0 {
		c.Ancestors, c.Descendants = 1+r.IntN(3), 1+r.IntN(3)
		c.Safe = c.FromMe || r.IntN(2) == 0
		if r.IntN(2) == 0 {
			c.BumpFee = r.Int64N(3000)
		}
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFundProperties: over thousands of random wallets and payments, a
// funded transaction pays at least the target rate on its size, overpays
// by no more than the change it gave up, stays within max_tx_weight, and
// its amounts add up.
const dbg = false

func TestFundProperties(t *testing.T) {
	t.Parallel()
	r := seedRand(23)
	funded, sffo, withChange, insufficient := 0, 0, 0, 0
	algos := map[Algorithm]int{}
	for iter := range 3000 {
		n := 1 + r.IntN(40)
		coins := make([]Coin, n)
		for i := range coins {
			coins[i] = randCoin(r, i)
		}
		req := &Request{
			Options:          DefaultOptions(),
			ChangeScript:     wpkhScript,
			ChangeSpendSize:  vsizeOf(inputWeights[0]),
			FeeRate:          randRate(r),
			LongTermFeeRate:  DefaultConsolidateFeeRate,
			DiscardFeeRate:   DefaultDiscardFeeRate,
			DustRelayFeeRate: DefaultDustRelayFeeRate,
			MaxTxFee:         maxMoney,
			AllowOtherInputs: true,
		}
		req.Rand = r
		if r.IntN(2) == 0 {
			// Shared ancestors: bumping together costs less than the
			// sum, by a discount that depends on the set.
			bumps := map[wire.OutPoint]int64{}
			for _, c := range coins {
				bumps[c.OutPoint] = c.BumpFee
			}
			req.CombinedBumpFee = func(ops []wire.OutPoint) (int64, bool) {
				var sum int64
				for _, op := range ops {
					sum += bumps[op]
				}
				if len(ops) > 1 {
					sum -= min(sum, 150*int64(len(ops)-1))
				}
				return sum, true
			}
		}
		req.AvoidPartialSpends = r.IntN(4) == 0
		req.IncludeUnsafe = r.IntN(4) == 0
		if r.IntN(5) == 0 {
			req.MaxTxWeight = 4 * (200 + r.IntN(2000))
		}
		if r.IntN(5) == 0 {
			k := 1 + r.IntN(min(3, n))
			req.Preset = coins[:k]
			req.Available = coins[k:]
			req.AllowOtherInputs = r.IntN(4) != 0
		} else {
			req.Available = coins
		}
		nr := 1 + r.IntN(4)
		var sum int64
		if tight := iter%3 == 0 && len(req.Preset) == 0; tight {
			// A payment some coins pay almost exactly, so that changeless
			// selections exist: their value less their fees, less a little.
			nr = 0
			var v int64
			vb := 10 + 1 + OutputSize(wpkhScript)
			for k := range 1 + r.IntN(3) {
				c := &coins[r.IntN(n)]
				c.Depth, c.Safe = 6+k, true
				v += c.Value
				vb += vsizeOf(c.InputWeight)
			}
			v -= req.FeeRate.Fee(vb) + r.Int64N(400)
			if v > 1000 {
				req.Recipients = append(req.Recipients, Recipient{Value: v, PkScript: wpkhScript})
				sum = v
			} else {
				nr = 1
			}
		}
		for range nr {
			rc := Recipient{Value: 1000 + r.Int64N(2000000), PkScript: trScript}
			if r.IntN(2) == 0 {
				rc.PkScript = wpkhScript
			}
			rc.SubtractFee = r.IntN(6) == 0
			sum += rc.Value
			req.Recipients = append(req.Recipients, rc)
		}

		f, err := Fund(req)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == Internal {
				t.Fatalf("iter %d: %v", iter, err)
			}
			if dbg {
				t.Logf("iter %d: %v", iter, err)
			}
			if e.Kind == InsufficientFunds {
				insufficient++
			}
			continue
		}
		funded++
		algos[f.Algorithm]++
		p := &f.Params
		if dbg {
			t.Logf("iter %d: %s %d inputs (%d preset, add %v) weight %d max %d noinputs %d change %d", iter, f.Algorithm, len(f.Coins), len(req.Preset), req.AllowOtherInputs, f.Weight, req.MaxTxWeight, p.TxNoInputsSize, f.Change)
		}

		// Amounts add up, coins are unique and the presets are in.
		var out int64
		for i, a := range f.Amounts {
			out += a
			if a < DustThreshold(req.Recipients[i].PkScript, req.DustRelayFeeRate) {
				t.Fatalf("iter %d: output %d of %d is dust", iter, i, a)
			}
		}
		if f.Value != out+f.Change+f.Fee {
			t.Fatalf("iter %d: inputs %d != outputs %d + change %d + fee %d", iter, f.Value, out, f.Change, f.Fee)
		}
		seen := map[wire.OutPoint]bool{}
		var value int64
		for _, c := range f.Coins {
			if seen[c.OutPoint] {
				t.Fatalf("iter %d: input %v twice", iter, c.OutPoint)
			}
			seen[c.OutPoint] = true
			value += c.Value
		}
		for _, c := range req.Preset {
			if !seen[c.OutPoint] {
				t.Fatalf("iter %d: preset input %v left out", iter, c.OutPoint)
			}
		}
		if value != f.Value {
			t.Fatalf("iter %d: value %d, coins sum to %d", iter, f.Value, value)
		}
		if !req.AllowOtherInputs && len(f.Coins) != len(req.Preset) {
			t.Fatalf("iter %d: inputs added without add_inputs", iter)
		}
		if f.Change > 0 && f.Change < p.MinViableChange {
			t.Fatalf("iter %d: change %d below minimum %d", iter, f.Change, p.MinViableChange)
		}

		// Weight: recomputed from scratch, and within the limit.
		nOut := len(f.Amounts) + boolInt(f.Change > 0)
		weight := 4 * (8 + compactSize(len(f.Coins)) + compactSize(nOut))
		segwit := slices.ContainsFunc(f.Coins, func(c Coin) bool { return c.Type != Legacy })
		if segwit {
			weight += 2
		}
		for _, rc := range req.Recipients {
			weight += 4 * OutputSize(rc.PkScript)
		}
		if f.Change > 0 {
			weight += 4 * OutputSize(req.ChangeScript)
		}
		for _, c := range f.Coins {
			weight += c.InputWeight - boolInt(!segwit)
		}
		if weight != f.Weight || f.VSize != (weight+3)/4 {
			t.Fatalf("iter %d: weight %d vsize %d, recomputed %d", iter, f.Weight, f.VSize, weight)
		}
		limit := req.MaxTxWeight
		if limit == 0 {
			limit = MaxStandardTxWeight
		}
		if f.Weight > limit {
			t.Fatalf("iter %d: weight %d above max_tx_weight %d", iter, f.Weight, limit)
		}

		// Fee: at least the rate on the final size; exactly that with
		// change or subtracted fees; otherwise over by less than the change
		// given up (below minimum viable change plus its output's fee) and
		// the rounding of the per-part estimates.
		need := req.FeeRate.Fee(f.VSize) + f.BumpFees
		if f.Fee < need {
			t.Fatalf("iter %d: fee %d below %d for %d vB at %d", iter, f.Fee, need, f.VSize, req.FeeRate)
		}
		switch {
		case p.SubtractFeeOutputs:
			sffo++
			if f.Fee != need {
				t.Fatalf("iter %d: subtracted fee %d, needed %d", iter, f.Fee, need)
			}
			var cut int64
			for i, rc := range req.Recipients {
				cut += rc.Value - f.Amounts[i]
				if !rc.SubtractFee && f.Amounts[i] != rc.Value {
					t.Fatalf("iter %d: output %d reduced without subtract_fee", iter, i)
				}
			}
			if cut != f.Fee-(f.Value-sum-f.Change) {
				t.Fatalf("iter %d: outputs reduced by %d for fee %d", iter, cut, f.Fee)
			}
		case f.Change > 0:
			withChange++
			if f.Fee != need {
				t.Fatalf("iter %d: fee %d with change, needed %d", iter, f.Fee, need)
			}
		default:
			nIn := len(f.Coins)
			slack := req.FeeRate.Fee(nIn+1) + int64(nIn) + 2
			if f.Fee-need > p.MinViableChange+p.ChangeFee-1+slack {
				t.Fatalf("iter %d: fee %d exceeds %d by %d; change given up < %d", iter, f.Fee, need, f.Fee-need, p.MinViableChange+p.ChangeFee)
			}
		}
	}
	t.Logf("%d funded (%d with change, %d subtracting fees), %d insufficient; algorithms %v", funded, withChange, sffo, insufficient, algos)
	if funded < 1000 || withChange < 200 || sffo < 50 || funded-withChange-sffo < 150 || algos[BnB] < 100 || algos[CoinGrinder] < 50 {
		t.Fatalf("too few funded cases: %d, %d with change, %d sffo", funded, withChange, sffo)
	}
}
