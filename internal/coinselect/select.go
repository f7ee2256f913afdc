package coinselect

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/btcsuite/btcd/wire/v2"
)

// Options are the wallet settings and chain facts selection depends on.
type Options struct {
	// AvoidPartialSpends groups coins by scriptPubKey (-avoidpartialspends,
	// or forced by avoid_reuse).
	AvoidPartialSpends bool
	// IncludeUnsafe allows unsafe coins (include_unsafe).
	IncludeUnsafe bool
	// SpendZeroConfChange allows unconfirmed change (-spendzeroconfchange,
	// Core's default true).
	SpendZeroConfChange bool
	// RejectLongChains is -walletrejectlongchains (Core's default true).
	RejectLongChains bool
	// MaxAncestors and MaxDescendants are the mempool's package limits;
	// zero means Core's default of 25.
	MaxAncestors, MaxDescendants int
	// Version is the transaction version (3 caps the weight of children
	// of unconfirmed parents).
	Version int32
	// Rand is the randomness for Knapsack, SRD and the change target; nil
	// draws a fresh seed.
	Rand *rand.Rand
	// CombinedBumpFee returns the fee needed to bump the unconfirmed
	// ancestors of all the given outpoints together (Core's
	// calculateCombinedBumpFee), false when the cluster is too large to
	// compute. Nil means the sum of the coins' own BumpFee.
	CombinedBumpFee func(outpoints []wire.OutPoint) (int64, bool)
}

// DefaultOptions are Core v30's defaults.
func DefaultOptions() Options {
	return Options{SpendZeroConfChange: true, RejectLongChains: true, Version: 2}
}

// Params are Core's CoinSelectionParams.
type Params struct {
	Options
	// FeeRate is the target rate; LongTermFeeRate the consolidate rate;
	// DiscardFeeRate the rate below which change is not worth making.
	FeeRate, LongTermFeeRate, DiscardFeeRate FeeRate
	// ChangeOutputSize is the change output's serialized size;
	// ChangeSpendSize the vsize of the input spending it later.
	ChangeOutputSize, ChangeSpendSize int
	// MinChangeTarget is Knapsack's and CoinGrinder's change target
	// (GenerateChangeTarget).
	MinChangeTarget int64
	// MinViableChange is the least change worth an output.
	MinViableChange int64
	// ChangeFee is the fee of the change output at FeeRate; CostOfChange
	// adds spending it at DiscardFeeRate.
	ChangeFee, CostOfChange int64
	// TxNoInputsSize is the vsize of the transaction without inputs and
	// change, with one byte for the input count and one for the witness
	// marker and flag.
	TxNoInputsSize int
	// SubtractFeeOutputs: the fee comes out of the recipients' amounts.
	SubtractFeeOutputs bool
	// MaxTxWeight bounds the transaction; zero is MaxStandardTxWeight.
	MaxTxWeight int
}

// Selection is the outcome of SelectCoins.
type Selection struct {
	// Coins are the inputs: preset ones first, then the selected ones
	// ordered by outpoint (the wallet shuffles them, as Core does).
	Coins     []Coin
	Algorithm Algorithm
	// Waste is Core's waste metric of the selection.
	Waste int64
	// Target is the amount the inputs had to pay (presets included).
	Target int64
	// Weight is the inputs' weight as selection counts it.
	Weight int
	// Value is the inputs' total value; EffectiveValue net of their fees.
	Value, EffectiveValue int64
	// BumpFees is the ancestor bump fee the transaction must add.
	BumpFees int64
	// Change is the change to make, 0 for none (Core's GetChange).
	Change int64
	// Complete is false when CoinGrinder stopped at its try limit.
	Complete bool
}

func (p *Params) rng() *rand.Rand {
	if p.Rand == nil {
		var seed [32]byte
		_, _ = crand.Read(seed[:])
		p.Rand = rand.New(rand.NewChaCha8(seed))
	}
	return p.Rand
}

func (p *Params) maxTxWeight() int {
	if p.MaxTxWeight > 0 {
		return p.MaxTxWeight
	}
	return MaxStandardTxWeight
}

