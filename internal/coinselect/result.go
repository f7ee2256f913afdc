package coinselect

// Algorithm names the algorithm that produced a selection, as Core's
// GetAlgorithmName spells it.
type Algorithm int

// The algorithms, with Core's SelectionAlgorithm values (ChooseSelectionResult
// runs BnB, Knapsack, CoinGrinder, then SRD).
const (
	BnB Algorithm = iota
	Knapsack
	SRD
	CoinGrinder
	Manual
)

func (a Algorithm) String() string {
	switch a {
	case BnB:
		return "bnb"
	case Knapsack:
		return "knapsack"
	case SRD:
		return "srd"
	case CoinGrinder:
		return "cg"
	case Manual:
		return "manual"
	}
	return "unknown"
}

// selection is Core's SelectionResult.
type selection struct {
	coins        []*coin
	target       int64
	algo         Algorithm
	useEffective bool
	waste        int64
	hasWaste     bool
	completed    bool
	weight       int
	bumpDiscount int64
	tries        int // selections evaluated (CoinGrinder)
}

func newSelection(target int64, algo Algorithm) *selection {
	return &selection{target: target, algo: algo, completed: true}
}

func (s *selection) addGroup(g *group) {
	s.coins = append(s.coins, g.coins...)
	s.useEffective = !g.sffo
	s.weight += g.weight
}

func (s *selection) addCoins(cs []*coin, sffo bool) {
	s.coins = append(s.coins, cs...)
	s.useEffective = !sffo
	for _, x := range cs {
		s.weight += max(x.inputBytes, 0) * WitnessScaleFactor
	}
}

func (s *selection) merge(o *selection) {
	s.coins = append(s.coins, o.coins...)
	s.target += o.target
	s.useEffective = s.useEffective || o.useEffective
	if s.algo == Manual {
		s.algo = o.algo
	}
	s.weight += o.weight
}

func (s *selection) clear() {
	s.coins = s.coins[:0]
	s.hasWaste = false
	s.weight = 0
}

func (s *selection) selectedValue() int64 {
	var v int64
	for _, x := range s.coins {
		v += x.c.Value
	}
	return v
}

func (s *selection) selectedEffectiveValue() int64 {
	var v int64
	for _, x := range s.coins {
		v += x.effValue
	}
	return v + s.bumpDiscount
}

func (s *selection) totalBumpFees() int64 {
	var v int64
	for _, x := range s.coins {
		v += x.c.BumpFee
	}
	return v - s.bumpDiscount
}

// change is Core's GetChange: what is left for a change output once the
// target and the change output's fee are paid, or 0 below minViable.
func (s *selection) change(minViable, changeFee int64) int64 {
	var ch int64
	if s.useEffective {
		ch = s.selectedEffectiveValue() - s.target - changeFee
	} else {
		ch = s.selectedValue() - s.target
	}
	if ch < minViable {
		return 0
	}
	return ch
}

// recalculateWaste is Core's RecalculateWaste.
func (s *selection) recalculateWaste(minViable, changeCost, changeFee int64) {
	var w int64
	for _, x := range s.coins {
		w += x.fee - x.ltFee
	}
	w -= s.bumpDiscount
	if s.change(minViable, changeFee) != 0 {
		w += changeCost
	} else {
		v := s.selectedValue()
		if s.useEffective {
			v = s.selectedEffectiveValue()
		}
		w += v - s.target
	}
	s.waste = w
	s.hasWaste = true
}

// less is Core's operator<: lower waste, or on a tie more inputs.
func (s *selection) less(o *selection) bool {
	return s.waste < o.waste || (s.waste == o.waste && len(s.coins) > len(o.coins))
}

// minSelection is std::min_element with less: the first of the least.
func minSelection(rs []*selection) *selection {
	best := rs[0]
	for _, r := range rs[1:] {
		if r.less(best) {
			best = r
		}
	}
	return best
}
