package coinselect

import (
	"fmt"
	"testing"
)

// Core's knapsack_solver_test and ApproximateBestSubset scenarios: coins
// of unknown size at no fee, filtered as KnapsackGroupOutputs does.

var (
	filterStandard      = filter{confMine: 1, confTheirs: 6}
	filterConfirmed     = filter{confMine: 1, confTheirs: 1}
	filterStandardExtra = filter{confMine: 6, confTheirs: 6}
)

type knapWallet struct {
	t     *testing.T
	coins []Coin
	p     *Params
}

func (w *knapWallet) add(value int64, depth int, fromMe bool) {
	lockTime++
	c := Coin{Value: value, Depth: depth, FromMe: fromMe, Safe: true, Type: Bech32}
	c.OutPoint.Index = lockTime
	w.coins = append(w.coins, c)
}

func (w *knapWallet) mature(values ...int64) {
	for _, v := range values {
		w.add(v, 144, false)
	}
}

func (w *knapWallet) solve(f filter, target int64) (*selection, error) {
	var coins []*coin
	for i := range w.coins {
		x := newCoin(&w.coins[i], w.p)
		coins = append(coins, &x)
	}
	m := typeMapFor(groupOutputs(coins, w.p), f, false)
	return selectKnapsack(m.all().mixed, target, cent, w.p.Rand, MaxStandardTxWeight)
}

func (w *knapWallet) expect(name string, f filter, target, value int64, n int) {
	w.t.Helper()
	s, err := w.solve(f, target)
	switch {
	case value < 0:
		if err == nil {
			w.t.Errorf("%s: selected %v, want failure", name, values(s))
		}
	case err != nil:
		w.t.Errorf("%s: %v", name, err)
	case s.selectedValue() != value || (n > 0 && len(s.coins) != n):
		w.t.Errorf("%s: selected %v (%d), want %d in %d coins", name, values(s), s.selectedValue(), value, n)
	}
}

