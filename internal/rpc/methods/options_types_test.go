package methods

import (
	"encoding/json"
	"sort"
	"testing"
)

// TestFundingOptionTypes sends each typed option of the funding calls with
// a value of the wrong JSON type, one at a time, and expects the error
// Core gives, which depends on where Core first reads the option: most
// fail Core's RPCTypeCheckObj in FundTransaction (naming the field), but
// some are read before it (a bare type error, getValues' -1, the refusal
// of input_weights in options, send's and sendall's checks of the fee
// options and of the old option names).
func TestFundingOptionTypes(t *testing.T) {
	n := newSpendNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	b := &bumpNode{n: n}
	const addr = "bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"
	res, e := b.call(t, "createrawtransaction", `[[], [{"`+addr+`": 0.1}]]`)
	if e != nil {
		t.Fatalf("createrawtransaction: %+v", e)
	}
	var rawHex string
	json.Unmarshal(res, &rawHex)

	wrong := map[string]string{"bool": `"x"`, "number": `"x"`, "string": `1`, "array": `"x"`, "object": `"x"`}
	field := func(k, want string) rpcErr {
		got := "string"
		if want == "string" {
			got = "number"
		}
		return rpcErr{-3, "JSON value of type " + got + " for field " + k + " is not of expected type " + want}
	}
	bare := func(want string) rpcErr {
		got := "string"
		if want == "string" {
			got = "number"
		}
		return rpcErr{-3, "JSON value of type " + got + " is not of expected type " + want}
	}
	notArray := rpcErr{-1, "JSON value is not an object or array as expected"}
	weights := rpcErr{-8, "Input weights should be specified in inputs rather than in options."}
	estimateMode := rpcErr{-8, "Specify estimate_mode"}

	type call struct {
		method string
		params func(opts string) string
		// special are the options Core reads before its type table.
		special func(k, typ string) (rpcErr, bool)
	}
	calls := []call{
		{"fundrawtransaction", func(o string) string { return `["` + rawHex + `", ` + o + `]` },
			func(k, typ string) (rpcErr, bool) {
				if k == "subtractFeeFromOutputs" {
					return notArray, true
				}
				return rpcErr{}, false
			}},
		{"walletcreatefundedpsbt", func(o string) string { return `[[], [{"` + addr + `": 0.1}], 0, ` + o + `]` },
			func(k, typ string) (rpcErr, bool) {
				switch k {
				case "replaceable":
					return bare(typ), true
				case "subtractFeeFromOutputs":
					return notArray, true
				case "input_weights":
					return weights, true
				}
				return rpcErr{}, false
			}},
		{"send", func(o string) string { return `[[{"` + addr + `": 0.1}], null, null, null, ` + o + `]` },
			func(k, typ string) (rpcErr, bool) {
				switch k {
				case "feeRate":
					return rpcErr{-8, "Use fee_rate (sat/vB) instead of feeRate"}, true
				case "changeAddress":
					return rpcErr{-8, "Use change_address instead of changeAddress"}, true
				case "changePosition":
					return rpcErr{-8, "Use change_position instead of changePosition"}, true
				case "lockUnspents":
					return rpcErr{-8, "Use lock_unspents instead of lockUnspents"}, true
				case "subtractFeeFromOutputs":
					return rpcErr{-8, "Use subtract_fee_from_outputs instead of subtractFeeFromOutputs"}, true
				case "conf_target":
					return estimateMode, true
				case "replaceable", "inputs", "locktime", "max_tx_weight":
					return bare(typ), true
				case "subtract_fee_from_outputs":
					return notArray, true
				case "input_weights":
					return weights, true
				}
				return rpcErr{}, false
			}},
	}
	keys := make([]string, 0, len(fundOptionTypes))
	for k := range fundOptionTypes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, c := range calls {
		for _, k := range keys {
			typ := fundOptionTypes[k]
			if typ == "" {
				continue
			}
			want, ok := c.special(k, typ)
			if !ok {
				want = field(k, typ)
			}
			kv, _ := json.Marshal(k)
			params := c.params(`{` + string(kv) + `: ` + wrong[typ] + `}`)
			_, e := b.call(t, c.method, params)
			if e == nil || *e != want {
				t.Errorf("%s %s: %+v, want %+v", c.method, params, e, want)
			}
		}
	}

	// Core's getValues reads an object's member values as the positions.
	for _, c := range []struct {
		params string
		want   rpcErr
	}{
		{`["` + rawHex + `", {"subtractFeeFromOutputs": {"a": 5}}]`,
			rpcErr{-8, "Invalid parameter 'subtract fee from output', position too large: 5"}},
		{`["` + rawHex + `", {"subtractFeeFromOutputs": {"a": 0}}]`,
			rpcErr{-3, "JSON value of type object for field subtractFeeFromOutputs is not of expected type array"}},
	} {
		_, e := b.call(t, "fundrawtransaction", c.params)
		if e == nil || *e != c.want {
			t.Errorf("fundrawtransaction %s: %+v, want %+v", c.params, e, c.want)
		}
	}

	// sendall reads its options one by one, with Core's bare type errors.
	for _, c := range []struct {
		opts string
		want rpcErr
	}{
		{`{"conf_target": "x"}`, estimateMode},
		{`{"estimate_mode": 1}`, bare("string")},
		{`{"minconf": "x"}`, bare("number")},
		{`{"maxconf": "x"}`, bare("number")},
		{`{"version": "x"}`, bare("number")},
		{`{"replaceable": "x"}`, bare("bool")},
		{`{"locktime": "x"}`, bare("number")},
		{`{"inputs": "x"}`, bare("array")},
		{`{"send_max": "x"}`, bare("bool")},
		{`{"feeRate": 1}`, rpcErr{-8, "Use fee_rate (sat/vB) instead of feeRate"}},
		{`{"fee_rate": "x"}`, rpcErr{-3, "Invalid amount"}},
	} {
		params := `[["` + addr + `"], null, null, null, ` + c.opts + `]`
		_, e := b.call(t, "sendall", params)
		if e == nil || *e != c.want {
			t.Errorf("sendall %s: %+v, want %+v", params, e, c.want)
		}
	}
}
