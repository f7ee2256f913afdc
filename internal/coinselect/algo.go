package coinselect

import (
	"cmp"
	"container/heap"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
)

// errNoSolution is Core's empty util::Error: no selection, nothing
// specific to say (it becomes "Insufficient funds" at the top).
var errNoSolution = &Error{Kind: InsufficientFunds}

func maxWeightErr() error { return newError(MaxWeightExceeded) }

// hasMsg is Core's HasErrorMsg.
func hasMsg(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Description != ""
}

// sortDescending orders by amount, then lower waste (fee - long-term fee).
func sortDescending(pool []*group) {
	slices.SortFunc(pool, func(a, b *group) int {
		if a.sel != b.sel {
			return cmp.Compare(b.sel, a.sel)
		}
		return cmp.Compare(a.fee-a.ltFee, b.fee-b.ltFee)
	})
}

// sortDescendingWeight orders by amount, then lower weight.
func sortDescendingWeight(pool []*group) {
	slices.SortFunc(pool, func(a, b *group) int {
		if a.sel != b.sel {
			return cmp.Compare(b.sel, a.sel)
		}
		return cmp.Compare(a.weight, b.weight)
	})
}

// selectBnB is Core's SelectCoinsBnB: a depth-first search, inclusion
// first over the pool by descending amount, for the changeless selection in
// [target, target+costOfChange] of least waste.
func selectBnB(pool []*group, target, costOfChange int64, maxWeight int) (*selection, error) {
	var currValue, available int64
	for _, g := range pool {
		available += g.amount()
	}
	if len(pool) == 0 || available < target {
		return nil, errNoSolution
	}
	pool = append([]*group(nil), pool...)
	sortDescending(pool)

	var (
		currSel      []int
		currWeight   int
		currWaste    int64
		bestSel      []int
		bestWaste    int64 = maxMoney
		highFeeRate        = pool[0].fee > pool[0].ltFee
		weightExceed bool
	)
	for try, i := 0, 0; try < totalTries; try, i = try+1, i+1 {
		backtrack := false
		switch {
		case currValue+available < target || currValue > target+costOfChange ||
			(currWaste > bestWaste && highFeeRate):
			backtrack = true
		case currWeight > maxWeight:
			weightExceed = true
			backtrack = true
		case currValue >= target:
			currWaste += currValue - target
			if currWaste <= bestWaste {
				bestSel = append(bestSel[:0], currSel...)
				bestWaste = currWaste
			}
			currWaste -= currValue - target
			backtrack = true
		}

		if backtrack {
			if len(currSel) == 0 {
				break
			}
			// Put the omitted groups back in the lookahead, then take the
			// omission branch of the last included one.
			last := currSel[len(currSel)-1]
			for i--; i > last; i-- {
				available += pool[i].amount()
			}
			g := pool[i]
			currValue -= g.amount()
			currWaste -= g.fee - g.ltFee
			currWeight -= g.weight
			currSel = currSel[:len(currSel)-1]
			continue
		}

		g := pool[i]
		available -= g.amount()
		// Skip an inclusion equivalent to that of an omitted predecessor
		// with the same amount and fee.
		if len(currSel) == 0 || i-1 == currSel[len(currSel)-1] ||
			g.amount() != pool[i-1].amount() || g.fee != pool[i-1].fee {
			currSel = append(currSel, i)
			currValue += g.amount()
			currWaste += g.fee - g.ltFee
			currWeight += g.weight
		}
	}

	if len(bestSel) == 0 {
		if weightExceed {
			return nil, maxWeightErr()
		}
		return nil, errNoSolution
	}
	s := newSelection(target, BnB)
	for _, i := range bestSel {
		s.addGroup(pool[i])
	}
	s.recalculateWaste(costOfChange, costOfChange, 0)
	return s, nil
}

