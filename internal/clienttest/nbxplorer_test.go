package clienttest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// nbxClient sends requests as NBitcoin's RPCClient does for NBXplorer
// (MetacoSA/NBitcoin NBitcoin/RPC/RPCClient.cs, RPCRequest.cs): JSON-RPC
// "1.0" objects (jsonrpc, id, method, params), alone or in a batch array,
// with Content-Type application/json-rpc and basic authentication, to the
// URL of the wallet NBXplorer is configured with (its RPC wallet); a reply
// is read only when its Content-Type is application/json.
type nbxClient struct {
	t    *testing.T
	d    *testenv.Daemon
	path string
	id   int
}

// post sends body and returns the decoded replies (one for an object).
func (c *nbxClient) post(body any) []map[string]json.RawMessage {
	c.t.Helper()
	b, resp, data := postJSON(c.t, c.d, c.path, "application/json-rpc", body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		c.t.Fatalf("%s: HTTP %d, Content-Type %q (NBitcoin reads application/json only): %s", b, resp.StatusCode, ct, data)
	}
	var out []map[string]json.RawMessage
	var err error
	if data[0] == '[' {
		err = json.Unmarshal(data, &out)
	} else {
		out = make([]map[string]json.RawMessage, 1)
		err = json.Unmarshal(data, &out[0])
	}
	if err != nil {
		c.t.Fatalf("%s: reply %s: %v", b, data, err)
	}
	return out
}

func (c *nbxClient) request(method string, params any) map[string]any {
	c.id++
	return map[string]any{"jsonrpc": "1.0", "id": c.id, "method": method, "params": params}
}

// call sends one request; it returns the result, or the error's code and
// message.
func (c *nbxClient) call(method string, params any) (json.RawMessage, int, string) {
	c.t.Helper()
	r := c.post(c.request(method, params))[0]
	if e := r["error"]; len(e) > 0 && string(e) != "null" {
		var re struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		decodeInto(c.t, method, e, &re)
		return nil, re.Code, re.Message
	}
	return r["result"], 0, ""
}

// rangeInMessage is NBXplorer's pattern for the range Core names when an
// import would shrink a descriptor's range (RPCClientExtensions.cs).
var rangeInMessage = regexp.MustCompile(`\[\s*(\d+)\s*,\s*(\d+)\s*\]`)

