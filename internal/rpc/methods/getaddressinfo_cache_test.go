package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
)

// TestGetAddressInfoFollowsChanges asks about the same addresses before
// and after each kind of wallet change, so that a reply kept from before a
// change would show.
func TestGetAddressInfoFollowsChanges(t *testing.T) {
	n := newWalletNode(t, t.TempDir())
	defer n.mgr.Close()
	if r := n.call(t, "/", "createwallet", json.RawMessage(`["w", true, true]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	type info struct {
		IsMine     bool     `json:"ismine"`
		ParentDesc string   `json:"parent_desc"`
		IsChange   bool     `json:"ischange"`
		Labels     []string `json:"labels"`
	}
	ask := func(addr string) info {
		t.Helper()
		var in info
		mustResult(t, n.call(t, "/wallet/w", "getaddressinfo", json.RawMessage(`["`+addr+`"]`)), "getaddressinfo", &in)
		return in
	}
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/1/*)")
	d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := d.Expand(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := address.Encode(outs[0].ScriptPubKey, &chaincfg.RegressionNetParams)
	foreign := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

	if in := ask(addr); in.IsMine || in.IsChange || len(in.Labels) != 0 {
		t.Fatalf("before import: %+v", in)
	}
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": 1700000000, "active": true, "internal": true}}})
	if r := n.call(t, "/wallet/w", "importdescriptors", req); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if in := ask(addr); !in.IsMine || !in.IsChange || in.ParentDesc == "" || len(in.Labels) != 0 {
		t.Fatalf("after import: %+v", in)
	}
	var change string
	mustResult(t, n.call(t, "/wallet/w", "getrawchangeaddress", json.RawMessage(`[]`)), "getrawchangeaddress", &change)
	if change != addr {
		t.Fatalf("change address %s, want %s", change, addr)
	}
	if r := n.call(t, "/wallet/w", "setlabel", json.RawMessage(`["`+addr+`", "mine"]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if in := ask(addr); in.IsChange || len(in.Labels) != 1 || in.Labels[0] != "mine" {
		t.Fatalf("after setlabel: %+v", in)
	}
	if in := ask(foreign); len(in.Labels) != 0 {
		t.Fatalf("foreign before setlabel: %+v", in)
	}
	if r := n.call(t, "/wallet/w", "setlabel", json.RawMessage(`["`+foreign+`", "theirs"]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if in := ask(foreign); in.IsMine || len(in.Labels) != 1 || in.Labels[0] != "theirs" {
		t.Fatalf("foreign after setlabel: %+v", in)
	}
}

// TestGetAddressInfoCoreEscapes checks that a kept reply is written in
// Core's output form: a label with characters Go and Core escape
// differently comes out as echo writes it.
func TestGetAddressInfoCoreEscapes(t *testing.T) {
	n := newWalletNode(t, t.TempDir())
	defer n.mgr.Close()
	if r := n.call(t, "/", "createwallet", json.RawMessage(`["w", true, true]`)); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	foreign := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	label := "a\u2028b\x7fc<&>\"\\"
	params, _ := json.Marshal([]string{foreign, label})
	if r := n.call(t, "/wallet/w", "setlabel", params); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	echoParams, _ := json.Marshal([]string{label})
	echo := n.call(t, "/", "echo", echoParams)
	if echo.Error != nil {
		t.Fatal(echo.Error.Message)
	}
	want := `"labels":` + string(echo.Result) + `}`
	for i := 0; i < 2; i++ { // computed, then kept
		r := n.call(t, "/wallet/w", "getaddressinfo", json.RawMessage(`["`+foreign+`"]`))
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		if !strings.HasSuffix(string(r.Result), want) {
			t.Errorf("reply %d ends %q, want %q", i, string(r.Result), want)
		}
	}
}
