package coinselect

import "math/rand/v2"

// Recipient is one payment of the transaction.
type Recipient struct {
	Value    int64
	PkScript []byte
	// SubtractFee takes this output's share of the fee from its amount
	// (subtract_fee_from_outputs).
	SubtractFee bool
}

// Request is what Fund needs: the payments, the change destination, the
// fee rates, the coins, and the wallet's options.
type Request struct {
	Options
	Recipients []Recipient
	// ChangeScript is the scriptPubKey change would pay to.
	ChangeScript []byte
	// ChangeSpendSize is the vsize of an input spending the change; zero
	// means the wallet cannot size it, and Core assumes a nested P2WPKH
	// input (91).
	ChangeSpendSize int
	// FeeRate is the target rate; LongTermFeeRate -consolidatefeerate;
	// DiscardFeeRate -discardfee (or the estimate Core takes); and
	// DustRelayFeeRate -dustrelayfee.
	FeeRate, LongTermFeeRate, DiscardFeeRate, DustRelayFeeRate FeeRate
	// MaxTxFee is -maxtxfee in satoshis; zero is Core's 0.1 BTC.
	MaxTxFee int64
	// MaxTxWeight is max_tx_weight; zero is MaxStandardTxWeight.
	MaxTxWeight int
	// Available are the wallet's candidate coins (ignored unless
	// AllowOtherInputs); Preset are the inputs the caller chose.
	Available, Preset []Coin
	// AllowOtherInputs is add_inputs: whether to select beyond Preset.
	AllowOtherInputs bool
}

// Funding is a funded transaction's inputs and amounts.
type Funding struct {
	Selection
	// Amounts are the recipients' amounts, after fee subtraction.
	Amounts []int64
	// Change is the change amount, 0 for none (overpayment included).
	Change int64
	// Fee is what the transaction pays: inputs minus outputs.
	Fee int64
	// Weight and VSize are the signed transaction's, estimated from the
	// inputs' weights (an upper bound).
	Weight, VSize int
	// Params are the selection parameters Fund derived.
	Params Params
}

// GenerateChangeTarget is Core's randomised change target: the change
// fee plus 50 000 sat for small payments, otherwise plus a random amount
// between 50 000 sat and the smaller of twice the payment and 1 000 000.
func GenerateChangeTarget(payment, changeFee int64, rng *rand.Rand) int64 {
	if payment <= ChangeLower/2 {
		return changeFee + ChangeLower
	}
	upper := min(payment*2, ChangeUpper)
	return changeFee + rng.Int64N(upper-ChangeLower) + ChangeLower
}