func outPointString(op wire.OutPoint) string {
	return fmt.Sprintf("COutPoint(%s, %d)", op.Hash.String()[:10], op.Index)
}

// SelectCoins is Core's SelectCoins: it pays target (recipients plus the
// fee of everything but inputs and change) from the preset inputs and,
// when allowOther, from the available coins.
func SelectCoins(available, preset []Coin, target int64, allowOther bool, p *Params) (*Selection, error) {
	p.rng()
	s, err := selectCoins(available, preset, target, allowOther, p)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Description == "" {
			return nil, newError(InsufficientFunds)
		}
		return nil, err
	}
	return s.export(p), nil
}

func selectCoins(available, preset []Coin, target int64, allowOther bool, p *Params) (*selection, error) {
	// Preset inputs: sized, valued at their effective value (their value
	// when the fee comes from the outputs).
	presetSet := make(map[wire.OutPoint]bool, len(preset))
	var presetCoins []*coin
	var presetTotal int64
	for i := range preset {
		c := &preset[i]
		if c.InputWeight <= 0 {
			return nil, newError(NotSolvable, outPointString(c.OutPoint))
		}
		x := newCoin(c, p)
		x.preset = true
		presetCoins = append(presetCoins, &x)
		presetSet[c.OutPoint] = true
		if p.SubtractFeeOutputs {
			presetTotal += c.Value
		} else {
			presetTotal += x.effValue
		}
	}

	selTarget := target - presetTotal
	if !allowOther && selTarget > 0 {
		return nil, newError(PresetInsufficient)
	}
	if selTarget <= 0 {
		s := newSelection(target, Manual)
		s.addCoins(presetCoins, p.SubtractFeeOutputs)
		s.recalculateWaste(p.MinViableChange, p.CostOfChange, p.ChangeFee)
		// Core does not weigh preset inputs that pay on their own
		// against max_tx_weight; we do.
		if s.weight > p.maxTxWeight()-p.TxNoInputsSize*WitnessScaleFactor {
			return nil, newError(MaxWeightExceeded)
		}
		return s, nil
	}

	// The candidates (Core's AvailableCoins): not preset, sized, safe
	// unless unsafe ones are allowed; ordered by output type.
	slab := make([]coin, 0, len(available))
	coins := make([]*coin, 0, len(available))
	var total, effTotal int64
	for i := range available {
		c := &available[i]
		if presetSet[c.OutPoint] || c.InputWeight <= 0 || (!c.Safe && !p.IncludeUnsafe) {
			continue
		}
		slab = append(slab, newCoin(c, p))
		x := &slab[len(slab)-1]
		coins = append(coins, x)
		total += c.Value
		effTotal += x.effValue
	}
	coins = byType(coins)
	if p.SubtractFeeOutputs {
		effTotal = total
	}
	if selTarget > effTotal {
		return nil, errNoSolution
	}

	s, err := automaticSelection(coins, total, selTarget, p)
	if err != nil {
		return nil, err
	}
	if len(presetCoins) > 0 {
		pre := newSelection(presetTotal, Manual)
		pre.addCoins(presetCoins, p.SubtractFeeOutputs)
		s.merge(pre)
		s.recalculateWaste(p.MinViableChange, p.CostOfChange, p.ChangeFee)
		if s.weight > p.maxTxWeight()-p.TxNoInputsSize*WitnessScaleFactor {
			return nil, newError(PresetMaxWeight)
		}
	}
	return s, nil
}

// byType orders coins by output type, keeping their order within a type
// (Core keeps them in a map of per-type lists).
func byType(coins []*coin) []*coin {
	var count [UnknownType + 2]int
	typeOf := func(x *coin) OutputType {
		if t := x.c.Type; t >= 0 && t <= UnknownType {
			return t
		}
		return UnknownType
	}
	for _, x := range coins {
		count[typeOf(x)+1]++
	}
	for t := 1; t < len(count); t++ {
		count[t] += count[t-1]
	}
	out := make([]*coin, len(coins))
	for _, x := range coins {
		t := typeOf(x)
		out[count[t]] = x
		count[t]++
	}
	return out
}

