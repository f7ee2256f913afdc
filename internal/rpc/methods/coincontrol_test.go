package methods

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCoinControlErrors checks the argument errors of lockunspent,
// abandontransaction, setwalletflag, getbalance and settxfee against
// Core's codes and messages, and the replies that need no coins.
func TestCoinControlErrors(t *testing.T) {
	dir := t.TempDir()
	n := newSpendNode(t, dir)
	defer n.mgr.Close()
	w := "w"
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	const unknown = `"f0e271605f040f653ecad6f59eb3179c9ca2079d5168dd0ab8cc68d25a44870f"`
	for _, c := range []struct {
		method, params, want string
	}{
		{"lockunspent", `[false, [{"txid": ` + unknown + `, "vout": 0}]]`, `{"code":-8,"message":"Invalid parameter, unknown transaction"}`},
		{"lockunspent", `[false, [{"txid": "xyz", "vout": 0}]]`, `{"code":-8,"message":"txid must be of length 64 (not 3, for 'xyz')"}`},
		{"lockunspent", `[false, [{"txid": ` + unknown + `, "vout": -1}]]`, `{"code":-8,"message":"Invalid parameter, vout cannot be negative"}`},
		{"lockunspent", `[false, [{"txid": ` + unknown + `}]]`, `{"code":-3,"message":"Missing vout"}`},
		{"lockunspent", `[false, [{"txid": 1, "vout": 0}]]`, `{"code":-3,"message":"JSON value of type number for field txid is not of expected type string"}`},
		{"lockunspent", `[false, ["x"]]`, `{"code":-3,"message":"JSON value of type string is not of expected type object"}`},
		{"lockunspent", `[true]`, `true`},
		{"lockunspent", `[false]`, `true`},
		{"listlockunspent", `[]`, `[]`},
		{"abandontransaction", `[` + unknown + `]`, `{"code":-5,"message":"Invalid or non-wallet transaction id"}`},
		{"abandontransaction", `["zz"]`, `{"code":-8,"message":"txid must be of length 64 (not 2, for 'zz')"}`},
		{"setwalletflag", `["nosuch"]`, `{"code":-8,"message":"Unknown wallet flag: nosuch"}`},
		{"setwalletflag", `["blank"]`, `{"code":-8,"message":"Wallet flag is immutable: blank"}`},
		{"setwalletflag", `["avoid_reuse", false]`, `{"code":-8,"message":"Wallet flag is already set to false: avoid_reuse"}`},
		{"getbalance", `["*", 0, false, true]`, `{"code":-4,"message":"wallet does not have the \"avoid reuse\" feature enabled"}`},
		{"setwalletflag", `["avoid_reuse"]`, `{"flag_name":"avoid_reuse","flag_state":true,"warnings":"You need to rescan the blockchain in order to correctly mark used destinations in the past. Until this is done, some destinations may be considered unused, even if the opposite is the case."}`},
		{"setwalletflag", `["avoid_reuse", true]`, `{"code":-8,"message":"Wallet flag is already set to true: avoid_reuse"}`},
		{"getbalance", `["*", 0, false, true]`, `0.00000000`},
		{"getbalances", `[]`, `{"mine":{"trusted":0.00000000,"untrusted_pending":0.00000000,"immature":0.00000000,"used":0.00000000},"lastprocessedblock":{"hash":"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206","height":0}}`},
		{"setwalletflag", `["avoid_reuse", false]`, `{"flag_name":"avoid_reuse","flag_state":false}`},
		{"settxfee", `[0.0001]`, `{"code":-32,"message":"settxfee is deprecated and will be fully removed in v31.0.\nTo use settxfee restart bitcoind with -deprecatedrpc=settxfee."}`},
	} {
		body := n.rawCallPath(walletPath(&w), c.method, json.RawMessage(c.params))
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		got := r.Result
		if string(r.Error) != "null" && len(r.Error) > 0 {
			got = r.Error
		}
		g, _ := canonJSON(got)
		want, _ := canonJSON([]byte(c.want))
		if g != want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.params, g, want)
		}
	}
}

// TestSetTxFeeDeprecatedRPC: with -deprecatedrpc=settxfee, settxfee
// checks the rate against the relay minimum, -mintxfee and -maxtxfee with
// Core's messages, and getwalletinfo shows the rate.
func TestSetTxFeeDeprecatedRPC(t *testing.T) {
	n := newOptionsNode(t, t.TempDir(), map[string]string{"mintxfee": "0.00002", "maxtxfee": "0.01"}, []string{"settxfee"})
	defer n.mgr.Close()
	w := "w"
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	for _, c := range []struct{ params, want string }{
		{`[0.000005]`, `{"code":-8,"message":"txfee cannot be less than min relay tx fee (0.00001000 BTC/kvB)"}`},
		{`[0.000015]`, `{"code":-8,"message":"txfee cannot be less than wallet min fee (0.00002000 BTC/kvB)"}`},
		{`[0.02]`, `{"code":-8,"message":"txfee cannot be more than wallet max tx fee (0.01000000 BTC/kvB)"}`},
		{`[-1]`, `{"code":-3,"message":"Amount out of range"}`},
		{`["0.0003"]`, `true`},
	} {
		body := n.rawCallPath(walletPath(&w), "settxfee", json.RawMessage(c.params))
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		got := r.Result
		if string(r.Error) != "null" && len(r.Error) > 0 {
			got = r.Error
		}
		if g, w := mustCanon(t, got), mustCanon(t, []byte(c.want)); g != w {
			t.Errorf("settxfee %s: got %s, want %s", c.params, g, w)
		}
	}
	var info struct {
		Result struct {
			PayTxFee json.Number `json:"paytxfee"`
		} `json:"result"`
	}
	dec := json.NewDecoder(bytesReader(n.rawCallPath(walletPath(&w), "getwalletinfo", json.RawMessage(`[]`))))
	dec.UseNumber()
	if err := dec.Decode(&info); err != nil || info.Result.PayTxFee != "0.00030000" {
		t.Fatalf("getwalletinfo paytxfee %q %v, want 0.00030000", info.Result.PayTxFee, err)
	}
}

func mustCanon(t *testing.T, b []byte) string {
	t.Helper()
	s, err := canonJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return s
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
