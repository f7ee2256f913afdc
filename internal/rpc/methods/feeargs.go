package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// feeArgs reads the conf_target, estimate_mode and fee_rate arguments of a
// spending call as Core's SetFeeEstimateMode does, with its messages and
// in its order: fee_rate (sat/vB, at most 3 decimals) excludes the other
// two ("unset" aside); estimate_mode must be a known mode; conf_target
// must lie in [1, maxTarget]. Absent or null arguments are nil.
func feeArgs(confTarget, estimateMode, feeRate json.RawMessage, maxTarget int) (wallet.FeeRequest, error) {
	var req wallet.FeeRequest
	if !rpc.IsNull(feeRate) {
		if !rpc.IsNull(confTarget) {
			return req, rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both conf_target and fee_rate. "+
				"Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.")
		}
		if !rpc.IsNull(estimateMode) {
			mode, err := rpc.AsString(estimateMode)
			if err != nil {
				return req, err
			}
			if mode != "unset" {
				return req, rpc.NewError(rpc.CodeInvalidParameter, "Cannot specify both estimate_mode and fee_rate")
			}
		}
		rate, err := feeRateAmount(feeRate)
		if err != nil {
			return req, err
		}
		req.FeeRate = &rate
		// An explicit fee rate signals replaceability unless the call
		// said otherwise (the caller sets SignalRBF from its own
		// argument afterwards).
		t := true
		req.SignalRBF = &t
		return req, nil
	}
	if !rpc.IsNull(estimateMode) {
		mode, err := rpc.AsString(estimateMode)
		if err != nil {
			return req, err
		}
		m, ok := wallet.FeeModeFromString(mode)
		if !ok {
			return req, rpc.NewError(rpc.CodeInvalidParameter, wallet.InvalidEstimateModeMessage)
		}
		req.Mode = m
	}
	if !rpc.IsNull(confTarget) {
		n, err := rpc.AsInt(confTarget)
		if err != nil {
			return req, err
		}
		if n < 1 || n > maxTarget {
			return req, rpc.Errorf(rpc.CodeInvalidParameter, "Invalid conf_target, must be between %d and %d", 1, maxTarget)
		}
		req.ConfTarget = &n
	}
	return req, nil
}

// feeRateAmount reads a fee rate in sat/vB as Core's AmountFromValue with
// 3 decimals, giving satoshis per 1000 vbytes.
func feeRateAmount(raw json.RawMessage) (int64, error) {
	var text string
	switch rpc.JSONType(raw) {
	case "number":
		text = string(raw)
	case "string":
		s, err := rpc.AsString(raw)
		if err != nil {
			return 0, err
		}
		text = s
	default:
		return 0, rpc.NewError(rpc.CodeTypeError, "Amount is not a number or string")
	}
	v, ok := rpc.ParseFixedPoint(text, 3)
	if !ok {
		return 0, rpc.NewError(rpc.CodeTypeError, "Invalid amount")
	}
	if !rpc.Amount(v).MoneyRange() {
		return 0, rpc.NewError(rpc.CodeTypeError, "Amount out of range")
	}
	return v, nil
}

// backendFees gives the wallet's fee estimation the chain backend's
// figures: bitcoind's estimatesmartfee and mempool minimum, btcd's
// estimatefee (no modes) and its relay minimum. With no backend it has no
// estimate, so the wallet falls back to -fallbackfee as Core does on a
// node without fee data.
type backendFees struct{ b chain.Backend }

func (f backendFees) EstimateFee(ctx context.Context, blocks int, conservative bool) (int64, error) {
	if f.b == nil {
		return 0, nil
	}
	if f.b.Kind() != chain.KindBitcoind {
		return f.b.EstimateFee(ctx, blocks)
	}
	mode := "economical"
	if conservative {
		mode = "conservative"
	}
	params, _ := json.Marshal([]any{blocks, mode})
	raw, err := f.b.Call(ctx, "estimatesmartfee", params)
	if err != nil {
		return 0, err
	}
	var res struct {
		FeeRate json.RawMessage `json:"feerate"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || rpc.IsNull(res.FeeRate) {
		return 0, nil
	}
	a, err := rpc.AsAmount(res.FeeRate)
	if err != nil {
		return 0, nil
	}
	return int64(a), nil
}

func (f backendFees) MempoolMinFee(ctx context.Context) (int64, error) {
	if f.b == nil || f.b.Kind() != chain.KindBitcoind {
		return btcdRelayFee, nil
	}
	raw, err := f.b.Call(ctx, "getmempoolinfo", json.RawMessage("[]"))
	if err != nil {
		return 0, err
	}
	var res struct {
		MinFee json.RawMessage `json:"mempoolminfee"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return btcdRelayFee, nil
	}
	a, err := rpc.AsAmount(res.MinFee)
	if err != nil {
		return btcdRelayFee, nil
	}
	return int64(a), nil
}

// feeSource returns the fee figures of the node's backend.
func feeSource(d *Deps) wallet.FeeSource {
	if d.Chain == nil {
		return backendFees{}
	}
	return backendFees{d.Chain.Backend()}
}