// filters is Core's ladder of eligibility filters, loosest last.
func filters(p *Params, maxAnc, maxDesc uint64) []filter {
	fs := []filter{
		{confMine: 1, confTheirs: 6, allowMixed: false},
		{confMine: 1, confTheirs: 1, allowMixed: true},
	}
	if !p.SpendZeroConfChange {
		return fs
	}
	fs = append(fs,
		filter{confMine: 0, confTheirs: 1, maxAncestors: 2, maxDescendants: 2, allowMixed: true},
		filter{confMine: 0, confTheirs: 1, maxAncestors: min(4, maxAnc/3), maxDescendants: min(4, maxDesc/3), allowMixed: true},
		filter{confMine: 0, confTheirs: 1, maxAncestors: maxAnc / 2, maxDescendants: maxDesc / 2, allowMixed: true},
		filter{confMine: 0, confTheirs: 1, maxAncestors: maxAnc - 1, maxDescendants: maxDesc - 1, includePartial: true, allowMixed: true},
	)
	if p.IncludeUnsafe {
		fs = append(fs, filter{confMine: 0, confTheirs: 0, maxAncestors: maxAnc - 1, maxDescendants: maxDesc - 1, includePartial: true, allowMixed: true})
	}
	if !p.RejectLongChains {
		fs = append(fs, filter{confMine: 0, confTheirs: 1, maxAncestors: math.MaxUint64, maxDescendants: math.MaxUint64, includePartial: true, allowMixed: true})
	}
	return fs
}

// automaticSelection is Core's AutomaticCoinSelection.
func automaticSelection(coins []*coin, total, target int64, p *Params) (*selection, error) {
	maxAnc, maxDesc := uint64(DefaultAncestorLimit), uint64(DefaultDescendantLimit)
	if p.MaxAncestors > 0 {
		maxAnc = uint64(p.MaxAncestors)
	}
	if p.MaxDescendants > 0 {
		maxDesc = uint64(p.MaxDescendants)
	}

	// Many coins to one script would otherwise group deterministically:
	// shuffle each type's coins first.
	if p.AvoidPartialSpends && len(coins) > OutputGroupMaxEntries {
		for lo := 0; lo < len(coins); {
			hi := lo
			for hi < len(coins) && coins[hi].c.Type == coins[lo].c.Type {
				hi++
			}
			seg := coins[lo:hi]
			p.Rand.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			lo = hi
		}
	}

	fs := filters(p, maxAnc, maxDesc)
	cands := groupOutputs(coins, p)

	// Is there still enough once the coins no filter accepts are set
	// aside?
	var discarded, longChain int64
	for _, c := range cands {
		ok := false
		for _, f := range fs {
			if accepts(c, f) {
				ok = true
				break
			}
		}
		if !ok {
			discarded += c.g.amount()
			if uint64(c.g.ancestors) >= maxAnc || uint64(c.g.descendants) >= maxDesc {
				longChain += c.g.amount()
			}
		}
	}
	if total-discarded < target {
		// Core declares its total inside the condition, so the total it
		// then adds is the comparison's value, 1; kept for the same
		// answers.
		if 1+longChain > target {
			return nil, newError(LongChain)
		}
		return nil, errNoSolution
	}

	var detailed error
	for _, f := range fs {
		m := typeMapFor(cands, f, p.AvoidPartialSpends)
		if m.typesCount() == 0 {
			continue
		}
		q := *p
		if q.Version == 3 && (f.confMine == 0 || f.confTheirs == 0) && q.maxTxWeight() > TRUCChildMaxWeight {
			q.MaxTxWeight = TRUCChildMaxWeight
		}
		s, err := attemptSelection(target, m, &q, f.allowMixed)
		if err == nil {
			return s, nil
		}
		if hasMsg(err) && detailed == nil {
			detailed = err
		}
	}
	if detailed != nil {
		return nil, detailed
	}
	return nil, errNoSolution
}

