package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/internal/wallet"
)

// TestFundingGivesChangeAddressBack: a funding that fails hands its
// reserved change address back, so the next change address is still the
// first of the internal descriptor; the change type follows the
// recipients (a taproot payment reserves from the bech32m descriptor).
func TestFundingGivesChangeAddressBack(t *testing.T) {
	n := newSpendNode(t, t.TempDir())
	defer n.mgr.Close()
	var name string
	mustResult(t, n.call(t, "/", "createwallet", json.RawMessage(`["w"]`)), "createwallet", &struct{ Name *string }{&name})
	const tr = "bcrt1pczxtwmqsrd20n5h76peafeklww7gv89zcsuy2mhqym8qe2tpsp6sckzfjp"
	for _, c := range []struct{ method, params string }{
		{"fundrawtransaction", `["02000000000100e1f50500000000160014fe4d9d5a7a5969f9f9caddff6870231ac79213d200000000"]`},
		{"walletcreatefundedpsbt", `[[], [{"` + tr + `": 1}]]`},
		{"send", `[[{"` + tr + `": 1}]]`},
		{"sendtoaddress", `["` + tr + `", 1]`},
	} {
		r := n.call(t, "/wallet/w", c.method, json.RawMessage(c.params))
		if r.Error == nil || r.Error.Message != "Insufficient funds" {
			t.Fatalf("%s: %+v", c.method, r)
		}
	}
	for _, typ := range []string{"bech32", "bech32m"} {
		var addr string
		mustResult(t, n.call(t, "/wallet/w", "getrawchangeaddress", json.RawMessage(`["`+typ+`"]`)), "getrawchangeaddress", &addr)
		var info struct {
			HDKeyPath string `json:"hdkeypath"`
		}
		mustResult(t, n.call(t, "/wallet/w", "getaddressinfo", json.RawMessage(`["`+addr+`"]`)), "getaddressinfo", &info)
		if !strings.HasSuffix(info.HDKeyPath, "/1/0") {
			t.Errorf("%s change address after failed fundings at %s, want index 0", typ, info.HDKeyPath)
		}
	}
}

// TestChangeTypeOption: -changetype takes Core's output types and refuses
// others with Core's message.
func TestChangeTypeOption(t *testing.T) {
	get := func(v string) func(string) (string, bool) {
		return func(name string) (string, bool) { return v, name == "changetype" }
	}
	if _, _, err := wallet.ParseOptions(get("bogus"), nil); err == nil || err.Error() != "Unknown change type 'bogus'" {
		t.Errorf("-changetype=bogus: %v", err)
	}
	o, _, err := wallet.ParseOptions(get("legacy"), nil)
	if err != nil || o.ChangeType == nil || *o.ChangeType != wallet.Legacy {
		t.Errorf("-changetype=legacy: %v %v", o.ChangeType, err)
	}
	if o, _, _ := wallet.ParseOptions(get(""), nil); o.ChangeType != nil {
		t.Errorf("no -changetype: %v", *o.ChangeType)
	}
}

// TestAddressTypeOption: -addresstype is the wallet's default address
// type: getnewaddress hands it out when no type is asked,
// getrawchangeaddress too unless -changetype is set (Core's
// m_default_address_type).
func TestAddressTypeOption(t *testing.T) {
	// Regtest prefixes: P2PKH addresses start with m or n.
	is := func(addr, typ string) bool {
		switch typ {
		case "bech32":
			return strings.HasPrefix(addr, "bcrt1q")
		case "bech32m":
			return strings.HasPrefix(addr, "bcrt1p")
		case "legacy":
			return addr[0] == 'm' || addr[0] == 'n'
		}
		return addr[0] == '2'
	}
	for _, c := range []struct {
		opts                map[string]string
		receive, asked, chg string
	}{
		{map[string]string{}, "bech32", "bech32", "bech32"},
		{map[string]string{"addresstype": "bech32m"}, "bech32m", "bech32", "bech32m"},
		{map[string]string{"addresstype": "p2sh-segwit", "changetype": "legacy"}, "p2sh-segwit", "bech32", "legacy"},
	} {
		n := newOptionsNode(t, t.TempDir(), c.opts, nil)
		mustResult(t, n.call(t, "/", "createwallet", json.RawMessage(`["w"]`)), "createwallet", &struct{}{})
		var addr string
		mustResult(t, n.call(t, "/wallet/w", "getnewaddress", json.RawMessage(`[]`)), "getnewaddress", &addr)
		if !is(addr, c.receive) {
			t.Errorf("%v: getnewaddress %s, want %s", c.opts, addr, c.receive)
		}
		mustResult(t, n.call(t, "/wallet/w", "getnewaddress", json.RawMessage(`["", "bech32"]`)), "getnewaddress", &addr)
		if !is(addr, c.asked) {
			t.Errorf("%v: getnewaddress bech32 %s", c.opts, addr)
		}
		mustResult(t, n.call(t, "/wallet/w", "getrawchangeaddress", json.RawMessage(`[]`)), "getrawchangeaddress", &addr)
		if !is(addr, c.chg) {
			t.Errorf("%v: getrawchangeaddress %s, want %s", c.opts, addr, c.chg)
		}
		n.mgr.Close()
	}
	get := func(name string) (string, bool) { return "bogus", name == "addresstype" }
	if _, _, err := wallet.ParseOptions(get, nil); err == nil || err.Error() != "Unknown address type 'bogus'" {
		t.Errorf("-addresstype=bogus: %v", err)
	}
}

// TestFundingNamedOptions: the funding calls take their options as
// top-level named arguments too (Core's OBJ_NAMED_PARAMS), and refuse
// them beside an options object.
func TestFundingNamedOptions(t *testing.T) {
	n := newSpendNode(t, t.TempDir())
	defer n.mgr.Close()
	mustResult(t, n.call(t, "/", "createwallet", json.RawMessage(`["w"]`)), "createwallet", &struct{}{})
	const hexTx = "02000000000100e1f50500000000160014fe4d9d5a7a5969f9f9caddff6870231ac79213d200000000"
	const addr = "bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd"
	for _, c := range []struct {
		method, params string
		code           int
		msg            string
	}{
		{"fundrawtransaction", `{"hexstring": "` + hexTx + `", "add_inputs": false}`, -4,
			"The preselected coins total amount does not cover the transaction target. Please allow other inputs to be automatically selected or include more coins manually"},
		{"fundrawtransaction", `{"hexstring": "` + hexTx + `", "changePosition": 2}`, -8, "changePosition out of bounds"},
		{"walletcreatefundedpsbt", `{"outputs": [{"` + addr + `": 1}], "subtractFeeFromOutputs": [5]}`, -8,
			"Invalid parameter 'subtract fee from output', position too large: 5"},
		{"send", `{"outputs": [{"` + addr + `": 1}], "change_type": "bogus"}`, -5, "Unknown change type 'bogus'"},
		{"send", `{"outputs": [{"` + addr + `": 1}], "options": {}, "lock_unspents": true}`, -8,
			"Parameter options conflicts with parameter lock_unspents"},
	} {
		r := n.call(t, "/wallet/w", c.method, json.RawMessage(c.params))
		if r.Error == nil || r.Error.Code != c.code || r.Error.Message != c.msg {
			t.Errorf("%s %s: %+v, want %d %q", c.method, c.params, r.Error, c.code, c.msg)
		}
	}
}
