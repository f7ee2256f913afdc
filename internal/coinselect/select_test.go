package coinselect

import (
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"
)

const btc = 100000000

func wpkhCoin(i int, value int64, depth int, fromMe bool) Coin {
	c := Coin{Value: value, PkScript: append([]byte(nil), wpkhScript...), Type: Bech32,
		InputWeight: inputWeights[0], Depth: depth, FromMe: fromMe, Safe: true}
	c.OutPoint.Hash[0], c.OutPoint.Hash[1] = byte(i), byte(i>>8)
	c.OutPoint.Index = uint32(i)
	c.PkScript[2] = byte(i)
	c.PkScript[3] = byte(i >> 8)
	return c
}

func payRequest(amount int64, coins ...Coin) *Request {
	return &Request{
		Options:          DefaultOptions(),
		Recipients:       []Recipient{{Value: amount, PkScript: trScript}},
		ChangeScript:     wpkhScript,
		ChangeSpendSize:  68,
		FeeRate:          2000,
		LongTermFeeRate:  DefaultConsolidateFeeRate,
		DiscardFeeRate:   DefaultDiscardFeeRate,
		DustRelayFeeRate: DefaultDustRelayFeeRate,
		Available:        coins,
		AllowOtherInputs: true,
	}
}

func fundWith(t *testing.T, req *Request, seed uint64) (*Funding, error) {
	t.Helper()
	req.Rand = seedRand(seed)
	return Fund(req)
}

func outpoints(cs []Coin) map[wire.OutPoint]bool {
	m := map[wire.OutPoint]bool{}
	for _, c := range cs {
		m[c.OutPoint] = true
	}
	return m
}

// TestEligibilityLadder walks Core's filters: deep coins first, then one
// confirmation, unconfirmed change with -spendzeroconfchange, unsafe coins
// with include_unsafe, long chains never (unless not rejected).
func TestEligibilityLadder(t *testing.T) {
	deep := wpkhCoin(1, btc, 6, false)
	oneConf := wpkhCoin(2, btc, 1, false)
	change := wpkhCoin(3, btc, 0, true)
	change.Ancestors, change.Descendants = 1, 1
	foreign := wpkhCoin(4, btc, 0, false)
	foreign.Safe = false
	long := wpkhCoin(5, btc, 0, true)
	long.Ancestors, long.Descendants = 30, 30

	tests := []struct {
		name  string
		coins []Coin
		opt   func(*Options)
		want  int // index into coins of the coin spent, -1: error
		err   Kind
	}{
		{"deep preferred", []Coin{oneConf, deep}, nil, 1, ""},
		{"one confirmation", []Coin{oneConf}, nil, 0, ""},
		{"unconfirmed change", []Coin{change}, nil, 0, ""},
		{"unconfirmed change refused", []Coin{change}, func(o *Options) { o.SpendZeroConfChange = false }, -1, InsufficientFunds},
		{"confirmed before change", []Coin{change, oneConf}, nil, 1, ""},
		{"unsafe refused", []Coin{foreign}, nil, -1, InsufficientFunds},
		{"unsafe allowed", []Coin{foreign}, func(o *Options) { o.IncludeUnsafe = true }, 0, ""},
		{"long chain", []Coin{long}, nil, -1, LongChain},
		{"long chain allowed", []Coin{long}, func(o *Options) { o.RejectLongChains = false }, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := payRequest(btc/2, tc.coins...)
			if tc.opt != nil {
				tc.opt(&req.Options)
			}
			f, err := fundWith(t, req, 1)
			if tc.want < 0 {
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, want %v", err, tc.err)
				}
				if err.Error() != kindMessages[tc.err] {
					t.Fatalf("message %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Coins) != 1 || f.Coins[0].OutPoint != tc.coins[tc.want].OutPoint {
				t.Fatalf("spent %v, want coin %d", f.Coins, tc.want)
			}
		})
	}
}

