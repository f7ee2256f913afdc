package wallet

import (
	"context"
	"fmt"
	"strings"
)

// FeeMode is an estimate_mode (Core's FeeEstimateMode of the wallet
// calls).
type FeeMode int

// The estimate modes, in Core's order.
const (
	FeeModeUnset FeeMode = iota
	FeeModeEconomical
	FeeModeConservative
)

var feeModeNames = []string{"unset", "economical", "conservative"}

// FeeModeFromString reads an estimate_mode, case-insensitively, as Core's
// FeeModeFromString.
func FeeModeFromString(s string) (FeeMode, bool) {
	for i, n := range feeModeNames {
		if strings.EqualFold(n, s) {
			return FeeMode(i), true
		}
	}
	return 0, false
}

// InvalidEstimateModeMessage is Core's message for an unknown
// estimate_mode.
const InvalidEstimateModeMessage = `Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"`

// FeeRequest is what a spending call asked of the fee (Core's coin-control
// fee fields): an explicit rate, or a confirmation target and mode.
type FeeRequest struct {
	// FeeRate is an explicit rate in satoshis per 1000 vbytes; nil means
	// none given.
	FeeRate *int64
	// Override skips the minimum checks for FeeRate (Core's
	// fOverrideFeeRate).
	Override bool
	// ConfTarget is a confirmation target; nil means the wallet's
	// -txconfirmtarget.
	ConfTarget *int
	Mode       FeeMode
	// SignalRBF is the call's replaceable choice; nil means -walletrbf.
	SignalRBF *bool
}

// FeeReason tells where a fee rate came from (Core's FeeReason, the ones
// the wallet produces).
type FeeReason int

// The reasons.
const (
	FeeReasonPayTxFee FeeReason = iota
	FeeReasonEstimate
	FeeReasonFallback
	FeeReasonMempoolMin
	FeeReasonRequired
)

// FeeSource is what fee estimation needs of the chain backend: bitcoind's
// estimatesmartfee, or btcd's estimatefee (which has no modes), and the
// mempool's minimum rate. Rates are satoshis per 1000 vbytes.
type FeeSource interface {
	// EstimateFee returns the estimate for confirmation within blocks,
	// 0 or less when the backend has none.
	EstimateFee(ctx context.Context, blocks int, conservative bool) (int64, error)
	// MempoolMinFee returns the backend mempool's minimum fee rate.
	MempoolMinFee(ctx context.Context) (int64, error)
}

// RequiredFeeRate is Core's GetRequiredFeeRate: the larger of -mintxfee
// and the relay minimum.
func (o *Options) RequiredFeeRate() int64 { return max(o.MinTxFee, o.MinRelayFee) }

// MinimumFeeRate is Core's GetMinimumFeeRate: the explicit rate, else the
// wallet's settxfee/-paytxfee rate when no target was given, else the
// backend's estimate for the target (the call's or -txconfirmtarget;
// conservative unless the transaction signals replaceability or the mode
// says otherwise), falling back to -fallbackfee (returned as is when that
// is 0) and raised to the mempool minimum; in every case but an overriding
// explicit rate, raised to the required rate.
func (o *Options) MinimumFeeRate(ctx context.Context, src FeeSource, payTxFee int64, req FeeRequest) (int64, FeeReason, error) {
	var rate int64
	var reason FeeReason
	switch {
	case req.FeeRate != nil:
		rate, reason = *req.FeeRate, FeeReasonPayTxFee
		if req.Override {
			return rate, reason, nil
		}
	case req.ConfTarget == nil && payTxFee != 0:
		rate, reason = payTxFee, FeeReasonPayTxFee
	default:
		target := o.TxConfirmTarget
		if req.ConfTarget != nil {
			target = *req.ConfTarget
		}
		rbf := o.WalletRBF
		if req.SignalRBF != nil {
			rbf = *req.SignalRBF
		}
		conservative := !rbf
		switch req.Mode {
		case FeeModeConservative:
			conservative = true
		case FeeModeEconomical:
			conservative = false
		}
		reason = FeeReasonEstimate
		if src != nil {
			est, err := src.EstimateFee(ctx, target, conservative)
			if err != nil {
				return 0, 0, err
			}
			rate = max(est, 0)
		}
		if rate == 0 {
			rate, reason = o.FallbackFee, FeeReasonFallback
			if o.FallbackFee == 0 {
				return 0, reason, nil
			}
		}
		if src != nil {
			minPool, err := src.MempoolMinFee(ctx)
			if err != nil {
				return 0, 0, err
			}
			if rate < minPool {
				rate, reason = minPool, FeeReasonMempoolMin
			}
		}
	}
	if req := o.RequiredFeeRate(); req > rate {
		rate, reason = req, FeeReasonRequired
	}
	return rate, reason, nil
}

// FormatSatVB writes a fee rate per 1000 vbytes in sat/vB as Core's
// CFeeRate::ToString(SAT_VB) does ("1.000 sat/vB").
func FormatSatVB(perKvB int64) string {
	sign := ""
	if perKvB < 0 {
		sign, perKvB = "-", -perKvB
	}
	return fmt.Sprintf("%s%d.%03d sat/vB", sign, perKvB/1000, perKvB%1000)
}

// FeeRateForSpend is the fee-rate step of Core's CreateTransaction: the
// minimum fee rate, refused (ErrWallet, Core's messages) when it is above
// an explicit rate the call gave, or when it had to fall back while
// -fallbackfee is 0. Spending calls give these errors their own codes.
func (o *Options) FeeRateForSpend(ctx context.Context, src FeeSource, payTxFee int64, req FeeRequest) (int64, error) {
	rate, reason, err := o.MinimumFeeRate(ctx, src, payTxFee, req)
	if err != nil {
		return 0, err
	}
	if req.FeeRate != nil && rate > *req.FeeRate {
		return 0, walletErr(ErrWallet, fmt.Sprintf("Fee rate (%s) is lower than the minimum fee rate setting (%s)",
			FormatSatVB(*req.FeeRate), FormatSatVB(rate)))
	}
	if reason == FeeReasonFallback && !o.AllowFallbackFee() {
		return 0, walletErr(ErrWallet, "Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.")
	}
	return rate, nil
}