func TestCoreKnapsack(t *testing.T) {
	for run := range 20 {
		w := &knapWallet{t: t, p: &Params{Options: DefaultOptions()}}
		w.p.Rand = seedRand(uint64(run))

		w.expect("empty wallet", filterStandard, cent, -1, 0)
		w.add(cent, 4, false)
		w.expect("no mature cent", filterStandard, cent, -1, 0)
		w.expect("a new cent", filterConfirmed, cent, cent, 1)
		w.mature(2 * cent)
		w.expect("no 3 mature cents", filterStandard, 3*cent, -1, 0)
		w.expect("3 new cents", filterConfirmed, 3*cent, 3*cent, 2)
		w.mature(5 * cent)
		w.add(10*cent, 3, true)
		w.mature(20 * cent)
		w.expect("not 38 without new coins", filterStandard, 38*cent, -1, 0)
		w.expect("not 38 without new own coins", filterStandardExtra, 38*cent, -1, 0)
		w.expect("37 with new own coins", filterStandard, 37*cent, 37*cent, 0)
		w.expect("38 with all new coins", filterConfirmed, 38*cent, 38*cent, 0)
		w.expect("35 is closest to 34", filterConfirmed, 34*cent, 35*cent, 3)
		w.expect("7 from 2+5", filterConfirmed, 7*cent, 7*cent, 2)
		w.expect("8 from 1+2+5", filterConfirmed, 8*cent, 8*cent, 3)
		w.expect("9 from the next bigger coin", filterConfirmed, 9*cent, 10*cent, 1)

		w.coins = nil
		w.mature(6*cent, 7*cent, 8*cent, 20*cent, 30*cent)
		w.expect("71 of 71", filterConfirmed, 71*cent, 71*cent, 0)
		w.expect("not 72", filterConfirmed, 72*cent, -1, 0)
		w.expect("20 beats 6+7+8 for 16", filterConfirmed, 16*cent, 20*cent, 1)
		w.mature(5 * cent)
		w.expect("5+6+7 beats 20 for 16", filterConfirmed, 16*cent, 18*cent, 3)
		w.mature(18 * cent)
		w.expect("18 in one coin on a tie", filterConfirmed, 16*cent, 18*cent, 1)
		w.expect("11 from 5+6", filterConfirmed, 11*cent, 11*cent, 2)
		w.mature(btc, 2*btc, 3*btc, 4*btc)
		w.expect("smallest bigger coin for 95", filterConfirmed, 95*cent, btc, 1)
		w.expect("smallest bigger coin for 195", filterConfirmed, 195*cent, 2*btc, 1)

		w.coins = nil
		w.mature(cent/10, cent*2/10, cent*3/10, cent*4/10, cent*5/10)
		w.expect("small change unavoidable", filterConfirmed, cent, cent, 0)
		w.mature(1111 * cent)
		w.expect("exact from small coins", filterConfirmed, cent, cent, 0)
		w.mature(cent*6/10, cent*7/10)
		w.expect("exact from more small coins", filterConfirmed, cent, cent, 0)

		w.coins = nil
		for range 20 {
			w.mature(50000 * btc)
		}
		w.expect("mtgox", filterConfirmed, 500000*btc, 500000*btc, 10)

		w.coins = nil
		w.mature(cent*5/10, cent*6/10, cent*7/10, 1111*cent)
		w.expect("bigger coin when no exact subset", filterConfirmed, cent, 1111*cent, 1)
		w.coins = nil
		w.mature(cent*4/10, cent*6/10, cent*8/10, 1111*cent)
		w.expect("exact subset 0.4+0.6", filterConfirmed, cent, cent, 2)

		w.coins = nil
		w.mature(cent*5/100, cent, 100*cent)
		w.expect("all three for 100.01", filterConfirmed, cent*10001/100, cent*10105/100, 3)
		w.expect("bigger small coin for 99.9", filterConfirmed, cent*9990/100, 101*cent, 2)
	}

	for amt := int64(1500); amt < btc; amt *= 10 {
		t.Run(fmt.Sprint(amt), func(t *testing.T) {
			w := &knapWallet{t: t, p: &Params{Options: DefaultOptions()}}
			w.p.Rand = seedRand(uint64(amt))
			for range 676 {
				w.mature(amt)
			}
			n := 1
			if amt-2000 < cent {
				n = int((2000 + cent + amt - 1) / amt)
			}
			w.expect("many inputs", filterConfirmed, 2000, amt*int64(n), n)
		})
	}

	w := &knapWallet{t: t, p: &Params{Options: DefaultOptions()}}
	w.p.Rand = seedRand(77)
	for range 1000 {
		w.mature(1000 * btc)
	}
	w.mature(3 * btc)
	w.expect("sort order", filterStandard, 1003*btc, 1003*btc, 2)
}

// TestCoreKnapsackRandomness: equivalent coins are chosen at random.
func TestCoreKnapsackRandomness(t *testing.T) {
	w := &knapWallet{t: t, p: &Params{Options: DefaultOptions()}}
	w.p.Rand = seedRand(8)
	for range 100 {
		w.mature(btc)
	}
	key := func(s *selection) string {
		var ids []uint32
		for _, x := range s.coins {
			ids = append(ids, x.c.OutPoint.Index)
		}
		return fmt.Sprint(ids)
	}
	same := func(target int64) int {
		n := 0
		for range 20 {
			a, err1 := w.solve(filterConfirmed, target)
			b, err2 := w.solve(filterConfirmed, target)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if key(a) == key(b) {
				n++
			}
		}
		return n
	}
	if n := same(50 * btc); n != 0 {
		t.Errorf("50 of 100 coins: %d identical pairs", n)
	}
	if n := same(btc); n > 3 {
		t.Errorf("1 of 100 coins: %d identical pairs of 20", n)
	}
	w.mature(5*cent, 10*cent, 15*cent, 20*cent, 25*cent)
	if n := same(90 * cent); n > 3 {
		t.Errorf("smallest bigger of many: %d identical pairs of 20", n)
	}
}
