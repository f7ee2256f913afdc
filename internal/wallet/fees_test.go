package wallet_test

import (
	"context"
	"errors"
	"testing"

	"github.com/descwallet/descwallet/internal/wallet"
)

// fakeFees is a backend with a fixed estimate per mode and a mempool
// minimum; it records the last request.
type fakeFees struct {
	economical, conservative, minPool int64
	blocks                            int
	askedConservative                 bool
}

func (f *fakeFees) EstimateFee(_ context.Context, blocks int, conservative bool) (int64, error) {
	f.blocks, f.askedConservative = blocks, conservative
	if conservative {
		return f.conservative, nil
	}
	return f.economical, nil
}

func (f *fakeFees) MempoolMinFee(context.Context) (int64, error) { return f.minPool, nil }

func i64(v int64) *int64 { return &v }
func intp(v int) *int    { return &v }
func boolp(v bool) *bool { return &v }

// TestMinimumFeeRate follows Core's GetMinimumFeeRate precedence: explicit
// rate, then the wallet's paytxfee without a target, then the estimate for
// the call's or the wallet's target, the fallback, the mempool minimum and
// the required rate.
func TestMinimumFeeRate(t *testing.T) {
	ctx := context.Background()
	o := wallet.DefaultOptions()
	o.FallbackFee = 20000
	for _, c := range []struct {
		name       string
		src        *fakeFees
		pay        int64
		req        wallet.FeeRequest
		want       int64
		reason     wallet.FeeReason
		blocks     int
		conservate bool
	}{
		{"explicit", &fakeFees{economical: 5000}, 0, wallet.FeeRequest{FeeRate: i64(3000)}, 3000, wallet.FeeReasonPayTxFee, 0, false},
		{"explicit below required", &fakeFees{}, 0, wallet.FeeRequest{FeeRate: i64(500)}, 1000, wallet.FeeReasonRequired, 0, false},
		{"explicit overriding", &fakeFees{}, 0, wallet.FeeRequest{FeeRate: i64(500), Override: true}, 500, wallet.FeeReasonPayTxFee, 0, false},
		{"paytxfee", &fakeFees{economical: 5000}, 7000, wallet.FeeRequest{}, 7000, wallet.FeeReasonPayTxFee, 0, false},
		{"target beats paytxfee", &fakeFees{economical: 5000}, 7000, wallet.FeeRequest{ConfTarget: intp(3)}, 5000, wallet.FeeReasonEstimate, 3, false},
		{"wallet target, rbf economical", &fakeFees{economical: 5000, conservative: 9000}, 0, wallet.FeeRequest{}, 5000, wallet.FeeReasonEstimate, 6, false},
		{"no rbf conservative", &fakeFees{economical: 5000, conservative: 9000}, 0, wallet.FeeRequest{SignalRBF: boolp(false)}, 9000, wallet.FeeReasonEstimate, 6, true},
		{"mode overrides", &fakeFees{economical: 5000, conservative: 9000}, 0, wallet.FeeRequest{SignalRBF: boolp(false), Mode: wallet.FeeModeEconomical}, 5000, wallet.FeeReasonEstimate, 6, false},
		{"conservative mode", &fakeFees{economical: 5000, conservative: 9000}, 0, wallet.FeeRequest{Mode: wallet.FeeModeConservative}, 9000, wallet.FeeReasonEstimate, 6, true},
		{"fallback", &fakeFees{}, 0, wallet.FeeRequest{}, 20000, wallet.FeeReasonFallback, 6, false},
		{"mempool minimum", &fakeFees{economical: 2000, minPool: 4000}, 0, wallet.FeeRequest{}, 4000, wallet.FeeReasonMempoolMin, 6, false},
	} {
		got, reason, err := o.MinimumFeeRate(ctx, c.src, c.pay, c.req)
		if err != nil || got != c.want || reason != c.reason {
			t.Errorf("%s: got %d %v %v, want %d %v", c.name, got, reason, err, c.want, c.reason)
		}
		if c.blocks != 0 && (c.src.blocks != c.blocks || c.src.askedConservative != c.conservate) {
			t.Errorf("%s: asked %d blocks conservative %v, want %d %v", c.name, c.src.blocks, c.src.askedConservative, c.blocks, c.conservate)
		}
	}
}

// TestFeeRateForSpend checks Core's two refusals of CreateTransaction's fee
// step.
func TestFeeRateForSpend(t *testing.T) {
	ctx := context.Background()
	o := wallet.DefaultOptions()
	_, err := o.FeeRateForSpend(ctx, &fakeFees{}, 0, wallet.FeeRequest{})
	var we *wallet.Error
	if !errors.As(err, &we) || we.Description != "Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee." {
		t.Errorf("no estimate, no fallback: %v", err)
	}
	_, err = o.FeeRateForSpend(ctx, &fakeFees{}, 0, wallet.FeeRequest{FeeRate: i64(999)})
	if !errors.As(err, &we) || we.Description != "Fee rate (0.999 sat/vB) is lower than the minimum fee rate setting (1.000 sat/vB)" {
		t.Errorf("rate below the minimum: %v", err)
	}
	o.FallbackFee = 10000
	if r, err := o.FeeRateForSpend(ctx, &fakeFees{}, 0, wallet.FeeRequest{}); err != nil || r != 10000 {
		t.Errorf("fallback: %d %v", r, err)
	}
	if r, err := o.FeeRateForSpend(ctx, nil, 0, wallet.FeeRequest{}); err != nil || r != 10000 {
		t.Errorf("no backend: %d %v", r, err)
	}
}