// attemptSelection is Core's AttemptSelection: each output type alone,
// the least waste winning; all types together only when none suffices.
func attemptSelection(target int64, m *typeMap, p *Params, allowMixed bool) (*selection, error) {
	var results []*selection
	for _, gs := range m.byType {
		if gs == nil {
			continue
		}
		s, err := chooseSelection(target, gs, p)
		if hasMsg(err) {
			return nil, err
		}
		if err == nil {
			results = append(results, s)
		}
	}
	if len(results) > 0 {
		return minSelection(results), nil
	}
	if allowMixed && m.typesCount() > 1 {
		return chooseSelection(target, m.all(), p)
	}
	return nil, errNoSolution
}

// chooseSelection is Core's ChooseSelectionResult: every algorithm, the
// least waste winning.
func chooseSelection(target int64, gs *groups, p *Params) (*selection, error) {
	var results []*selection
	var errs []error
	note := func(s *selection, err error) {
		if err == nil {
			results = append(results, s)
		} else if hasMsg(err) {
			errs = append(errs, err)
		}
	}

	maxSel := p.maxTxWeight() - p.TxNoInputsSize*WitnessScaleFactor
	if maxSel <= 0 {
		return nil, newError(WeightBelowNoInputs)
	}
	// Changeless solutions and fees from the outputs do not mix well:
	// Core skips Branch and Bound then.
	if !p.SubtractFeeOutputs {
		note(selectBnB(gs.positive, target, p.CostOfChange, maxSel))
	}

	// The other algorithms may make change: leave room for it.
	maxSel -= p.ChangeOutputSize * WitnessScaleFactor
	if maxSel < 0 && len(results) == 0 {
		return nil, newError(WeightNoChange)
	}
	note(selectKnapsack(gs.mixed, target, p.MinChangeTarget, p.Rand, maxSel))
	if p.FeeRate > 3*p.LongTermFeeRate {
		s, err := selectCoinGrinder(gs.positive, target, p.MinChangeTarget, maxSel)
		if err == nil {
			s.recalculateWaste(p.MinViableChange, p.CostOfChange, p.ChangeFee)
		}
		note(s, err)
	}
	note(selectSRD(gs.positive, target, p.ChangeFee, p.Rand, maxSel))

	if len(results) == 0 {
		if len(errs) > 0 {
			return nil, errs[0]
		}
		return nil, errNoSolution
	}

	// Unconfirmed inputs sharing ancestors need less bumping together.
	for _, s := range results {
		var ops []wire.OutPoint
		var summed int64
		for _, x := range s.coins {
			if x.c.Depth > 0 {
				continue
			}
			ops = append(ops, x.c.OutPoint)
			summed += x.c.BumpFee
		}
		combined := summed
		if p.CombinedBumpFee != nil {
			v, ok := p.CombinedBumpFee(ops)
			if !ok {
				return nil, newError(BumpFeeCluster)
			}
			combined = v
		}
		s.bumpDiscount = summed - combined
		s.recalculateWaste(p.MinViableChange, p.CostOfChange, p.ChangeFee)
	}
	return minSelection(results), nil
}

func (s *selection) export(p *Params) *Selection {
	out := &Selection{
		Algorithm:      s.algo,
		Waste:          s.waste,
		Target:         s.target,
		Weight:         s.weight,
		Value:          s.selectedValue(),
		EffectiveValue: s.selectedEffectiveValue(),
		BumpFees:       s.totalBumpFees(),
		Change:         s.change(p.MinViableChange, p.ChangeFee),
		Complete:       s.completed,
	}
	// Preset coins first, in the caller's order, then the selected ones by
	// outpoint.
	var pre, sel []Coin
	for _, x := range s.coins {
		if x.preset {
			pre = append(pre, *x.c)
		} else {
			sel = append(sel, *x.c)
		}
	}
	sort.Slice(sel, func(i, j int) bool {
		a, b := sel[i].OutPoint, sel[j].OutPoint
		if a.Hash != b.Hash {
			return string(a.Hash[:]) < string(b.Hash[:])
		}
		return a.Index < b.Index
	})
	out.Coins = append(pre, sel...)
	return out
}

// seedRand is a helper for callers and tests: a *rand.Rand from a seed.
func seedRand(seed uint64) *rand.Rand {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	return rand.New(rand.NewChaCha8(b))
}
