package coinselect

import (
	"errors"
	"slices"
	"testing"
)

// Scenarios of Core's src/wallet/test/coinselector_tests.cpp.

// wasteCoin is one coin of 148 vbytes with the given value, fee and
// long-term fee, as that file's add_coin with fees makes them.
func wasteCoin(value, fee, ltFee int64) *coin {
	lockTime++
	c := &Coin{Value: value, InputWeight: 148 * 4, Depth: 1, Safe: true}
	c.OutPoint.Index = lockTime
	return &coin{c: c, inputBytes: 148, fee: fee, ltFee: ltFee, effValue: value - fee}
}

func manual(target int64, coins ...*coin) *selection {
	s := newSelection(target, Manual)
	for _, x := range coins {
		g := &group{fromMe: true, depth: 999}
		g.insert(x)
		s.addGroup(g)
	}
	return s
}

func TestCoreWaste(t *testing.T) {
	const (
		fee         = 100
		minViable   = 300
		changeCost  = 125
		changeFee   = 30
		feeDiff     = 40
		inAmt       = 3 * btc
		target      = 2 * btc
		excess      = 80
		exactTarget = inAmt - fee*2
	)
	waste := func(target, fee, lt, changeCost int64) int64 {
		s := manual(target, wasteCoin(btc, fee, lt), wasteCoin(2*btc, fee, lt))
		s.recalculateWaste(minViable, changeCost, changeFee)
		return s.waste
	}
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{"change, fee above long-term", waste(target, fee, fee-feeDiff, changeCost), feeDiff*2 + changeCost},
		{"change, fee below long-term", waste(target, fee, fee+feeDiff, changeCost), -feeDiff*2 + changeCost},
		{"no change, fee above long-term", waste(exactTarget-excess, fee, fee-feeDiff, changeCost), feeDiff*2 + excess},
		{"no change, fee below long-term", waste(exactTarget-excess, fee, fee+feeDiff, changeCost), -feeDiff*2 + excess},
		{"change, equal fees", waste(target, fee, fee, changeCost), changeCost},
		{"no change, equal fees", waste(exactTarget-excess, fee, fee, changeCost), excess},
		{"no change, no excess", waste(exactTarget, fee, fee, changeCost), 0},
		{"savings pay the change", waste(target, fee, fee+feeDiff, feeDiff*2), 0},
		{"savings pay the excess", waste(exactTarget-feeDiff*2, fee, fee+feeDiff, changeCost), 0},
		{"negative, exact", waste(exactTarget, fee, fee+feeDiff, changeCost), -2 * feeDiff},
		{"negative with change", waste(target, fee, fee+90, changeCost), -55},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: waste %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if waste(target, fee*2, fee-feeDiff, changeCost) <= waste(target, fee, fee-feeDiff, changeCost) {
		t.Error("a higher fee should waste more")
	}
}

func TestCoreBumpFeeWaste(t *testing.T) {
	const (
		fee        = 100
		minViable  = 200
		changeCost = 125
		changeFee  = 35
		feeDiff    = 40
	)
	bumped := func(target int64) *selection {
		a, b := wasteCoin(btc, fee, fee+feeDiff), wasteCoin(2*btc, fee, fee+feeDiff)
		for i, x := range []*coin{a, b} {
			bump := int64(20 * (i + 1))
			x.c.BumpFee = bump
			x.fee += bump
			x.effValue = x.c.Value - x.fee
		}
		return manual(target, a, b)
	}

	s := bumped(2 * btc)
	s.recalculateWaste(minViable, changeCost, changeFee)
	if want := int64(-feeDiff*2 + changeCost + 60); s.waste != want {
		t.Errorf("with change: %d, want %d", s.waste, want)
	}
	s.bumpDiscount = 30
	s.recalculateWaste(minViable, changeCost, changeFee)
	if want := int64(-feeDiff*2 + changeCost + 60 - 30); s.waste != want {
		t.Errorf("with change and discount: %d, want %d", s.waste, want)
	}

	s = bumped(3*btc - 2*fee - 100)
	s.recalculateWaste(minViable, changeCost, changeFee)
	if want := int64(-feeDiff*2 + 60 + 40); s.waste != want {
		t.Errorf("changeless: %d, want %d", s.waste, want)
	}
	s.bumpDiscount = 30
	s.recalculateWaste(minViable, changeCost, changeFee)
	if want := int64(-feeDiff*2 + 60 - 30 + 70); s.waste != want {
		t.Errorf("changeless with discount: %d, want %d", s.waste, want)
	}
}

