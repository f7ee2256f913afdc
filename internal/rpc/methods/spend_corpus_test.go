package methods

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// spendStepID names step i of a spend.json scenario in the pending lists.
func spendStepID(scenario string, i int) string { return fmt.Sprintf("%s/%d", scenario, i) }

// newSpendNode is the node spend.json was recorded on: regtest, no chain,
// -fallbackfee=0.0001, default key pool, wallets behind the full RPC path.
func newSpendNode(t testing.TB, dir string) *walletNode {
	t.Helper()
	return newOptionsNode(t, dir, map[string]string{"fallbackfee": "0.0001"}, nil)
}

// newOptionsNode is newSpendNode with the given wallet options and
// -deprecatedrpc names.
func newOptionsNode(t testing.TB, dir string, kv map[string]string, deprecated []string) *walletNode {
	t.Helper()
	return newOptionsNodeOn(t, dir, kv, deprecated, walletdb.Opener{})
}

// newOptionsNodeOn is newOptionsNode with the wallets on the store of
// opener.
func newOptionsNodeOn(t testing.TB, dir string, kv map[string]string, deprecated []string, opener wallet.Opener) *walletNode {
	t.Helper()
	opts, _, err := wallet.ParseOptions(func(name string) (string, bool) {
		v, ok := kv[name]
		return v, ok
	}, deprecated)
	if err != nil {
		t.Fatal(err)
	}
	mgr := wallet.NewManager(wallet.ManagerConfig{
		NetDir: dir + "/regtest", Net: &chaincfg.RegressionNetParams, Opener: opener,
		Options: &opts,
	})
	d := &Deps{Net: &chaincfg.RegressionNetParams, Wallets: mgr}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError})
	if err != nil {
		t.Fatal(err)
	}
	return &walletNode{dir: dir, mgr: mgr, handler: s}
}

// rawCallPath sends one JSON-RPC 2.0 request with raw params (number text
// kept) to path and returns the reply body.
func (n *walletNode) rawCallPath(path, method string, params json.RawMessage) []byte {
	var body bytes.Buffer
	body.WriteString(`{"jsonrpc":"2.0","id":1,"method":`)
	m, _ := json.Marshal(method)
	body.Write(m)
	body.WriteString(`,"params":`)
	body.Write(params)
	body.WriteString(`}`)
	req := httptest.NewRequest("POST", path, &body)
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	n.handler.ServeHTTP(w, req)
	return w.Body.Bytes()
}

// TestSpendCorpus replays the wallet scenarios of core_rpc/spend.json (the
// spending, coin-control and payment-detection calls on a chain with no
// blocks), each on a fresh node, steps in order. A step whose method is not
// served yet is on testvec's pending list under "rpc-<method>" and is left
// out; every other step must give Core's reply: the error code and message
// (only the code for arity errors carrying Core's help text), or the
// result with its field order and number text.
func TestSpendCorpus(t *testing.T) {
	var file struct {
		Scenarios []walletScenario `json:"scenarios"`
	}
	testvec.Load(t, "core_rpc/spend.json", &file)
	if len(file.Scenarios) < 5 {
		t.Fatalf("only %d spend.json scenarios", len(file.Scenarios))
	}
	for _, kind := range corpusStores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel() // each store on its own nodes
			ran, total := 0, 0
			pending := map[testvec.Feature]int{}
			for _, sc := range file.Scenarios {
				total += len(sc.Steps)
				t.Run(sc.ID, func(t *testing.T) {
					dir := t.TempDir()
					n := newOptionsNodeOn(t, dir, map[string]string{"fallbackfee": "0.0001"}, nil, storeOpener(t, dir, kind))
					defer n.mgr.Close()
					for i, st := range sc.Steps {
						if f, ok := testvec.Pending(spendStepID(sc.ID, i)); ok {
							pending[f]++
							continue
						}
						ran++
						replaySpendStep(t, n, dir, i, st.Wallet, st.Method, st.Params, st.Expect)
					}
				})
			}
			for f, k := range pending {
				t.Logf("%d steps pending on %s", k, f)
			}
			t.Logf("%d of %d steps ran", ran, total)
		})
	}
}

// replaySpendStep sends one step and compares the reply with Core's.
func replaySpendStep(t *testing.T, n *walletNode, dir string, i int, wallet *string, method string, params, expect json.RawMessage) {
	t.Helper()
	body := n.rawCallPath(walletPath(wallet), method, params)
	var got, exp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("step %d %s: reply %q: %v", i, method, body, err)
	}
	want := strings.ReplaceAll(string(expect), "<datadir>", dir)
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if exp.Error != nil {
		switch {
		case got.Error == nil:
			t.Errorf("step %d %s %s: got result %s, want error %d %q", i, method, params, got.Result, exp.Error.Code, exp.Error.Message)
		case isHelpText(method, exp.Error.Code, exp.Error.Message):
			if got.Error.Code != exp.Error.Code {
				t.Errorf("step %d %s %s: got error %d %q, want code %d (help text)", i, method, params, got.Error.Code, got.Error.Message, exp.Error.Code)
			}
		case got.Error.Code != exp.Error.Code || got.Error.Message != exp.Error.Message:
			t.Errorf("step %d %s %s: got error %d %q, want %d %q", i, method, params, got.Error.Code, got.Error.Message, exp.Error.Code, exp.Error.Message)
		}
		return
	}
	if got.Error != nil {
		t.Errorf("step %d %s %s: got error %d %q, want result %s", i, method, params, got.Error.Code, got.Error.Message, exp.Result)
		return
	}
	g, err := canonJSON(got.Result)
	if err != nil {
		t.Fatalf("step %d %s: result %s: %v", i, method, got.Result, err)
	}
	w, _ := canonJSON(exp.Result)
	if g != w {
		t.Errorf("step %d %s %s:\n got %s\nwant %s", i, method, params, g, w)
	}
}