// selectCoinGrinder is Core's CoinGrinder: the lightest selection paying
// target plus changeTarget, by depth-first search with weight bounds.
func selectCoinGrinder(pool []*group, target, changeTarget int64, maxWeight int) (*selection, error) {
	if len(pool) == 0 {
		return nil, errNoSolution
	}
	pool = append([]*group(nil), pool...)
	sortDescendingWeight(pool)
	n := len(pool)
	lookahead := make([]int64, n)
	minTailWeight := make([]int, n)
	var total int64
	minW := int(^uint(0) >> 1)
	for k := n - 1; k >= 0; k-- {
		lookahead[k] = total
		minTailWeight[k] = minW
		total += pool[k].amount()
		minW = min(minW, pool[k].weight)
	}
	totalTarget := target + changeTarget
	if total < totalTarget {
		return nil, errNoSolution
	}

	var (
		currSel, bestSel []int
		currAmount       int64
		bestAmount       int64 = maxMoney
		currWeight       int
		bestWeight       = maxWeight
		weightExceeded   bool
		next             int
		tries            int
	)
	deselectLast := func() {
		g := pool[currSel[len(currSel)-1]]
		currAmount -= g.amount()
		currWeight -= g.weight
		currSel = currSel[:len(currSel)-1]
	}
	s := newSelection(target, CoinGrinder)
	for done := false; !done; {
		shift, cut := false, false
		g := pool[next]
		currAmount += g.amount()
		currWeight += g.weight
		currSel = append(currSel, next)
		next++
		tries++

		tail := currSel[len(currSel)-1]
		switch {
		case currAmount+lookahead[tail] < totalTarget:
			cut = true
		case currWeight > bestWeight:
			if currWeight > maxWeight {
				weightExceeded = true
			}
			if pool[tail].weight <= minTailWeight[tail] {
				cut = true
			} else {
				shift = true
			}
		case currAmount >= totalTarget:
			shift = true
			if currWeight < bestWeight || (currWeight == bestWeight && currAmount < bestAmount) {
				bestSel = append(bestSel[:0], currSel...)
				bestWeight = currWeight
				bestAmount = currAmount
			}
		case len(bestSel) > 0:
			// Even the lightest remaining groups, as many as the last
			// amount says are still missing, would weigh more than the best.
			a := pool[tail].amount()
			need := (totalTarget - currAmount + a - 1) / a
			if int64(currWeight)+int64(minTailWeight[tail])*need > int64(bestWeight) {
				if pool[tail].weight <= minTailWeight[tail] {
					cut = true
				} else {
					shift = true
				}
			}
		}

		if tries >= totalTries {
			s.completed = false
			break
		}
		if next == n {
			cut = true
		}
		if cut {
			deselectLast()
			shift = true
		}
		for shift {
			if len(currSel) == 0 {
				done = true
				break
			}
			next = currSel[len(currSel)-1] + 1
			deselectLast()
			shift = false
			// Skip clones of the group just omitted.
			for pool[next-1].amount() == pool[next].amount() {
				if next >= n-1 {
					shift = true
					break
				}
				next++
			}
		}
	}

	s.tries = tries
	if len(bestSel) == 0 {
		if weightExceeded {
			return nil, maxWeightErr()
		}
		return nil, errNoSolution
	}
	for _, i := range bestSel {
		s.addGroup(pool[i])
	}
	return s, nil
}

// minHeap keeps the smallest amount on top (Core's MinOutputGroupComparator
// priority queue).
type minHeap []*group

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].amount() < h[j].amount() }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(*group)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// selectSRD is Core's SelectCoinsSRD: groups in random order until the
// target plus the lowest change (and its fee) is reached, dropping the
// smallest when the weight limit is passed.
func selectSRD(pool []*group, target, changeFee int64, rng *rand.Rand, maxWeight int) (*selection, error) {
	s := newSelection(target, SRD)
	target += ChangeLower + changeFee
	idx := make([]int, len(pool))
	for i := range idx {
		idx[i] = i
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })

	var h minHeap
	var value int64
	weight := 0
	exceeded := false
	for _, i := range idx {
		g := pool[i]
		heap.Push(&h, g)
		value += g.amount()
		weight += g.weight
		if weight > maxWeight {
			exceeded = true
			for {
				r := heap.Pop(&h).(*group)
				value -= r.amount()
				weight -= r.weight
				if h.Len() == 0 || weight <= maxWeight {
					break
				}
			}
		}
		if value >= target {
			for _, g := range h {
				s.addGroup(g)
			}
			return s, nil
		}
	}
	if exceeded {
		return nil, maxWeightErr()
	}
	return nil, errNoSolution
}

