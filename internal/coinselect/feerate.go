package coinselect

import "github.com/descwallet/descwallet/internal/script"

// FeeRate is a fee rate in satoshis per 1000 virtual bytes, Core's CFeeRate
// built from a sat/kvB amount.
type FeeRate int64

// Fee is the fee for vbytes virtual bytes, rounded up as Core's
// CFeeRate::GetFee (EvaluateFeeUp) rounds.
func (r FeeRate) Fee(vbytes int) int64 {
	if r == 0 || vbytes <= 0 {
		return 0
	}
	n := int64(r) * int64(vbytes)
	if n <= 0 {
		return n / 1000
	}
	return (n + 999) / 1000
}

// Consensus and policy sizes Core's selection uses.
const (
	// WitnessScaleFactor is the weight of a non-witness byte.
	WitnessScaleFactor = 4
	// MaxStandardTxWeight is the largest standard transaction weight.
	MaxStandardTxWeight = 400000
	// MinStandardTxNonWitnessSize is the smallest standard transaction
	// without its witness.
	MinStandardTxNonWitnessSize = 65
	// TRUCChildMaxWeight bounds a version 3 child of an unconfirmed parent.
	TRUCChildMaxWeight = 1000 * WitnessScaleFactor
	// DummyNestedP2WPKHInputSize is the spend size Core assumes for change
	// it could not size.
	DummyNestedP2WPKHInputSize = 91
	// OutputGroupMaxEntries is the most coins one avoid-partial-spends
	// group holds.
	OutputGroupMaxEntries = 100
	// ChangeLower and ChangeUpper bound GenerateChangeTarget's random part.
	ChangeLower = 50000
	ChangeUpper = 1000000
	// totalTries bounds Branch and Bound and CoinGrinder.
	totalTries = 100000
	// maxMoney is Core's MAX_MONEY.
	maxMoney = 21000000 * 100000000
)

// Core's wallet defaults, in sat/kvB or satoshis.
const (
	DefaultConsolidateFeeRate FeeRate = 10000
	DefaultDiscardFeeRate     FeeRate = 10000
	DefaultDustRelayFeeRate   FeeRate = 3000
	DefaultMaxTxFee                   = 10000000 // 0.1 BTC
	DefaultAncestorLimit              = 25
	DefaultDescendantLimit            = 25
)

// compactSize is the serialized length of a CompactSize integer.
func compactSize(n int) int {
	switch {
	case n < 253:
		return 1
	case n <= 0xffff:
		return 3
	case n <= 0xffffffff:
		return 5
	}
	return 9
}

// OutputSize is the serialized size of an output paying to pkScript.
func OutputSize(pkScript []byte) int {
	return 8 + compactSize(len(pkScript)) + len(pkScript)
}

// DustThreshold is Core's GetDustThreshold: the value below which an
// output to pkScript costs more to spend at rate than it is worth.
func DustThreshold(pkScript []byte, rate FeeRate) int64 {
	if script.IsUnspendable(pkScript) {
		return 0
	}
	size := OutputSize(pkScript)
	if _, _, ok := script.IsWitnessProgram(pkScript); ok {
		size += 32 + 4 + 1 + 107/WitnessScaleFactor + 4
	} else {
		size += 32 + 4 + 1 + 107 + 4
	}
	return rate.Fee(size)
}

// InputWeight is the weight of a signed input spending an output whose
// descriptor has the given maximum satisfaction weight and element count
// (descriptor.MaxSatisfactionWeight, MaxSatisfactionElems), as Core's
// MaxInputWeight computes it for a transaction with witnesses: outpoint,
// sequence and scriptSig length, the witness stack count, the satisfaction.
func InputWeight(satWeight, satElems int, segwit bool) int {
	scriptSigLen := 1
	witStackLen := 1
	if segwit {
		witStackLen = compactSize(satElems)
	} else {
		scriptSigLen = compactSize(satWeight / WitnessScaleFactor)
	}
	return (32+4+4+scriptSigLen)*WitnessScaleFactor + witStackLen + satWeight
}

// vsizeOf is Core's GetVirtualTransactionSize for a weight.
func vsizeOf(weight int) int { return (weight + WitnessScaleFactor - 1) / WitnessScaleFactor }