// TestNBXplorerFlow replays what NBXplorer asks of Bitcoin Core's RPC
// besides its P2P link (dgarage/NBXplorer at commit
// 36e1596b5cde37d82dfe747fc8957673c0690193: Configuration/RPCArgs.cs and
// NBitcoin's RPCClient.ScanRPCCapabilitiesAsync, the capability probe: one
// batch calling each method with the argument "random", a method counting
// as present unless it answers -32601 or -32, and validateaddress of a
// segwit and a taproot address; RPCClientExtensions.cs EnsureWalletCreated,
// createwallet by name then loadwallet, tolerating -4 and -35;
// ImportDescriptors, which imports an account's descriptor over a range
// and, when Core says the range must include the current one, reads that
// range from the message and imports the union; getindexinfo txindex;
// DerivationSchemesController's getwalletinfo).
func TestNBXplorerFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	_, d := followingDaemon(t)
	c := &nbxClient{t: t, d: d, path: "/wallet/nbx"}

	// The capability probe.
	var ni struct {
		Version int `json:"version"`
	}
	res, code, msg := c.call("getnetworkinfo", []any{})
	if code != 0 {
		t.Fatalf("getnetworkinfo: %d %s", code, msg)
	}
	decodeInto(t, "getnetworkinfo", res, &ni)
	probeKey := testenv.NewKey("nbx probe")
	segwit, taproot := probeKey.WPKH.Address, probeKey.TR.Address
	probe := []string{"scantxoutset", "signrawtransactionwithkey", "testmempoolaccept", "getblockfrompeer",
		"estimatesmartfee", "generatetoaddress"}
	var batch []map[string]any
	for _, m := range probe {
		batch = append(batch, c.request(m, []any{"random"}))
	}
	batch = append(batch, c.request("validateaddress", []any{segwit}), c.request("validateaddress", []any{taproot}))
	replies := c.post(batch)
	if len(replies) != len(batch) {
		t.Fatalf("probe batch: %d replies for %d requests", len(replies), len(batch))
	}
	present := map[string]bool{}
	for i, m := range probe {
		var e struct {
			Code int `json:"code"`
		}
		decodeInto(t, m, replies[i]["error"], &e)
		if string(replies[i]["id"]) != fmt.Sprint(batch[i]["id"]) || e.Code == 0 {
			t.Fatalf("probe %s: %v", m, replies[i])
		}
		present[m] = e.Code != -32601 && e.Code != -32
	}
	// With btcd behind descwallet, generatetoaddress and getblockfrompeer
	// are not served; the rest are.
	for m, want := range map[string]bool{"scantxoutset": true, "signrawtransactionwithkey": true,
		"testmempoolaccept": true, "estimatesmartfee": true, "getblockfrompeer": false, "generatetoaddress": false} {
		if present[m] != want {
			t.Errorf("probe: %s present %v, want %v (%v)", m, present[m], want, replies[slices.Index(probe, m)])
		}
	}
	for i, r := range replies[len(probe):] {
		var va struct {
			IsValid bool `json:"isvalid"`
		}
		decodeInto(t, "validateaddress", r["result"], &va)
		if !va.IsValid {
			t.Fatalf("validateaddress %d: %v", i, r)
		}
	}
	if ni.Version < 210000 {
		t.Fatalf("getnetworkinfo version %d", ni.Version)
	}

	// EnsureWalletCreated, at a first start and at a second one.
	named := map[string]any{"wallet_name": "nbx", "blank": false, "load_on_startup": true}
	if _, code, msg := c.call("createwallet", named); code != 0 {
		t.Fatalf("createwallet: %d %s", code, msg)
	}
	if _, code, msg := c.call("loadwallet", []any{"nbx", true}); code != -35 {
		t.Fatalf("loadwallet of the loaded wallet: %d %s, want -35", code, msg)
	}
	if _, code, msg := c.call("createwallet", named); code != -4 {
		t.Fatalf("createwallet of an existing wallet: %d %s, want -4", code, msg)
	}

	// ImportDescriptors: the account's receive branch over [0, 999], then
	// NBXplorer asking for [1000, 1999] and widening it from the message.
	// The wallet has keys, so NBXplorer's "Descriptors" mode puts the
	// account's private key in (its read-only mode, an xpub, is refused by
	// a wallet with private keys, by Core as here).
	desc := descriptor.AddChecksum("wpkh([c0ffee00/84h/1h/0h]tprv8ZgxMBicQKsPd1EzCPZcQSPhsotX5HvRDCivA7ASNQFmjWuTsW3WWEwUNKFAZrnD9qpz55rtyLdphqkwRZUqNWYXwSEzd6P4pYvXGByRim3/0/*)")
	importRange := func(from, to int) (bool, string) {
		res, code, msg := c.call("importdescriptors", []any{[]map[string]any{
			{"desc": desc, "timestamp": "now", "range": []int{from, to}}}})
		if code != 0 {
			t.Fatalf("importdescriptors: %d %s", code, msg)
		}
		var out []struct {
			Success bool `json:"success"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		decodeInto(t, "importdescriptors", res, &out)
		if len(out) != 1 || out[0].Success == (out[0].Error != nil) {
			t.Fatalf("importdescriptors: %s", res)
		}
		if out[0].Success {
			return true, ""
		}
		return false, out[0].Error.Message
	}
	if ok, msg := importRange(0, 999); !ok {
		t.Fatalf("import [0, 999]: %s", msg)
	}
	from, to := 1000, 1999
	ok, msg := importRange(from, to)
	m := rangeInMessage.FindStringSubmatch(msg)
	if ok || m == nil {
		t.Fatalf("import [1000, 1999]: success %v, message %q", ok, msg)
	}
	curFrom, _ := strconv.Atoi(m[1])
	curTo, _ := strconv.Atoi(m[2])
	if curFrom != 0 || curTo != 999 {
		t.Fatalf("range in %q: [%d, %d], want [0, 999]", msg, curFrom, curTo)
	}
	if ok, msg := importRange(min(from, curFrom), max(to, curTo)); !ok {
		t.Fatalf("import of the union: %s", msg)
	}
	res, _, _ = c.call("listdescriptors", []any{})
	var listed struct {
		Descriptors []struct {
			Desc  string `json:"desc"`
			Range []int  `json:"range"`
		} `json:"descriptors"`
	}
	decodeInto(t, "listdescriptors", res, &listed)
	i := slices.IndexFunc(listed.Descriptors, func(l struct {
		Desc  string `json:"desc"`
		Range []int  `json:"range"`
	}) bool {
		return strings.HasPrefix(l.Desc, "wpkh([c0ffee00/84h/1h/0h]tpub")
	})
	if i < 0 || !slices.Equal(listed.Descriptors[i].Range, []int{0, 1999}) {
		t.Fatalf("listdescriptors: %+v", listed)
	}

	// SupportTxIndex: getindexinfo with txindex, an object naming it when
	// the index exists (btcd here runs with --txindex).
	res, code, msg = c.call("getindexinfo", []any{"txindex"})
	var idx map[string]json.RawMessage
	if code != 0 {
		t.Fatalf("getindexinfo: %d %s", code, msg)
	}
	decodeInto(t, "getindexinfo", res, &idx)
	if _, ok := idx["txindex"]; !ok {
		t.Fatalf("getindexinfo txindex: %s", res)
	}
	res, code, msg = c.call("getwalletinfo", []any{})
	var wi struct {
		WalletName string `json:"walletname"`
	}
	if code != 0 {
		t.Fatalf("getwalletinfo: %d %s", code, msg)
	}
	decodeInto(t, "getwalletinfo", res, &wi)
	if wi.WalletName != "nbx" {
		t.Fatalf("getwalletinfo: %s", res)
	}
}
