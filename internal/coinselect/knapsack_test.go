package coinselect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// coreApproximate is Core's ApproximateBestSubset written literally: one
// coin flip per group in the first pass, every remaining group in the
// second. The search in algo.go skips work; this checks it decides the
// same way with the same probabilities.
func coreApproximate(rng *rand.Rand, gs []*group, totalLower, target int64, maxWeight, iterations int) ([]bool, int64) {
	best := make([]bool, len(gs))
	for i := range best {
		best[i] = true
	}
	nBest := totalLower
	for rep := 0; rep < iterations && nBest != target; rep++ {
		included := make([]bool, len(gs))
		var total int64
		weight := 0
		reached := false
		for pass := 0; pass < 2 && !reached; pass++ {
			for i, g := range gs {
				take := !included[i]
				if pass == 0 {
					take = rng.IntN(2) == 1
				}
				if !take {
					continue
				}
				total += g.amount()
				weight += g.weight
				included[i] = true
				if total >= target && weight <= maxWeight {
					reached = true
					if total < nBest {
						nBest = total
						copy(best, included)
					}
					total -= g.amount()
					weight -= g.weight
					included[i] = false
				}
			}
		}
	}
	return best, nBest
}

// outcome names a subset by its total and its amounts, sorted: equal
// groups are interchangeable.
func outcome(gs []*group, pick func(i int) bool, total int64) string {
	var a []int64
	for i, g := range gs {
		if pick(i) {
			a = append(a, g.amount())
		}
	}
	slices.Sort(a)
	return fmt.Sprint(total, a)
}

// TestSubsetSearchMatchesCore compares the outcome frequencies of one
// repetition, over pools with runs of equal coins, mixed amounts (some
// negative) and weight limits.
func TestSubsetSearchMatchesCore(t *testing.T) {
	t.Parallel()
	r := seedRand(29)
	const samples = 6000
	for iter := range 24 {
		p := coreParams(FeeRate(1000 + r.Int64N(30000)))
		var pool []*group
		if iter%2 == 0 {
			// Runs of equal coins.
			for range 2 + r.IntN(4) {
				amount := []int64{-300, 1000, 5000, 5000, 20000, 33000}[r.IntN(6)]
				vsize := []int{68, 68, 148}[r.IntN(3)]
				for range 1 + r.IntN(3) {
					pool = append(pool, makeGroup(amount, true, p, vsize))
				}
			}
		} else {
			// Distinct coins, many of them enough on their own.
			for range 3 + r.IntN(5) {
				pool = append(pool, makeGroup(1000+r.Int64N(30000), true, p, []int{68, 148}[r.IntN(2)]))
			}
		}
		sortDescending(pool)
		var total int64
		for _, g := range pool {
			total += g.amount()
		}
		if total <= 0 {
			continue
		}
		target := 1 + r.Int64N(total)
		if iter%2 == 1 {
			target = 1 + r.Int64N(total/3+1)
		}
		maxW := MaxStandardTxWeight
		if r.IntN(3) == 0 {
			maxW = 4 * 68 * (1 + r.IntN(6))
		}
		iterations := 1 + r.IntN(3)

		want, got := map[string]int{}, map[string]int{}
		for k := range samples {
			best, n := coreApproximate(seedRand(uint64(k)<<20|uint64(iter)), pool, total, target, maxW, iterations)
			want[outcome(pool, func(i int) bool { return best[i] }, n)]++
		}
		search := newSubsetSearch(pool, seedRand(uint64(iter)+1e9))
		for range samples {
			best, n := search.approximate(total, target, maxW, iterations)
			picked := map[int]bool{}
			for _, i := range best {
				picked[i] = true
			}
			got[outcome(pool, func(i int) bool { return best == nil || picked[i] }, n)]++
		}
		// Total variation distance between the two distributions.
		tv := 0
		for k, v := range want {
			tv += max(v-got[k], 0)
		}
		for k, v := range got {
			tv += max(v-want[k], 0)
		}
		if float64(tv)/2/samples > 0.04 {
			t.Errorf("pool %d (target %d, max weight %d): outcomes differ\ncore: %v\nours: %v", iter, target, maxW, want, got)
		}
	}
}