// TestAvoidPartialSpends: coins to one script go together, at most 100 a
// group, and the partial group only with the looser filters.
func TestAvoidPartialSpends(t *testing.T) {
	var coins []Coin
	for i := range 150 {
		c := wpkhCoin(i, 10000, 10, false)
		c.PkScript = wpkhScript // all to one address
		coins = append(coins, c)
	}
	req := payRequest(600000, coins...)
	req.AvoidPartialSpends = true
	f, err := fundWith(t, req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Coins) != 100 {
		t.Fatalf("spent %d coins, want the full group of 100", len(f.Coins))
	}

	// Without grouping fewer coins do (above the long-term rate, where
	// more inputs are more waste).
	req.AvoidPartialSpends = false
	req.FeeRate = 20000
	if f, err = fundWith(t, req, 2); err != nil || len(f.Coins) >= 100 {
		t.Fatalf("without grouping: %v, %d coins", err, len(f.Coins))
	}

	// Two coins to one address and one elsewhere: paying from the pair
	// spends both.
	a, b, c := wpkhCoin(1, btc, 10, false), wpkhCoin(2, btc, 10, false), wpkhCoin(3, 3*btc, 10, false)
	b.PkScript = a.PkScript
	req = payRequest(btc/2, a, b, c)
	req.AvoidPartialSpends = true
	for seed := range uint64(20) {
		f, err := fundWith(t, req, seed)
		if err != nil {
			t.Fatal(err)
		}
		got := outpoints(f.Coins)
		if got[a.OutPoint] != got[b.OutPoint] {
			t.Fatalf("seed %d: spent one of two coins to the same address", seed)
		}
	}
}

func TestPresetInputs(t *testing.T) {
	pre := wpkhCoin(1, btc, 0, false)
	other := wpkhCoin(2, 5*btc, 10, false)

	req := payRequest(2*btc, other)
	req.Preset = []Coin{pre}
	req.AllowOtherInputs = false
	_, err := fundWith(t, req, 1)
	if !errors.Is(err, PresetInsufficient) || !strings.HasPrefix(err.Error(), "The preselected coins total amount does not cover") {
		t.Fatalf("got %v", err)
	}

	req.AllowOtherInputs = true
	f, err := fundWith(t, req, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Coins) != 2 || f.Coins[0].OutPoint != pre.OutPoint || f.Algorithm == Manual {
		t.Fatalf("got %v by %v", f.Coins, f.Algorithm)
	}

	req = payRequest(btc/2, other)
	req.Preset = []Coin{pre}
	f, err = fundWith(t, req, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Coins) != 1 || f.Coins[0].OutPoint != pre.OutPoint || f.Algorithm != Manual {
		t.Fatalf("got %v by %v", f.Coins, f.Algorithm)
	}

	bad := pre
	bad.InputWeight = 0
	bad.OutPoint.Hash = [32]byte{31: 0xab, 30: 0xcd}
	bad.OutPoint.Index = 7
	req.Preset = []Coin{bad}
	_, err = fundWith(t, req, 1)
	if !errors.Is(err, NotSolvable) || err.Error() != "Not solvable pre-selected input COutPoint(abcd000000, 7)" {
		t.Fatalf("got %v", err)
	}
}

func TestFundErrors(t *testing.T) {
	many := func(n int, value int64) []Coin {
		var cs []Coin
		for i := range n {
			cs = append(cs, wpkhCoin(i, value, 10, false))
		}
		return cs
	}
	tests := []struct {
		name string
		req  *Request
		edit func(*Request)
		kind Kind
		msg  string
	}{
		{"insufficient", payRequest(2*btc, many(1, btc)...), nil, InsufficientFunds, "Insufficient funds"},
		{"max weight range", payRequest(btc, many(2, btc)...), func(r *Request) { r.MaxTxWeight = 259 }, MaxTxWeightRange,
			"Maximum transaction weight must be between 260 and 400000"},
		{"dust payment", payRequest(293, many(1, btc)...), func(r *Request) { r.Recipients[0].PkScript = wpkhScript }, AmountTooSmall, ""},
		{"nothing to pay", payRequest(0, many(1, btc)...), func(r *Request) {
			r.Recipients[0].PkScript = []byte{0x6a}
			r.FeeRate = 0
		}, ZeroTarget, ""},
		{"max fee", payRequest(btc/2, many(1, btc)...), func(r *Request) { r.MaxTxFee = 100 }, MaxFeeExceeded,
			"Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)"},
		{"max weight", payRequest(btc/2, many(100, btc/100)...), func(r *Request) { r.MaxTxWeight = 4000 }, MaxWeightExceeded,
			"The inputs size exceeds the maximum weight. Please try sending a smaller amount or manually consolidating your wallet's UTXOs"},
		{"no room for change", payRequest(btc/2, many(3, btc)...), func(r *Request) {
			for range 9 {
				r.Recipients = append(r.Recipients, Recipient{Value: btc / 100, PkScript: wpkhScript})
			}
			r.MaxTxWeight = 4*(10+1+43+9*31) + 40
		}, WeightNoChange, "Maximum transaction weight is too low, can not accommodate change output"},
		{"fee eats output", payRequest(400, many(1, btc)...), func(r *Request) {
			r.Recipients[0].SubtractFee = true
			r.FeeRate = 100000
		}, TooSmallToPayFee, "The transaction amount is too small to pay the fee"},
		{"output dust after fee", payRequest(15500, many(1, btc)...), func(r *Request) {
			r.Recipients[0].SubtractFee = true
			r.FeeRate = 100000
		}, TooSmallAfterFee, "The transaction amount is too small to send after the fee has been deducted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit != nil {
				tc.edit(tc.req)
			}
			_, err := fundWith(t, tc.req, 3)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, want kind %s", err, tc.kind)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Fatalf("message %q, want %q", err, tc.msg)
			}
		})
	}
}

