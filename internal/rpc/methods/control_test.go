package methods

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// fakeLogs is a LogControl over a map of tags at debug level.
type fakeLogs struct {
	mu    sync.Mutex
	debug map[string]bool
}

func (f *fakeLogs) IsDebug(tag string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.debug[tag]
}

func (f *fakeLogs) SetTagDebug(tag string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.debug[tag] = on
}

// controlNode serves the method table with d.
func controlNode(t *testing.T, d *Deps) *auditNode {
	t.Helper()
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError})
	if err != nil {
		t.Fatal(err)
	}
	return &auditNode{t: t, n: &walletNode{handler: s}}
}

// TestGetMemoryInfo: Core's two shapes from the Go heap, Core's errors.
func TestGetMemoryInfo(t *testing.T) {
	a := controlNode(t, &Deps{Net: &chaincfg.RegressionNetParams})
	for _, params := range []string{`[]`, `["stats"]`, `{"mode":"stats"}`} {
		r := a.ok(nil, "getmemoryinfo", params, "")
		if got := strings.Join(objectKeys(t, r), ","); got != "locked" {
			t.Fatalf("%s: keys %s", params, got)
		}
		var m struct {
			Locked json.RawMessage `json:"locked"`
		}
		json.Unmarshal(r, &m)
		if got := strings.Join(objectKeys(t, m.Locked), ","); got != "used,free,total,locked,chunks_used,chunks_free" {
			t.Fatalf("locked keys %s", got)
		}
		var l lockedMemoryInfo
		if err := json.Unmarshal(m.Locked, &l); err != nil {
			t.Fatal(err)
		}
		if l.Used == 0 || l.Total < l.Used || l.Free != l.Total-l.Used || l.Locked != 0 || l.ChunksUsed == 0 || l.ChunksFree != 0 {
			t.Errorf("%s: %+v", params, l)
		}
	}
	var xml string
	mustResult(t, a.do(nil, "getmemoryinfo", `["mallocinfo"]`), "mallocinfo", &xml)
	if !strings.HasPrefix(xml, "<malloc version=\"1\">\n<heap nr=\"0\">\n<sizes>\n  <size from=\"1\" to=\"") ||
		!strings.HasSuffix(xml, "</malloc>\n") || !strings.Contains(xml, "<total type=\"mmap\" count=\"0\" size=\"0\"/>") {
		t.Errorf("mallocinfo:\n%s", xml)
	}
	a.fails(nil, "getmemoryinfo", `["foo"]`, -8, "unknown mode foo")
	a.fails(nil, "getmemoryinfo", `[""]`, -8, "unknown mode ")
	a.code(nil, "getmemoryinfo", `[5]`, -3)
	a.code(nil, "getmemoryinfo", `["stats", 1]`, -1)
}