func TestCoreEffectiveValue(t *testing.T) {
	p := &Params{FeeRate: 1000}
	c := &Coin{Value: 10000, InputWeight: 148 * 4}
	if x := newCoin(c, p); x.effValue != 9852 {
		t.Errorf("effective value %d", x.effValue)
	}
	if x := newCoin(&Coin{Value: 10000}, p); x.effValue != 10000 {
		t.Errorf("unknown size: effective value %d", x.effValue)
	}
	p.FeeRate = 100000
	if x := newCoin(c, p); x.effValue != -4800 {
		t.Errorf("negative: effective value %d", x.effValue)
	}
}

// cgPool builds CoinGrinder's pool from (value, input vsize) pairs at
// 5 sat/vB, long-term 2 sat/vB.
func cgPool(coins [][2]int64) []*group {
	p := &Params{FeeRate: 5000, LongTermFeeRate: 2000}
	var pool []*group
	for _, c := range coins {
		lockTime++
		cc := &Coin{Value: c[0], InputWeight: int(c[1]) * 4, Depth: 144, Safe: true}
		cc.OutPoint.Index = lockTime
		g := newGroup(p)
		x := newCoin(cc, p)
		g.insert(&x)
		pool = append(pool, g)
	}
	return pool
}

func repeat(n int, value, vsize int64) [][2]int64 {
	var out [][2]int64
	for range n {
		out = append(out, [2]int64{value, vsize})
	}
	return out
}

func TestCoreCoinGrinder(t *testing.T) {
	var mixed [][2]int64
	for j := range int64(5) {
		mixed = append(mixed, [2]int64{(3 + 3*j) * btc, 350}, [2]int64{(2 + 3*j) * btc, 250}, [2]int64{(1 + 3*j) * btc, 150})
	}
	clones := [][2]int64{{4 * btc, 100}, {3 * btc, 100}, {2 * btc, 100}, {1 * btc, 100}}
	clones = append(clones, repeat(100, 8*btc, 1000)...)
	clones = append(clones, repeat(100, 7*btc, 800)...)
	clones = append(clones, repeat(100, 6*btc, 600)...)
	clones = append(clones, repeat(100, 5*btc, 400)...)
	tiny := [][2]int64{{18 * btc / 10, 2500}, {btc, 1000}, {btc, 1000}}
	for j := range int64(100) {
		tiny = append(tiny, [2]int64{btc/100 + j, 110})
	}

	tests := []struct {
		name      string
		coins     [][2]int64
		target    int64
		maxWeight int
		want      []int64 // values; nil: failure
		weightErr bool
		tries     int
	}{
		{"insufficient funds", append(repeat(10, btc, 68), repeat(10, 2*btc, 68)...), 495 * btc / 10, 10000, nil, false, 0},
		{"max weight exceeded", append(repeat(10, btc, 68), repeat(10, 2*btc, 68)...), 295 * btc / 10, 3000, nil, true, 0},
		{"lightest within the weight limit", append(repeat(60, 33*btc/100, 68), repeat(10, 2*btc, 68)...), 2533 * btc / 100, 10000,
			append(slices.Repeat([]int64{2 * btc}, 10), slices.Repeat([]int64{33 * btc / 100}, 17)...), false, 37},
		{"two light over one heavy", [][2]int64{{2 * btc, 148}, {btc, 68}, {btc, 68}}, 19 * btc / 10, 400000, []int64{btc, btc}, false, 3},
		{"mixed weights", mixed, 30 * btc, 400000, []int64{14 * btc, 13 * btc, 4 * btc}, false, 92},
		{"lightest among clones", clones, 99 * btc / 10, 400000, []int64{4 * btc, 3 * btc, 2 * btc, btc}, false, 38},
		{"heavy tiny coins skipped", tiny, 19 * btc / 10, 40000, []int64{btc, btc}, false, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := selectCoinGrinder(cgPool(tc.coins), tc.target, cent, tc.maxWeight)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("selected %v", values(s))
				}
				if errors.Is(err, MaxWeightExceeded) != tc.weightErr || (!tc.weightErr && hasMsg(err)) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if got := values(s); !slices.Equal(got, want) {
				t.Fatalf("selected %v, want %v", got, want)
			}
			if s.tries != tc.tries {
				t.Fatalf("%d selections evaluated, Core evaluates %d", s.tries, tc.tries)
			}
		})
	}
}