// bitSource hands out fair random bits 64 at a time, as Core's
// FastRandomContext buffers them for randbool.
type bitSource struct {
	r    *rand.Rand
	bits uint64
	n    int
}

// gap returns how many zero bits come before the next one bit (the number
// of coins a pass leaves out before it includes one), at most limit.
func (b *bitSource) gap(limit int) int {
	g := 0
	for g < limit {
		if b.n == 0 {
			b.bits, b.n = b.r.Uint64(), 64
		}
		tz := bits.TrailingZeros64(b.bits)
		if tz >= b.n {
			g += b.n
			b.n = 0
			continue
		}
		b.bits >>= tz + 1
		b.n -= tz + 1
		return g + tz
	}
	return limit
}

// subsetSearch holds Knapsack's stochastic subset search over groups
// sorted by descending amount.
type subsetSearch struct {
	gs      []*group
	runEnd  []int // runEnd[i]: end of the run of groups equal to gs[i]
	sufMaxW []int // sufMaxW[i]: the largest weight from gs[i] on
	mark    []uint32
	gen     uint32
	inc     []int
	bits    bitSource
}

func newSubsetSearch(gs []*group, rng *rand.Rand) *subsetSearch {
	n := len(gs)
	s := &subsetSearch{gs: gs, runEnd: make([]int, n), sufMaxW: make([]int, n+1), mark: make([]uint32, n), bits: bitSource{r: rng}}
	for i := n - 1; i >= 0; i-- {
		s.runEnd[i] = i + 1
		if i+1 < n && gs[i+1].amount() == gs[i].amount() && gs[i+1].weight == gs[i].weight {
			s.runEnd[i] = s.runEnd[i+1]
		}
		s.sufMaxW[i] = max(s.sufMaxW[i+1], gs[i].weight)
	}
	return s
}

// region reports whether gs[i] and every group after it down to the
// first one below need would reach the target (within room for their
// weight), and where that stretch ends.
func (s *subsetSearch) region(i int, need int64, room int) (int, bool) {
	if s.gs[i].amount() < need || s.sufMaxW[i] > room {
		return 0, false
	}
	tail := s.gs[i:]
	return i + sort.Search(len(tail), func(k int) bool { return tail[k].amount() < need }), true
}

