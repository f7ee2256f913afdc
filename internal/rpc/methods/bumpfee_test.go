package methods

import (
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
)

// TestFormatMoney checks Core's FormatMoney trimming: eight decimals,
// trailing zeros dropped down to two.
func TestFormatMoney(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0.00"}, {1, "0.00000001"}, {100, "0.000001"}, {1000, "0.00001"}, {1e8, "1.00"},
		{150_000_000, "1.50"}, {-7087, "-0.00007087"}, {2_100_000_000_000_000, "21000000.00"},
	} {
		if got := formatMoney(c.in); got != c.want {
			t.Errorf("formatMoney(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBumpOptions checks bumpfee's option checks in Core's order: member
// types (sorted keys), unknown keys, confTarget with conf_target, the fee
// settings, empty outputs.
func TestBumpOptions(t *testing.T) {
	d := &Deps{Net: &chaincfg.RegressionNetParams}
	for _, c := range []struct {
		opts string
		code rpc.Code
		msg  string
	}{
		{`{"replaceable": 1, "conf_target": "x"}`, rpc.CodeTypeError, "JSON value of type string for field conf_target is not of expected type number"},
		{`{"foo": 1}`, rpc.CodeTypeError, "Unexpected key foo"},
		{`{"confTarget": 1, "conf_target": 2}`, rpc.CodeInvalidParameter,
			"confTarget and conf_target options should not both be set. Use conf_target (confTarget is deprecated)."},
		{`{"conf_target": 2, "fee_rate": 3}`, rpc.CodeInvalidParameter,
			"Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate."},
		{`{"estimate_mode": "bogus"}`, rpc.CodeInvalidParameter, `Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"`},
		{`{"outputs": []}`, rpc.CodeInvalidParameter, "Invalid parameter, output argument cannot be an empty array"},
	} {
		_, err := readBumpOptions(d, json.RawMessage(c.opts))
		re, ok := err.(*rpc.Error)
		if !ok || re.Code != c.code || re.Message != c.msg {
			t.Errorf("%s: %v, want %d %q", c.opts, err, c.code, c.msg)
		}
	}
	o, err := readBumpOptions(d, json.RawMessage(`{"fee_rate": 12.5, "replaceable": false, "original_change_index": 1}`))
	if err != nil || o.fee.FeeRate == nil || *o.fee.FeeRate != 12500 || *o.fee.SignalRBF || *o.changeIndex != 1 {
		t.Errorf("options read as %+v (%v)", o, err)
	}
}

// TestSendAllNamedOptions checks that a named sendall call may give the
// options' members as top-level arguments (Core's OBJ_NAMED_PARAMS), in
// the options' place, and not together with options itself.
func TestSendAllNamedOptions(t *testing.T) {
	dir := t.TempDir()
	n := newSpendNode(t, dir)
	defer n.mgr.Close()
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	for _, c := range []struct{ params, want string }{
		{`{"recipients": ["bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"], "send_max": true}`,
			`"Total value of UTXO pool too low to pay for transaction, try using lower feerate."`},
		{`{"recipients": ["bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"], "maxconf": -1}`,
			`"maxconf can't be lower than minconf: -1 \u003c 0"`},
		{`{"recipients": ["bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"], "send_max": true, "options": {}}`,
			`"Parameter options conflicts with parameter send_max"`},
		{`{"recipients": ["bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"], "bogus": true}`,
			`"Unknown named parameter bogus"`},
	} {
		body := n.rawCallPath("/wallet/w", "sendall", json.RawMessage(c.params))
		var r struct {
			Error *struct {
				Message json.RawMessage `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Error == nil {
			t.Errorf("%s: %s", c.params, body)
			continue
		}
		var got, want string
		json.Unmarshal(r.Error.Message, &got)
		json.Unmarshal([]byte(c.want), &want)
		if got != want {
			t.Errorf("%s: %q, want %q", c.params, got, want)
		}
	}
}
