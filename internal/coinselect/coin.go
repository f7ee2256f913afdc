package coinselect

import (
	"bytes"
	"sort"

	"github.com/btcsuite/btcd/wire/v2"
)

// OutputType is the address type of a coin, in Core's OutputType order;
// selection first tries each type on its own. P2SHSegwit, Bech32 and
// Bech32m coins are spent with a witness; Legacy and UnknownType ones
// without.
type OutputType int

// The output types, in Core's order (which decides ties between types).
const (
	Legacy OutputType = iota
	P2SHSegwit
	Bech32
	Bech32m
	UnknownType
)

// Coin is a candidate input as the wallet sees it.
type Coin struct {
	OutPoint wire.OutPoint
	Value    int64
	PkScript []byte
	Type     OutputType
	// InputWeight is the weight of the signed input in a transaction with
	// witnesses, as Core's MaxInputWeight counts it (see InputWeight); Fund
	// takes the empty witness counts off again when no input has a witness.
	// Zero or less means the wallet cannot size it: such a coin is not a
	// candidate, and as a preset input it is "Not solvable".
	InputWeight int
	// Depth is the number of confirmations, 0 in the mempool.
	Depth int
	// FromMe: the transaction creating the coin spent only our coins
	// (change), which makes it eligible with fewer confirmations.
	FromMe bool
	// Safe is Core's "safe" flag; unsafe coins are only used with
	// IncludeUnsafe.
	Safe bool
	// Ancestors and Descendants are the unconfirmed ancestry counts of the
	// creating transaction, as the mempool reports them.
	Ancestors, Descendants int
	// BumpFee is the fee needed to bring unconfirmed ancestors up to the
	// target fee rate (Core's calculateIndividualBumpFees).
	BumpFee int64
}

// coin is a Coin with its fees at the selection's rates.
type coin struct {
	c          *Coin
	inputBytes int
	fee        int64 // input fee plus ancestor bump fee
	ltFee      int64
	effValue   int64
	preset     bool
}

func newCoin(c *Coin, p *Params) coin {
	x := coin{c: c, inputBytes: -1}
	if c.InputWeight > 0 {
		x.inputBytes = vsizeOf(c.InputWeight)
		x.fee = p.FeeRate.Fee(x.inputBytes)
		x.ltFee = p.LongTermFeeRate.Fee(x.inputBytes)
	}
	x.fee += c.BumpFee
	x.effValue = c.Value - x.fee
	return x
}

// group is Core's OutputGroup.
type group struct {
	coins       []*coin
	fromMe      bool
	value       int64
	depth       int
	ancestors   int
	descendants int
	effValue    int64
	fee         int64
	ltFee       int64
	sffo        bool
	weight      int
	sel         int64 // amount(): value with sffo, else effective value
}

func newGroup(p *Params) *group {
	return &group{fromMe: true, depth: 999, sffo: p.SubtractFeeOutputs}
}

func (g *group) insert(x *coin) {
	g.coins = append(g.coins, x)
	g.fee += x.fee
	g.ltFee += x.ltFee
	g.effValue += x.effValue
	g.fromMe = g.fromMe && x.c.FromMe
	g.value += x.c.Value
	g.depth = min(g.depth, x.c.Depth)
	// Ancestors add up (an overestimate when they share some);
	// descendants are counted from the top ancestor, so the largest.
	g.ancestors += x.c.Ancestors
	g.descendants = max(g.descendants, x.c.Descendants)
	if x.inputBytes > 0 {
		g.weight += x.inputBytes * WitnessScaleFactor
	}
	g.sel = g.effValue
	if g.sffo {
		g.sel = g.value
	}
}

// amount is Core's GetSelectionAmount.
func (g *group) amount() int64 { return g.sel }

func (g *group) eligible(f filter) bool {
	conf := f.confTheirs
	if g.fromMe {
		conf = f.confMine
	}
	return g.depth >= conf && uint64(g.ancestors) <= f.maxAncestors &&
		uint64(g.descendants) <= f.maxDescendants
}

// filter is Core's CoinEligibilityFilter.
type filter struct {
	confMine, confTheirs         int
	maxAncestors, maxDescendants uint64
	includePartial               bool
	allowMixed                   bool
}

// groups is Core's Groups: the positive-only and mixed pools.
type groups struct {
	positive []*group
	mixed    []*group
}

// typeMap is Core's OutputGroupTypeMap for one filter. The pools of all
// types together are built when first needed: most selections succeed
// within one type.
type typeMap struct {
	byType [UnknownType + 1]*groups
	cands  []candidateGroup
	f      filter
	aps    bool
}

// placement is where Core's Push puts a candidate group under a filter:
// its type, and whether in the positive and the mixed pools.
func placement(c candidateGroup, f filter, aps bool) (t OutputType, positive, mixed, ok bool) {
	if len(c.g.coins) == 0 || !accepts(c, f) {
		return 0, false, false, false
	}
	t = c.t
	if t < 0 || t > UnknownType {
		t = UnknownType
	}
	positive, mixed = true, true
	if aps {
		positive, mixed = c.positive, !c.positive
	}
	return t, positive && c.g.amount() > 0, mixed, true
}

// all is Core's all_groups: every type's groups, in insertion order.
func (m *typeMap) all() *groups {
	all := &groups{}
	for _, c := range m.cands {
		if _, positive, mixed, ok := placement(c, m.f, m.aps); ok {
			if positive {
				all.positive = append(all.positive, c.g)
			}
			if mixed {
				all.mixed = append(all.mixed, c.g)
			}
		}
	}
	return all
}

func (m *typeMap) typesCount() int {
	n := 0
	for _, g := range m.byType {
		if g != nil {
			n++
		}
	}
	return n
}