// approximate is Core's ApproximateBestSubset: up to iterations (1000) repetitions of
// two passes, the first including each group with probability one half,
// the second including the rest, each group that reaches the target
// within the weight limit being noted (the least total wins) and taken
// back out. It returns the best subset (nil: all groups) and its total.
//
// It makes the same decisions with the same probabilities as Core's loop
// but does not visit every group. The first pass jumps to the next
// included group. A group that reaches the target is taken back out, so
// the total does not move: every following group large enough to reach it
// too (the groups are sorted by descending amount) only offers a total,
// and of those the last included offers the least. So a stretch of such
// groups costs a binary search and one draw for its last included member;
// a run of equal groups after one that reached the target is skipped
// likewise. A repetition costs about one step per group that stays in,
// instead of one per group.
func (s *subsetSearch) approximate(totalLower, target int64, maxWeight, iterations int) ([]int, int64) {
	var best []int
	nBest := totalLower
	n := len(s.gs)
	for rep := 0; rep < iterations && nBest != target; rep++ {
		s.gen++
		if s.gen == 0 {
			clear(s.mark)
			s.gen = 1
		}
		s.inc = s.inc[:0]
		var total int64
		weight := 0
		reached := false
		// note offers the total with group i, which reaches the target.
		note := func(i int) {
			reached = true
			if t := total + s.gs[i].amount(); t < nBest {
				nBest = t
				best = append(append(best[:0], s.inc...), i)
			}
		}
		// try includes group i: it either reaches the target (noted and
		// taken back, true) or stays in.
		try := func(i int) bool {
			g := s.gs[i]
			if total+g.amount() >= target && weight+g.weight <= maxWeight {
				note(i)
				return true
			}
			total += g.amount()
			weight += g.weight
			s.inc = append(s.inc, i)
			s.mark[i] = s.gen
			return false
		}

		// First pass: each group in with probability one half.
		for i := s.bits.gap(n); i < n; {
			if b, ok := s.region(i, target-total, maxWeight-weight); ok {
				last := i
				if span := b - 1 - i; span > 0 {
					if g := s.bits.gap(span); g < span {
						last = b - 1 - g
					}
				}
				note(last)
				i = b + s.bits.gap(n-b)
				continue
			}
			if try(i) {
				i = s.runEnd[i] - 1
			}
			i += 1 + s.bits.gap(n)
		}
		if reached {
			continue
		}

		// Second pass: every group left out.
		for i := 0; i < n; i++ {
			if s.mark[i] == s.gen {
				continue
			}
			if b, ok := s.region(i, target-total, maxWeight-weight); ok {
				last := b - 1
				for last > i && s.mark[last] == s.gen {
					last--
				}
				note(last)
				i = b - 1
				continue
			}
			if try(i) {
				i = s.runEnd[i] - 1
			}
		}
	}
	if best == nil {
		return nil, nBest
	}
	return append([]int(nil), best...), nBest
}

// knapsackIterations is Core's repetition count for the subset search.
const knapsackIterations = 1000

// selectKnapsack is Core's KnapsackSolver.
func selectKnapsack(pool []*group, target, changeTarget int64, rng *rand.Rand, maxWeight int) (*selection, error) {
	s := newSelection(target, Knapsack)
	gs := append([]*group(nil), pool...)
	rng.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })

	exceeded := false
	var lowestLarger *group
	var applicable []*group
	var totalLower int64
	for _, g := range gs {
		if g.weight > maxWeight {
			exceeded = true
			continue
		}
		switch a := g.amount(); {
		case a == target:
			s.addGroup(g)
			return s, nil
		case a < target+changeTarget:
			applicable = append(applicable, g)
			totalLower += a
		case lowestLarger == nil || a < lowestLarger.amount():
			lowestLarger = g
		}
	}

	if totalLower == target {
		for _, g := range applicable {
			s.addGroup(g)
		}
		if s.weight <= maxWeight {
			return s, nil
		}
		exceeded = true
		s.clear()
	}
	if totalLower < target {
		if lowestLarger == nil {
			if exceeded {
				return nil, maxWeightErr()
			}
			return nil, errNoSolution
		}
		s.addGroup(lowestLarger)
		return s, nil
	}

	sortDescending(applicable)
	search := newSubsetSearch(applicable, rng)
	best, nBest := search.approximate(totalLower, target, maxWeight, knapsackIterations)
	if nBest != target && totalLower >= target+changeTarget {
		best, nBest = search.approximate(totalLower, target+changeTarget, maxWeight, knapsackIterations)
	}
	if lowestLarger != nil &&
		((nBest != target && nBest < target+changeTarget) || lowestLarger.amount() <= nBest) {
		s.addGroup(lowestLarger)
		return s, nil
	}
	if best == nil {
		for _, g := range applicable {
			s.addGroup(g)
		}
	} else {
		for _, i := range best {
			s.addGroup(applicable[i])
		}
	}
	if s.weight > maxWeight {
		if lowestLarger == nil {
			return nil, maxWeightErr()
		}
		s.clear()
		s.addGroup(lowestLarger)
	}
	return s, nil
}