func TestCoreSRD(t *testing.T) {
	p := &Params{}
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
	r := seedRand(3)
	_, err := selectSRD(pool(append(repeat(10, btc, 0), repeat(10, 2*btc, 0)...)), 495*btc/10, 0, r, 10000)
	if err == nil || hasMsg(err) {
		t.Errorf("insufficient funds: %v", err)
	}
	_, err = selectSRD(pool(append(repeat(10, btc, 68), repeat(10, 2*btc, 68)...)), 495*btc/10, 0, r, 3000)
	if !errors.Is(err, MaxWeightExceeded) {
		t.Errorf("max weight: %v", err)
	}
	for range 50 {
		s, err := selectSRD(pool(append(repeat(60, 33*btc/100, 68), repeat(10, 2*btc, 68)...)), 2533*btc/100, 0, r, 10000)
		if err != nil || s.weight > 10000 {
			t.Fatalf("within max weight: %v", err)
		}
	}
}

// checkMaxParams are check_max_selection_weight's parameters: no fees.
func checkMaxParams(seed uint64) *Params {
	p := &Params{Options: DefaultOptions(), ChangeOutputSize: 34, ChangeSpendSize: 68, MinChangeTarget: cent, TxNoInputsSize: 10 + 34}
	p.Rand = seedRand(seed)
	return p
}

func TestCoreCheckMaxSelectionWeight(t *testing.T) {
	mk := func(coins [][2]int64) []Coin {
		var out []Coin
		for i, c := range coins {
			cc := wpkhCoin(i, c[0], 144, false)
			out = append(out, cc)
		}
		return out
	}
	maxWeight := MaxStandardTxWeight - 4*(10+34+34)
	target := int64(495 * btc / 10)

	s, err := SelectCoins(mk(append(repeat(1515, 33*btc/1000, 68), [2]int64{50 * btc, 68})), nil, target, true, checkMaxParams(1))
	if err != nil || !slices.ContainsFunc(s.Coins, func(c Coin) bool { return c.Value == 50*btc }) || s.Weight > maxWeight {
		t.Errorf("scenario 1: %v", err)
	}

	s, err = SelectCoins(mk(append(repeat(400, 625*btc/10000, 68), repeat(2000, 25*btc/1000, 68)...)), nil, target, true, checkMaxParams(2))
	if err != nil || s.Weight > maxWeight ||
		!slices.ContainsFunc(s.Coins, func(c Coin) bool { return c.Value == 625*btc/10000 }) ||
		!slices.ContainsFunc(s.Coins, func(c Coin) bool { return c.Value == 25*btc/1000 }) {
		t.Errorf("scenario 2: %v", err)
	}

	if _, err = SelectCoins(mk(repeat(1515, 33*btc/1000, 68)), nil, target, true, checkMaxParams(3)); err == nil {
		t.Error("scenario 3: 1515 inputs would be above the standard weight")
	}
}

// TestCoreSelectCoinsEffectiveValue: a preset input worth more than the
// target but less after its fee does not pay it.
func TestCoreSelectCoinsEffectiveValue(t *testing.T) {
	p := &Params{Options: DefaultOptions(), FeeRate: 3000, LongTermFeeRate: 1000, DiscardFeeRate: 1000,
		ChangeOutputSize: 34, ChangeSpendSize: 148, MinChangeTarget: 1000}
	pre := wpkhCoin(1, 100000, 1, false)
	pre.InputWeight = 148
	_, err := SelectCoins(nil, []Coin{pre}, 99900, false, p)
	if !errors.Is(err, PresetInsufficient) {
		t.Fatalf("got %v", err)
	}
}
