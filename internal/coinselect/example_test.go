package coinselect_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/descwallet/descwallet/internal/coinselect"
)

// The wallet passes its spendable coins, each with the signed input weight
// its descriptor gives, and the payment; Fund chooses the inputs, the
// change and the fee as Core would.
func ExampleFund() {
	wpkh := func(b byte) []byte { return append([]byte{0x00, 0x14, b}, make([]byte, 19)...) }
	// A P2WPKH input: 107 witness bytes in 2 elements.
	weight := coinselect.InputWeight(107, 2, true)

	var coins []coinselect.Coin
	for i, v := range []int64{20000, 150000, 700000, 1200000} {
		c := coinselect.Coin{Value: v, PkScript: wpkh(byte(i)), Type: coinselect.Bech32,
			InputWeight: weight, Depth: 10, Safe: true}
		c.OutPoint.Index = uint32(i)
		coins = append(coins, c)
	}

	req := &coinselect.Request{
		Options:          coinselect.DefaultOptions(),
		Recipients:       []coinselect.Recipient{{Value: 500000, PkScript: wpkh(0xaa)}},
		ChangeScript:     wpkh(0xcc),
		ChangeSpendSize:  (weight + 3) / 4,
		FeeRate:          5000, // 5 sat/vB: below the long-term rate, so spending more inputs now saves
		LongTermFeeRate:  coinselect.DefaultConsolidateFeeRate,
		DiscardFeeRate:   coinselect.DefaultDiscardFeeRate,
		DustRelayFeeRate: coinselect.DefaultDustRelayFeeRate,
		Available:        coins,
		AllowOtherInputs: true,
	}
	req.Rand = rand.New(rand.NewPCG(1, 2))
	f, err := coinselect.Fund(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d input(s), change %d, fee %d for %d vB\n", len(f.Coins), f.Change, f.Fee, f.VSize)
	fmt.Println(f.Value == f.Amounts[0]+f.Change+f.Fee, f.Fee >= req.FeeRate.Fee(f.VSize))
	// Output:
	// 2 input(s), change 848955, fee 1045 for 209 vB
	// true true
}