func TestGenerateChangeTarget(t *testing.T) {
	r := seedRand(5)
	if got := GenerateChangeTarget(25000, 310, r); got != 50310 {
		t.Fatalf("small payment: %d", got)
	}
	for range 2000 {
		pay := 25001 + r.Int64N(2*btc)
		got := GenerateChangeTarget(pay, 310, r)
		upper := min(2*pay, ChangeUpper)
		if got < 310+ChangeLower || got >= 310+upper {
			t.Fatalf("payment %d: target %d outside [%d, %d)", pay, got, 310+ChangeLower, 310+upper)
		}
	}
}

// TestCoinGrinderRateThreshold: CoinGrinder runs only above three times
// the long-term fee rate.
func TestCoinGrinderRateThreshold(t *testing.T) {
	r := seedRand(7)
	cg := map[FeeRate]int{}
	for _, rate := range []FeeRate{30000, 30001} {
		for i := range 300 {
			var coins []Coin
			for j := range 20 {
				coins = append(coins, wpkhCoin(j, 20000+r.Int64N(btc/10), 10, false))
			}
			req := payRequest(100000+r.Int64N(btc/20), coins...)
			req.FeeRate = rate
			f, err := fundWith(t, req, uint64(i))
			if err == nil && f.Algorithm == CoinGrinder {
				cg[rate]++
			}
		}
	}
	if cg[30000] != 0 || cg[30001] == 0 {
		t.Fatalf("CoinGrinder results at 3x and just above: %v", cg)
	}
}

// TestWasteTieBreak: equal waste goes to more inputs, then to the earlier
// algorithm.
func TestWasteTieBreak(t *testing.T) {
	one := &selection{waste: 10, coins: make([]*coin, 1), algo: BnB}
	two := &selection{waste: 10, coins: make([]*coin, 2), algo: Knapsack}
	twoLater := &selection{waste: 10, coins: make([]*coin, 2), algo: SRD}
	less := &selection{waste: 9, coins: make([]*coin, 1), algo: CoinGrinder}
	if got := minSelection([]*selection{one, two, twoLater}); got != two {
		t.Fatalf("picked %v", got.algo)
	}
	if got := minSelection([]*selection{one, two, less}); got != less {
		t.Fatalf("picked %v", got.algo)
	}
}

// TestFundLegacySize: a transaction spending only legacy coins has no
// witness marker nor witness counts, as Core sizes it: one P2PKH input
// and two P2WPKH outputs are 220 vbytes.
func TestFundLegacySize(t *testing.T) {
	c := wpkhCoin(1, btc, 10, false)
	c.Type, c.PkScript, c.InputWeight = Legacy, pkhScript, InputWeight(4*107, 2, false)
	req := payRequest(btc/2, c)
	req.Recipients[0].PkScript = wpkhScript
	req.FeeRate = 1000
	f, err := fundWith(t, req, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.VSize != 220 || f.Weight != 880 || f.Fee != 220 || f.Change == 0 {
		t.Fatalf("vsize %d weight %d fee %d change %d", f.VSize, f.Weight, f.Fee, f.Change)
	}

	// With a P2WPKH input beside it the legacy input gets its empty
	// witness count, and the marker is there.
	w := wpkhCoin(2, btc/100, 10, false)
	req = payRequest(btc/2, c)
	req.Preset = []Coin{w}
	req.Recipients[0].PkScript = wpkhScript
	req.FeeRate = 1000
	f, err = fundWith(t, req, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Coins) != 2 || f.Weight != 4*(4+4+1+1+31+31)+2+InputWeight(4*107, 2, false)+InputWeight(107, 2, true) {
		t.Fatalf("mixed: %d inputs, weight %d", len(f.Coins), f.Weight)
	}
}