// candidateGroup is a group with what the filters need to place it.
type candidateGroup struct {
	g        *group
	t        OutputType
	partial  bool // the last, not full, group of a script that has others
	positive bool // from the positive-only grouping
}

// groupOutputs is Core's GroupOutputs before the filters: every group
// with its type, in Core's order.
func groupOutputs(coins []*coin, p *Params) []candidateGroup {
	if !p.AvoidPartialSpends {
		// One group a coin, allocated together.
		out := make([]candidateGroup, len(coins))
		gs := make([]group, len(coins))
		members := make([]*coin, len(coins))
		for i, x := range coins {
			g := &gs[i]
			*g = group{fromMe: true, depth: 999, sffo: p.SubtractFeeOutputs}
			members[i] = x
			g.coins = members[i : i : i+1]
			g.insert(x)
			out[i] = candidateGroup{g: g, t: x.c.Type, positive: true}
		}
		return out
	}
	// Group by (scriptPubKey, type), at most OutputGroupMaxEntries coins a
	// group; the positive-only pass groups the coins of positive
	// effective value again on their own. Each coin's script is hashed
	// once: keyOf numbers the (script, type) keys, shared by both passes.
	type key struct {
		spk  []byte
		t    OutputType
		next int32 // the next key with the same script, or -1
	}
	keys := make([]key, 0, 64)
	keyOf := make([]int32, len(coins))
	byScript := make(map[string]int32, 64)
	for i, x := range coins {
		k, ok := byScript[string(x.c.PkScript)]
		if !ok {
			k = int32(len(keys))
			byScript[string(x.c.PkScript)] = k
			keys = append(keys, key{spk: x.c.PkScript, t: x.c.Type, next: -1})
		}
		for keys[k].t != x.c.Type {
			if keys[k].next < 0 {
				keys[k].next = int32(len(keys))
				keys = append(keys, key{spk: x.c.PkScript, t: x.c.Type, next: -1})
			}
			k = keys[k].next
		}
		keyOf[i] = k
	}
	// Core walks a std::map keyed by (CScript, type): scripts compare by
	// length, then bytes.
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := &keys[order[i]], &keys[order[j]]
		if len(a.spk) != len(b.spk) {
			return len(a.spk) < len(b.spk)
		}
		if c := bytes.Compare(a.spk, b.spk); c != 0 {
			return c < 0
		}
		return a.t < b.t
	})
	// The groups of both passes come from one slab (a pass makes at most
	// len(keys) + len(coins)/OutputGroupMaxEntries groups), their members
	// from one array a pass: each key's coins take a run of it, cut into
	// groups of at most OutputGroupMaxEntries, so no group regrows.
	start := make([]int32, len(keys)+1)
	for _, k := range keyOf {
		start[k+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	slab := make([]group, 0, 2*(len(keys)+len(coins)/OutputGroupMaxEntries))
	newG := func() *group {
		if len(slab) == cap(slab) {
			return newGroup(p)
		}
		slab = append(slab, group{fromMe: true, depth: 999, sffo: p.SubtractFeeOutputs})
		return &slab[len(slab)-1]
	}
	perKey := make([][]*group, len(keys))
	used := make([]int32, len(keys))
	out := make([]candidateGroup, 0, 2*len(keys))
	build := func(positiveOnly bool) {
		clear(perKey)
		clear(used)
		members := make([]*coin, len(coins))
		for i, x := range coins {
			if positiveOnly && x.effValue <= 0 {
				continue
			}
			k := keyOf[i]
			gs := perKey[k]
			if len(gs) == 0 || len(gs[len(gs)-1].coins) >= OutputGroupMaxEntries {
				g := newG()
				lo := start[k] + used[k]
				hi := min(lo+OutputGroupMaxEntries, start[k+1])
				g.coins = members[lo:lo:hi]
				gs = append(gs, g)
				perKey[k] = gs
			}
			gs[len(gs)-1].insert(x)
			used[k]++
		}
		for _, k := range order {
			gs := perKey[k]
			// Backwards, so the partial group comes first.
			for i := len(gs) - 1; i >= 0; i-- {
				out = append(out, candidateGroup{g: gs[i], t: keys[k].t,
					partial: i == len(gs)-1 && len(gs) > 1, positive: positiveOnly})
			}
		}
	}
	build(false)
	build(true)
	return out
}

// typeMapFor places the candidate groups a filter accepts, as Core's
// FilteredOutputGroups entry for that filter: counted first, so that each
// pool is allocated once.
func typeMapFor(cands []candidateGroup, f filter, aps bool) *typeMap {
	m := &typeMap{cands: cands, f: f, aps: aps}
	var nPos, nMix [UnknownType + 1]int
	var seen [UnknownType + 1]bool
	for _, c := range cands {
		if t, positive, mixed, ok := placement(c, f, aps); ok {
			seen[t] = true
			if positive {
				nPos[t]++
			}
			if mixed {
				nMix[t]++
			}
		}
	}
	for t := range m.byType {
		if seen[t] {
			m.byType[t] = &groups{positive: make([]*group, 0, nPos[t]), mixed: make([]*group, 0, nMix[t])}
		}
	}
	for _, c := range cands {
		if t, positive, mixed, ok := placement(c, f, aps); ok {
			gs := m.byType[t]
			if positive {
				gs.positive = append(gs.positive, c.g)
			}
			if mixed {
				gs.mixed = append(gs.mixed, c.g)
			}
		}
	}
	return m
}

func accepts(c candidateGroup, f filter) bool {
	if !c.g.eligible(f) {
		return false
	}
	return !c.partial || f.includePartial
}