// Fund selects inputs for req and computes the change and the fee the way
// Core's CreateTransactionInternal does, up to building the transaction.
func Fund(req *Request) (*Funding, error) {
	p := Params{
		Options:         req.Options,
		FeeRate:         req.FeeRate,
		LongTermFeeRate: req.LongTermFeeRate,
		DiscardFeeRate:  req.DiscardFeeRate,
		MaxTxWeight:     req.MaxTxWeight,
	}
	rng := p.rng()
	maxWeight := p.maxTxWeight()
	if maxWeight < MinStandardTxNonWitnessSize*WitnessScaleFactor || maxWeight > MaxStandardTxWeight {
		return nil, newError(MaxTxWeightRange, MinStandardTxNonWitnessSize*WitnessScaleFactor, MaxStandardTxWeight)
	}

	// Version, locktime, input count and witness marker, then outputs.
	p.TxNoInputsSize = 10 + compactSize(len(req.Recipients))
	var sum int64
	nSubtract := 0
	outSizes := 0
	for _, r := range req.Recipients {
		if r.Value < DustThreshold(r.PkScript, req.DustRelayFeeRate) {
			return nil, newError(AmountTooSmall)
		}
		p.TxNoInputsSize += OutputSize(r.PkScript)
		outSizes += OutputSize(r.PkScript)
		sum += r.Value
		if r.SubtractFee {
			nSubtract++
			p.SubtractFeeOutputs = true
		}
	}

	// Change: its size, the cost of making and later spending it, the
	// random target and the smallest amount worth keeping.
	p.ChangeOutputSize = OutputSize(req.ChangeScript)
	p.ChangeSpendSize = req.ChangeSpendSize
	if p.ChangeSpendSize <= 0 {
		p.ChangeSpendSize = DummyNestedP2WPKHInputSize
	}
	p.ChangeFee = p.FeeRate.Fee(p.ChangeOutputSize)
	changeSpendFee := p.DiscardFeeRate.Fee(p.ChangeSpendSize)
	p.CostOfChange = changeSpendFee + p.ChangeFee
	var perRecipient int64
	if len(req.Recipients) > 0 {
		perRecipient = sum / int64(len(req.Recipients))
	}
	p.MinChangeTarget = GenerateChangeTarget(perRecipient, p.ChangeFee, rng)
	p.MinViableChange = max(changeSpendFee+1, DustThreshold(req.ChangeScript, p.DiscardFeeRate))

	notInputFees := p.FeeRate.Fee(p.TxNoInputsSize)
	if p.SubtractFeeOutputs {
		notInputFees = 0
	}
	target := sum + notInputFees
	if target == 0 && len(req.Preset) == 0 {
		return nil, newError(ZeroTarget)
	}

	var available []Coin
	if req.AllowOtherInputs {
		available = req.Available
	}
	sel, err := SelectCoins(available, req.Preset, target, req.AllowOtherInputs, &p)
	if err != nil {
		return nil, err
	}

	f := &Funding{Selection: *sel, Params: p, Change: sel.Change}
	f.Amounts = make([]int64, len(req.Recipients))
	for i, r := range req.Recipients {
		f.Amounts[i] = r.Value
	}

	// Size the signed transaction: the outputs, the inputs' own weights,
	// the counts and the witness marker.
	nOut := len(req.Recipients)
	base := 4 + 4 + compactSize(len(sel.Coins)) + outSizes
	if f.Change > 0 {
		nOut++
		base += p.ChangeOutputSize
	}
	base += compactSize(nOut)
	f.Weight = base * WitnessScaleFactor
	// Core's CalculateMaximumSignedTxSize: the segwit marker and flag,
	// and a witness count for every input, only when some input spends a
	// witness program; input weights count that byte, so a transaction of
	// legacy inputs only drops it again.
	segwit := false
	for _, c := range sel.Coins {
		segwit = segwit || c.Type == P2SHSegwit || c.Type == Bech32 || c.Type == Bech32m
	}
	if segwit {
		f.Weight += 2
	}
	for _, c := range sel.Coins {
		f.Weight += c.InputWeight
		if !segwit {
			f.Weight--
		}
	}
	f.VSize = vsizeOf(f.Weight)

	feeNeeded := p.FeeRate.Fee(f.VSize) + sel.BumpFees
	fee := sel.Value - sum - f.Change
	if fee < 0 {
		return nil, newError(Internal, "Fee paid < 0")
	}
	// Overpayment goes to the change. Core's estimate leaves out the
	// longer input count of 253 inputs or more; the change pays for that
	// too rather than failing.
	if f.Change > 0 && (feeNeeded < fee ||
		(!p.SubtractFeeOutputs && feeNeeded > fee && f.Change-(feeNeeded-fee) >= p.MinViableChange)) {
		f.Change += fee - feeNeeded
		fee = feeNeeded
	}

	// Subtract the fee from the chosen outputs, equally, the first paying
	// the remainder.
	if p.SubtractFeeOutputs {
		reduce := feeNeeded - fee
		first := true
		for i, r := range req.Recipients {
			if !r.SubtractFee {
				continue
			}
			f.Amounts[i] -= reduce / int64(nSubtract)
			if first {
				first = false
				f.Amounts[i] -= reduce % int64(nSubtract)
			}
			if f.Amounts[i] < DustThreshold(r.PkScript, req.DustRelayFeeRate) {
				if f.Amounts[i] < 0 {
					return nil, newError(TooSmallToPayFee)
				}
				return nil, newError(TooSmallAfterFee)
			}
		}
		fee = feeNeeded
	}
	if feeNeeded > fee {
		return nil, newError(Internal, "Fee needed > fee paid")
	}
	f.Fee = fee

	if f.Weight > MaxStandardTxWeight {
		return nil, newError(TxTooLarge)
	}
	// Selection leaves room for the outputs and a one-byte input count;
	// 253 inputs or more, or preset inputs with change, can still pass
	// max_tx_weight by a few units, which Core lets through.
	if f.Weight > maxWeight {
		return nil, newError(MaxWeightExceeded)
	}
	maxFee := req.MaxTxFee
	if maxFee == 0 {
		maxFee = DefaultMaxTxFee
	}
	if fee > maxFee {
		return nil, newError(MaxFeeExceeded)
	}
	return f, nil
}
