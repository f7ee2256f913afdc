package methods

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestFeeArgs checks Core's SetFeeEstimateMode messages and order, and the
// sat/vB reading of fee_rate.
func TestFeeArgs(t *testing.T) {
	raw := func(s string) json.RawMessage {
		if s == "" {
			return nil
		}
		return json.RawMessage(s)
	}
	for _, c := range []struct {
		target, mode, rate string
		code               rpc.Code
		msg                string
	}{
		{"6", "", "1", rpc.CodeInvalidParameter, "Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate."},
		{"", `"economical"`, "1", rpc.CodeInvalidParameter, "Cannot specify both estimate_mode and fee_rate"},
		{"", `"foo"`, "", rpc.CodeInvalidParameter, `Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"`},
		{"0", "", "", rpc.CodeInvalidParameter, "Invalid conf_target, must be between 1 and 1008"},
		{"1009", "", "", rpc.CodeInvalidParameter, "Invalid conf_target, must be between 1 and 1008"},
		{"", "", "0.0001", rpc.CodeTypeError, "Invalid amount"},
		{"", "", "-1", rpc.CodeTypeError, "Amount out of range"},
		{"", "", "true", rpc.CodeTypeError, "Amount is not a number or string"},
		{"1.5", "", "", rpc.CodeMisc, "JSON integer out of range"},
	} {
		_, err := feeArgs(raw(c.target), raw(c.mode), raw(c.rate), 1008)
		e, ok := err.(*rpc.Error)
		if !ok || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%q %q %q: got %v, want %d %q", c.target, c.mode, c.rate, err, c.code, c.msg)
		}
	}
	req, err := feeArgs(nil, raw(`"unset"`), raw(`"2.5"`), 1008)
	if err != nil || req.FeeRate == nil || *req.FeeRate != 2500 {
		t.Fatalf("fee_rate 2.5 sat/vB: %+v %v", req, err)
	}
	req, err = feeArgs(raw("3"), raw(`"CONSERVATIVE"`), raw("null"), 1008)
	if err != nil || req.FeeRate != nil || *req.ConfTarget != 3 || req.Mode != wallet.FeeModeConservative {
		t.Fatalf("target and mode: %+v %v", req, err)
	}
	// Offline, the estimate is missing: -fallbackfee decides.
	o := wallet.DefaultOptions()
	if _, err := o.FeeRateForSpend(context.Background(), feeSource(&Deps{}), 0, req); err == nil {
		t.Fatal("no estimate and no fallback fee accepted")
	}
}