// TestLogging: Core's categories in Core's order, include then exclude,
// "all", the mapping onto descwallet's subsystems, and Core's errors
// (an unknown category fails after the ones before it took effect).
func TestLogging(t *testing.T) {
	logs := &fakeLogs{debug: map[string]bool{}}
	a := controlNode(t, &Deps{Net: &chaincfg.RegressionNetParams, Logging: logs})
	state := func(params string) map[string]bool {
		t.Helper()
		r := a.ok(nil, "logging", params, "")
		keys := objectKeys(t, r)
		if len(keys) != 29 || !sortedStrings(keys) || keys[0] != "addrman" || keys[28] != "zmq" {
			t.Fatalf("keys %v", keys)
		}
		var m map[string]bool
		json.Unmarshal(r, &m)
		return m
	}
	for c, on := range state(`[]`) {
		if on {
			t.Errorf("%s on at start", c)
		}
	}
	m := state(`[["rpc", "net"]]`)
	if !m["rpc"] || !m["net"] || m["scan"] || !logs.IsDebug("RPCS") || logs.IsDebug("SCAN") {
		t.Errorf("include rpc, net: %v %v", m, logs.debug)
	}
	m = state(`[null, ["rpc"]]`)
	if m["rpc"] || !m["net"] || logs.IsDebug("RPCS") {
		t.Errorf("exclude rpc: %v", m)
	}
	m = state(`[["all"], ["http", "walletdb"]]`)
	for c, on := range m {
		if on != (c != "http" && c != "walletdb") {
			t.Errorf("all but http, walletdb: %s %v", c, on)
		}
	}
	for _, tag := range allLogTags {
		if logs.IsDebug(tag) != (tag != "STOR" && tag != "WLLT") {
			t.Errorf("tag %s: %v", tag, logs.IsDebug(tag))
		}
	}
	m = state(`{"exclude":["1"]}`)
	for c, on := range m {
		if on {
			t.Errorf("%s on after exclude 1", c)
		}
	}
	if logs.IsDebug("NODE") {
		t.Error("NODE still at debug")
	}
	// -debug=store alone: walletdb also needs the wallet subsystem.
	logs.SetTagDebug("STOR", true)
	if m = state(`[]`); m["walletdb"] {
		t.Error("walletdb on with only STOR at debug")
	}
	logs.SetTagDebug("STOR", false)

	a.fails(nil, "logging", `[["scan", "foo", "tor"]]`, -8, "unknown logging category foo")
	if m = state(`[]`); !m["scan"] || m["tor"] {
		t.Errorf("after the failed call: scan %v tor %v", m["scan"], m["tor"])
	}
	a.fails(nil, "logging", `[[1]]`, -3, "JSON value of type number is not of expected type string")
	a.fails(nil, "logging", `[[], ["lock"]]`, -8, "unknown logging category lock")
	a.code(nil, "logging", `["rpc"]`, -3)
	a.code(nil, "logging", `[[], [], []]`, -1)
	a.ok(nil, "logging", `[[""]]`, "")
	if !logs.IsDebug("NODE") {
		t.Error(`"" is every category`)
	}

	// A node started with every subsystem at debug shows every category on.
	on := &fakeLogs{debug: map[string]bool{}}
	for _, tag := range allLogTags {
		on.debug[tag] = true
	}
	b := controlNode(t, &Deps{Net: &chaincfg.RegressionNetParams, Logging: on})
	var all map[string]bool
	mustResult(t, b.do(nil, "logging", `[]`), "logging", &all)
	for c, v := range all {
		if !v {
			t.Errorf("-debug=1: %s off", c)
		}
	}
}

func sortedStrings(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

// TestGetZMQNotifications: forwarded to a bitcoind backend as it came,
// an empty list with btcd (not asked) or no backend.
func TestGetZMQNotifications(t *testing.T) {
	const reply = `[{"type":"pubhashblock","address":"tcp://127.0.0.1:28332","hwm":1000}]`
	double, _ := newRecordedBitcoind(t, []recordedCase{{Method: "getzmqnotifications", Params: json.RawMessage(`[]`),
		HTTPStatus: 200, Reply: json.RawMessage(`{"result":` + reply + `,"error":null,"id":1}`)}})
	r := nodeCall(t, nodeServer(t, backendClient(t, chain.KindBitcoind, double)), "/", "getzmqnotifications", nil)
	if r.Error != nil || !sameJSON(r.Result, []byte(reply)) {
		t.Errorf("bitcoind: %s", r.Body)
	}
	if got := double.taken(); len(got) != 1 {
		t.Errorf("bitcoind asked %q", got)
	}
	r = nodeCall(t, nodeServer(t, backendClient(t, chain.KindBtcd, double)), "/", "getzmqnotifications", nil)
	if r.Error != nil || string(r.Result) != "[]" {
		t.Errorf("btcd: %s", r.Body)
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("btcd asked %q", got)
	}
	s := nodeServer(t, nil)
	r = nodeCall(t, s, "/", "getzmqnotifications", nil)
	if r.Error != nil || string(r.Result) != "[]" {
		t.Errorf("offline: %s", r.Body)
	}
	r = nodeCall(t, s, "/", "getzmqnotifications", json.RawMessage(`[1]`))
	if r.Error == nil || r.Error.Code != -1 {
		t.Errorf("an argument: %s", r.Body)
	}
}
