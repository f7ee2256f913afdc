package methods

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
)

// raw posts body to path and returns the HTTP status and reply.
func (n *walletNode) raw(t *testing.T, path, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("POST", path, bytes.NewReader([]byte(body)))
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	n.handler.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// TestPaymentDetectionRequestForms sends the payment-detection calls in
// the request forms wallet clients use: a JSON-RPC 2.0 batch on a wallet
// path whose name holds a slash (Specter's specteradmin/hot1, plain and
// percent-encoded), a request without "jsonrpc" whose reply carries
// "error": null beside the result (JoinMarket), and positional params
// with trailing nulls.
func TestPaymentDetectionRequestForms(t *testing.T) {
	n := newWalletNode(t, t.TempDir())
	defer n.mgr.Close()
	if r := n.call(t, "/", "createwallet", json.RawMessage(`["specteradmin/hot1"]`)); r.Error != nil {
		t.Fatalf("createwallet: %+v", r.Error)
	}
	n.call(t, "/", "createwallet", json.RawMessage(`["other"]`))
	r := n.call(t, "/wallet/specteradmin/hot1", "getnewaddress", json.RawMessage(`["pay"]`))
	var addr string
	if r.Error != nil || json.Unmarshal(r.Result, &addr) != nil {
		t.Fatalf("getnewaddress: %s %+v", r.Result, r.Error)
	}
	genesis := "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"

	batch := `[{"jsonrpc":"2.0","id":0,"method":"listsinceblock","params":[]},
{"jsonrpc":"2.0","id":1,"method":"getreceivedbyaddress","params":["` + addr + `",0]},
{"jsonrpc":"2.0","id":2,"method":"getreceivedbylabel","params":["pay"]},
{"jsonrpc":"2.0","id":3,"method":"listreceivedbyaddress","params":[0,true]},
{"jsonrpc":"2.0","id":4,"method":"listreceivedbylabel","params":[0,true]},
{"jsonrpc":"2.0","id":5,"method":"getreceivedbylabel","params":["nosuch"]}]`
	want := `[{"jsonrpc":"2.0","result":{"transactions":[],"removed":[],"lastblock":"` + genesis + `"},"id":0},` +
		`{"jsonrpc":"2.0","result":0.00000000,"id":1},` +
		`{"jsonrpc":"2.0","result":0.00000000,"id":2},` +
		`{"jsonrpc":"2.0","result":[{"address":"` + addr + `","amount":0.00000000,"confirmations":0,"label":"pay","txids":[]}],"id":3},` +
		`{"jsonrpc":"2.0","result":[{"amount":0.00000000,"confirmations":0,"label":"pay"}],"id":4},` +
		`{"jsonrpc":"2.0","error":{"code":-4,"message":"Label not found in wallet"},"id":5}]`
	for _, path := range []string{"/wallet/specteradmin/hot1", "/wallet/specteradmin%2Fhot1", "/wallet/specteradmin%2fhot1"} {
		code, body := n.raw(t, path, batch)
		if code != 200 || strings.TrimSpace(body) != want {
			t.Errorf("batch on %s: HTTP %d\n got %s\nwant %s", path, code, body, want)
		}
	}

	// Legacy form: no "jsonrpc", so "error": null sits beside the result,
	// and an error beside "result": null.
	code, body := n.raw(t, "/wallet/specteradmin/hot1", `{"id":"jm","method":"listreceivedbylabel","params":[0,true]}`)
	if code != 200 || strings.TrimSpace(body) != `{"result":[{"amount":0.00000000,"confirmations":0,"label":"pay"}],"error":null,"id":"jm"}` {
		t.Errorf("legacy: HTTP %d %s", code, body)
	}
	code, body = n.raw(t, "/wallet/specteradmin/hot1", `{"id":1,"method":"getreceivedbyaddress","params":["nonsense"]}`)
	if code != 500 || strings.TrimSpace(body) != `{"result":null,"error":{"code":-5,"message":"Invalid Bitcoin address"},"id":1}` {
		t.Errorf("legacy error: HTTP %d %s", code, body)
	}

	// Trailing nulls read as absent arguments.
	for _, tc := range []struct{ method, params, want string }{
		{"listsinceblock", `[null,null,null,null,null,null]`, `{"transactions":[],"removed":[],"lastblock":"` + genesis + `"}`},
		{"listsinceblock", `["` + genesis + `",null,null,false,null,null]`, `{"transactions":[],"lastblock":"` + genesis + `"}`},
		{"getreceivedbyaddress", `["` + addr + `",null,null]`, `0.00000000`},
		{"getreceivedbylabel", `["pay",null,null]`, `0.00000000`},
		{"listreceivedbyaddress", `[null,true,null,null,null]`, `[{"address":"` + addr + `","amount":0.00000000,"confirmations":0,"label":"pay","txids":[]}]`},
		{"listreceivedbylabel", `[null,null,null,null]`, `[]`},
		{"gettransaction", `["` + strings.Repeat("ab", 32) + `",null,null]`, ``},
	} {
		r := n.call(t, "/wallet/specteradmin/hot1", tc.method, json.RawMessage(tc.params))
		if tc.want == "" {
			if r.Error == nil || r.Error.Code != -5 || r.Error.Message != "Invalid or non-wallet transaction id" {
				t.Errorf("%s %s: %s %+v", tc.method, tc.params, r.Result, r.Error)
			}
			continue
		}
		if r.Error != nil || string(r.Result) != tc.want {
			t.Errorf("%s %s: %s %+v, want %s", tc.method, tc.params, r.Result, r.Error, tc.want)
		}
	}

	// Core v30's argument rules: include_watchonly is still a bool (type
	// checked, no effect); target_confirmations below 1 is refused.
	for _, tc := range []struct {
		method, params string
		code           int
		msg            string
	}{
		{"listsinceblock", `[null,1,"yes"]`, -3, "Wrong type passed:\n{\n    \"Position 3 (include_watchonly)\": \"JSON value of type string is not of expected type bool\"\n}"},
		{"listreceivedbyaddress", `[1,false,1]`, -3, "Wrong type passed:\n{\n    \"Position 3 (include_watchonly)\": \"JSON value of type number is not of expected type bool\"\n}"},
		{"listsinceblock", `["",0]`, -8, "Invalid parameter"},
		{"listreceivedbyaddress", `[0,true,false,"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"]`, -4, "address_filter parameter was invalid"},
		{"getreceivedbylabel", `["*"]`, -11, "Invalid label name"},
	} {
		r := n.call(t, "/wallet/specteradmin/hot1", tc.method, json.RawMessage(tc.params))
		if r.Error == nil || r.Error.Code != tc.code || r.Error.Message != tc.msg {
			t.Errorf("%s %s: %s %+v, want %d %q", tc.method, tc.params, r.Result, r.Error, tc.code, tc.msg)
		}
	}
	for _, tc := range []struct{ method, params, want string }{
		{"listsinceblock", `[null,1,true]`, `{"transactions":[],"removed":[],"lastblock":"` + genesis + `"}`},
		{"listreceivedbylabel", `[0,true,true]`, `[{"amount":0.00000000,"confirmations":0,"label":"pay"}]`},
	} {
		r := n.call(t, "/wallet/specteradmin/hot1", tc.method, json.RawMessage(tc.params))
		if r.Error != nil || string(r.Result) != tc.want {
			t.Errorf("%s %s: %s %+v, want %s", tc.method, tc.params, r.Result, r.Error, tc.want)
		}
	}

	// Arguments older clients still send: "watchonly" inside an
	// importdescriptors request is ignored (Core v30 reads only the keys it
	// knows), include_watchonly is accepted wherever Core keeps it.
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	p, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": "now", "watchonly": true, "range": 5}}})
	n.call(t, "/", "createwallet", json.RawMessage(`["wo", true, true]`))
	if r := n.call(t, "/wallet/wo", "importdescriptors", p); r.Error != nil || string(r.Result) != `[{"success":true}]` {
		t.Errorf("importdescriptors with watchonly: %s %+v", r.Result, r.Error)
	}
	for _, tc := range []struct{ method, params, want string }{
		{"listtransactions", `["*",10,0,true]`, `[]`},
		{"listsinceblock", `["",1,true]`, `{"transactions":[],"removed":[],"lastblock":"` + genesis + `"}`},
		{"listreceivedbyaddress", `[0,false,true]`, `[]`},
		{"listreceivedbylabel", `[0,false,true]`, `[]`},
	} {
		r := n.call(t, "/wallet/wo", tc.method, json.RawMessage(tc.params))
		if r.Error != nil || string(r.Result) != tc.want {
			t.Errorf("%s %s: %s %+v, want %s", tc.method, tc.params, r.Result, r.Error, tc.want)
		}
	}
}

// TestReceivedErrorOrder checks Core's order of getreceivedbyaddress's and
// getreceivedbylabel's errors: an address or label without the wallet's
// scripts is reported before a bad minconf.
func TestReceivedErrorOrder(t *testing.T) {
	n := newWalletNode(t, t.TempDir())
	defer n.mgr.Close()
	n.call(t, "/", "createwallet", json.RawMessage(`["w"]`))
	var own string
	if r := n.call(t, "/wallet/w", "getnewaddress", nil); r.Error != nil || json.Unmarshal(r.Result, &own) != nil {
		t.Fatalf("getnewaddress: %s %+v", r.Result, r.Error)
	}
	// An address of another wallet, labelled here as a payee.
	n.call(t, "/", "createwallet", json.RawMessage(`["x"]`))
	var foreign string
	if r := n.call(t, "/wallet/x", "getnewaddress", nil); r.Error != nil || json.Unmarshal(r.Result, &foreign) != nil {
		t.Fatalf("getnewaddress: %s %+v", r.Result, r.Error)
	}
	if r := n.call(t, "/wallet/w", "setlabel", json.RawMessage(`["`+foreign+`","payee"]`)); r.Error != nil {
		t.Fatalf("setlabel: %+v", r.Error)
	}
	for _, c := range []struct {
		method, params string
		code           int
		message        string
	}{
		{"getreceivedbyaddress", `["` + foreign + `", 1.5]`, -4, "Address not found in wallet"},
		{"getreceivedbylabel", `["payee", 1.5]`, -4, "Address not found in wallet"},
		{"getreceivedbylabel", `["nosuch", 1.5]`, -4, "Label not found in wallet"},
	} {
		r := n.call(t, "/wallet/w", c.method, json.RawMessage(c.params))
		if r.Error == nil || r.Error.Code != c.code || r.Error.Message != c.message {
			t.Errorf("%s %s: %s %+v, want %d %q", c.method, c.params, r.Result, r.Error, c.code, c.message)
		}
	}
	// With the wallet's own address, minconf's error.
	if r := n.call(t, "/wallet/w", "getreceivedbyaddress", json.RawMessage(`["`+own+`", 1.5]`)); r.Error == nil {
		t.Errorf("getreceivedbyaddress with minconf 1.5: %s", r.Result)
	}
}
