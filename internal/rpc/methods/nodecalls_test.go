package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/scan"
	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletscan"
)

// backendOnly is a ChainService that only hands out a backend (the node
// calls need nothing else).
type backendOnly struct{ b chain.Backend }

func (s backendOnly) Backend() chain.Backend   { return s.b }
func (backendOnly) Track(*wallet.Wallet, bool) {}
func (backendOnly) Abort(*wallet.Wallet) bool  { return false }
func (backendOnly) Scanning(*wallet.Wallet) (walletscan.Scanning, bool) {
	return walletscan.Scanning{}, false
}
func (backendOnly) Rescan(context.Context, *wallet.Wallet, int32, int32) (scan.Result, error) {
	return scan.Result{}, nil
}
func (backendOnly) ImportRescan(context.Context, *wallet.Wallet, []walletscan.ImportTime) error {
	return nil
}

// recordedBitcoind serves the recorded replies of a real bitcoind
// (bitcoind_backend.json) and, where the recording has no entry, the
// replies of extra (this test's own double, named as such), and keeps every
// request it received.
type recordedBitcoind struct {
	t       *testing.T
	replies map[string]json.RawMessage // "method params" -> reply object
	status  map[string]int

	mu       sync.Mutex
	requests []string
}

// recordedCase is one exchange of bitcoind_backend.json.
type recordedCase struct {
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
	HTTPStatus int             `json:"http_status"`
	Reply      json.RawMessage `json:"reply"`
}

// canonKey is the key of a request: its method and its params compacted.
func canonKey(method string, params json.RawMessage) string {
	if len(params) == 0 {
		params = json.RawMessage("[]")
	}
	var b bytes.Buffer
	json.Compact(&b, params)
	return method + " " + b.String()
}

func newRecordedBitcoind(t *testing.T, extra []recordedCase) (*recordedBitcoind, []recordedCase) {
	var file struct {
		Cases []recordedCase `json:"cases"`
	}
	testvec.Load(t, "bitcoind_backend.json", &file)
	n := &recordedBitcoind{t: t, replies: map[string]json.RawMessage{}, status: map[string]int{}}
	for _, c := range append(append([]recordedCase(nil), file.Cases...), extra...) {
		k := canonKey(c.Method, c.Params)
		n.replies[k], n.status[k] = c.Reply, c.HTTPStatus
	}
	return n, file.Cases
}

func (n *recordedBitcoind) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		n.t.Errorf("request %s: %v", body, err)
	}
	k := canonKey(req.Method, req.Params)
	n.mu.Lock()
	n.requests = append(n.requests, k)
	n.mu.Unlock()
	reply, ok := n.replies[k]
	status := n.status[k]
	if !ok {
		n.t.Errorf("request not in the recording: %s", k)
		reply, status = json.RawMessage(`{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":null}`), 404
	}
	var obj map[string]json.RawMessage
	json.Unmarshal(reply, &obj)
	obj["id"] = req.ID
	out, _ := json.Marshal(obj)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

// taken returns and forgets the requests received so far.
func (n *recordedBitcoind) taken() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.requests
	n.requests = nil
	return r
}

// nodeServer serves the whole method table with b as the chain backend
// (nil: no backend).
func nodeServer(t *testing.T, b chain.Backend) *rpc.Server {
	t.Helper()
	d := &Deps{Net: &chaincfg.RegressionNetParams}
	if b != nil {
		d.Chain = backendOnly{b}
	}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// nodeReply is one reply as the client saw it.
type nodeReply struct {
	Status int
	Result json.RawMessage
	Error  *rpc.Error
	Body   []byte
}

// nodeCall sends one legacy request to path ("/" or "/wallet/<name>").
func nodeCall(t *testing.T, s http.Handler, path, method string, params json.RawMessage) nodeReply {
	t.Helper()
	if params == nil {
		params = json.RawMessage("[]")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.SetBasicAuth("u", "p")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *rpc.Error      `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("%s: reply %q: %v", method, w.Body.String(), err)
	}
	return nodeReply{Status: w.Code, Result: r.Result, Error: r.Error, Body: w.Body.Bytes()}
}

// bitcoindClient returns a chain client of kind talking to h.
func backendClient(t *testing.T, kind chain.Kind, h http.Handler) *chain.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := chain.New(chain.Config{Kind: kind, Net: &chaincfg.RegressionNetParams,
		Host: strings.TrimPrefix(srv.URL, "http://"), User: "user", Password: "pass", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nodeCallArgs are valid arguments for each node call, so that the calls
// get past their argument checks.
var nodeCallArgs = map[string]string{
	"getblockhash":       `[0]`,
	"getblockheader":     `["0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"]`,
	"getblock":           `["0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206", 2]`,
	"getbestblockhash":   `[]`,
	"getchaintips":       `[]`,
	"getblockstats":      `[1]`,
	"getblockfilter":     `["0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"]`,
	"getrawtransaction":  `["10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1", 1]`,
	"gettxout":           `["10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1", 0]`,
	"gettxoutproof":      `[["10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1"]]`,
	"verifytxoutproof":   `["00"]`,
	"getrawmempool":      `[true]`,
	"getmempoolinfo":     `[]`,
	"getmempoolentry":    `["10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1"]`,
	"estimatesmartfee":   `[6]`,
	"sendrawtransaction": `["00"]`,
	"testmempoolaccept":  `[["00"]]`,
	"scantxoutset":       `["status"]`,
	"getdeploymentinfo":  `[]`,
	"getindexinfo":       `[]`,
	// Forwarded without checks.
	"generatetoaddress": `[1, "bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc"]`,
	"getpeerinfo":       `[]`,
}

// TestNodeCallsNoBackend checks that every node call of an offline node
// answers -9 saying there is no chain backend, on "/" and on a wallet's
// path, and that getnetworkinfo still reports descwallet's version.
func TestNodeCallsNoBackend(t *testing.T) {
	s := nodeServer(t, nil)
	for method, args := range nodeCallArgs {
		for _, path := range []string{"/", "/wallet/w1"} {
			r := nodeCall(t, s, path, method, json.RawMessage(args))
			if r.Error == nil || r.Error.Code != rpc.CodeClientNotConnected ||
				!strings.Contains(r.Error.Message, "not connected to a chain backend") || r.Status != 500 {
				t.Errorf("%s %s: %d %s, want -9 no chain backend", path, method, r.Status, r.Body)
			}
		}
	}
	r := nodeCall(t, s, "/", "getnetworkinfo", nil)
	var info map[string]any
	if r.Error != nil || json.Unmarshal(r.Result, &info) != nil {
		t.Fatalf("getnetworkinfo: %s", r.Body)
	}
	if info["version"] != float64(300000) || info["subversion"] != "/Satoshi:30.0.0/descwallet:"+Version+"/" ||
		info["connections"] != float64(0) || info["networkactive"] != false {
		t.Errorf("getnetworkinfo offline: %s", r.Result)
	}
}

// extraReplies are this test's own double's answers for calls the
// recording of a real bitcoind does not hold (its shape is Core's
// generatetoaddress result: an array of block hashes).
var extraReplies = []recordedCase{
	{Method: "generatetoaddress", Params: json.RawMessage(`[1,"bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc"]`),
		HTTPStatus: 200, Reply: json.RawMessage(`{"result":["63f84ffebeed116a485423d6ba944e69927366797cd91810f2bf4bddcb5d2b14"],"error":null,"id":1}`)},
	{Method: "generatetoaddress", Params: json.RawMessage(`{"nblocks":1,"address":"bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc"}`),
		HTTPStatus: 200, Reply: json.RawMessage(`{"result":["63f84ffebeed116a485423d6ba944e69927366797cd91810f2bf4bddcb5d2b14"],"error":null,"id":1}`)},
	{Method: "getpeerinfo", Params: json.RawMessage(`[1]`),
		HTTPStatus: 500, Reply: json.RawMessage(`{"result":null,"error":{"code":-1,"message":"getpeerinfo\n\nReturns data about each connected network peer as a json array of objects.\n"},"id":1}`)},
}

// TestNodeCallsBitcoindForwarding replays every recorded call of a real
// bitcoind that descwallet forwards: the client sends it to descwallet (on
// "/" and on a wallet path), descwallet must send exactly that call to
// bitcoind and return bitcoind's result or error (code, message, HTTP
// status) as it is. getnetworkinfo is bitcoind's with descwallet's version
// and subversion, in bitcoind's field order.
func TestNodeCallsBitcoindForwarding(t *testing.T) {
	double, cases := newRecordedBitcoind(t, extraReplies)
	s := nodeServer(t, backendClient(t, chain.KindBitcoind, double))
	local := map[string]bool{"getblockchaininfo": true, "getblockcount": true, "getnetworkinfo": true, "nosuchmethod": true}
	n := 0
	for _, c := range append(cases, extraReplies...) {
		if local[c.Method] {
			continue
		}
		var want struct {
			Result json.RawMessage `json:"result"`
			Error  *rpc.Error      `json:"error"`
		}
		json.Unmarshal(c.Reply, &want)
		for _, path := range []string{"/", "/wallet/specteradmin/hot1"} {
			r := nodeCall(t, s, path, c.Method, c.Params)
			key := canonKey(c.Method, c.Params)
			if got := double.taken(); len(got) != 1 || got[0] != key {
				t.Errorf("%s %s: bitcoind received %q", path, key, got)
			}
			if r.Status != c.HTTPStatus {
				t.Errorf("%s %s: HTTP %d, want %d", path, key, r.Status, c.HTTPStatus)
			}
			if (r.Error == nil) != (want.Error == nil) ||
				r.Error != nil && (r.Error.Code != want.Error.Code || r.Error.Message != want.Error.Message) {
				t.Errorf("%s %s: error %+v, want %+v", path, key, r.Error, want.Error)
			}
			if want.Error == nil && !sameJSON(r.Result, want.Result) {
				t.Errorf("%s %s: result %s, want %s", path, key, r.Result, want.Result)
			}
			n++
		}
	}
	if n < 40 {
		t.Fatalf("only %d forwarded calls replayed", n)
	}

	// getnetworkinfo: bitcoind's answer with descwallet's version.
	var rec recordedCase
	for _, c := range cases {
		if c.Method == "getnetworkinfo" {
			rec = c
		}
	}
	r := nodeCall(t, s, "/", "getnetworkinfo", nil)
	double.taken()
	var recReply struct {
		Result json.RawMessage `json:"result"`
	}
	json.Unmarshal(rec.Reply, &recReply)
	gotKeys, wantKeys := objectKeys(t, r.Result), objectKeys(t, recReply.Result)
	if strings.Join(gotKeys, ",") != strings.Join(wantKeys, ",") {
		t.Errorf("getnetworkinfo fields %v, want %v", gotKeys, wantKeys)
	}
	var got, want map[string]any
	json.Unmarshal(r.Result, &got)
	json.Unmarshal(recReply.Result, &want)
	want["version"], want["subversion"] = float64(300000), "/Satoshi:30.0.0/descwallet:"+Version+"/"
	if b1, _ := json.Marshal(got); !sameJSON(b1, mustJSON(want)) {
		t.Errorf("getnetworkinfo %s", r.Result)
	}

	// A method no table holds is not forwarded.
	if r := nodeCall(t, s, "/", "nosuchmethod", nil); r.Error == nil || r.Error.Code != rpc.CodeMethodNotFound ||
		r.Status != 404 {
		t.Errorf("nosuchmethod: %s", r.Body)
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("nosuchmethod reached bitcoind: %q", got)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// coreWalletTable and coreControlTable are the methods of Core's wallet
// and control tables (src/wallet/rpc, src/rpc/server.cpp).
var (
	coreWalletTable = strings.Fields(`abandontransaction abortrescan backupwallet bumpfee createwallet
createwalletdescriptor encryptwallet getaddressesbylabel getaddressinfo getbalance getbalances
gethdkeys getnewaddress getrawchangeaddress getreceivedbyaddress getreceivedbylabel gettransaction
getwalletinfo importdescriptors importprunedfunds keypoolrefill listaddressgroupings
listdescriptors listlabels listlockunspent listreceivedbyaddress listreceivedbylabel listsinceblock
listtransactions listunspent listwalletdir listwallets loadwallet lockunspent migratewallet
psbtbumpfee removeprunedfunds rescanblockchain restorewallet send sendall sendmany sendtoaddress
setlabel settxfee setwalletflag signmessage signrawtransactionwithwallet simulaterawtransaction
unloadwallet walletcreatefundedpsbt walletdisplayaddress walletlock walletpassphrase
walletpassphrasechange walletprocesspsbt enumeratesigners`)
	coreControlTable = strings.Fields(`getmemoryinfo getrpcinfo help logging stop uptime getzmqnotifications`)
)

// TestNodeCallsWalletMethodsNotForwarded checks that a method of Core's
// wallet or control table that descwallet does not serve answers -32601
// "Method not found" with a bitcoind backend, on "/" and on a wallet path,
// and never reaches bitcoind.
func TestNodeCallsWalletMethodsNotForwarded(t *testing.T) {
	double, _ := newRecordedBitcoind(t, nil)
	s := nodeServer(t, backendClient(t, chain.KindBitcoind, double))
	served := map[string]bool{}
	for _, m := range All(&Deps{Net: &chaincfg.RegressionNetParams}) {
		served[m.Name] = true
	}
	missing := 0
	for _, name := range append(append([]string(nil), coreWalletTable...), coreControlTable...) {
		if served[name] {
			continue
		}
		missing++
		for _, path := range []string{"/", "/wallet/w1"} {
			r := nodeCall(t, s, path, name, nil)
			if r.Error == nil || r.Error.Code != rpc.CodeMethodNotFound || r.Error.Message != "Method not found" ||
				r.Status != 404 {
				t.Errorf("%s %s: %d %s, want -32601 Method not found", path, name, r.Status, r.Body)
			}
		}
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("wallet or control methods reached bitcoind: %q", got)
	}
	t.Logf("%d wallet and control methods not served, none forwarded", missing)
}

// TestNodeCallsBtcdCannot checks the -32601 of the calls btcd cannot
// answer: the message names the btcd backend, and btcd is not asked.
func TestNodeCallsBtcdCannot(t *testing.T) {
	double, _ := newRecordedBitcoind(t, nil)
	s := nodeServer(t, backendClient(t, chain.KindBtcd, double))
	for _, method := range []string{"scantxoutset", "getdeploymentinfo", "generatetoaddress", "getpeerinfo"} {
		args := nodeCallArgs[method]
		if method == "scantxoutset" {
			args = `["start", ["addr(bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc)"]]`
		}
		r := nodeCall(t, s, "/", method, json.RawMessage(args))
		if r.Error == nil || r.Error.Code != rpc.CodeMethodNotFound || !strings.Contains(r.Error.Message, "btcd chain backend") ||
			!strings.Contains(r.Error.Message, method) || r.Status != 404 {
			t.Errorf("%s: %d %s", method, r.Status, r.Body)
		}
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("btcd was asked: %q", got)
	}
}

// TestScanTxOutSetBtcdIdle checks scantxoutset's answers over btcd,
// where no scan ever runs: "status" null and "abort" false, as Core
// answers with no scan in progress, an unknown action Core's -8; btcd is
// not asked.
func TestScanTxOutSetBtcdIdle(t *testing.T) {
	double, _ := newRecordedBitcoind(t, nil)
	s := nodeServer(t, backendClient(t, chain.KindBtcd, double))
	for _, c := range []struct{ args, want string }{
		{`["status"]`, `null`}, {`["abort"]`, `false`}, {`["status", []]`, `null`},
	} {
		r := nodeCall(t, s, "/", "scantxoutset", json.RawMessage(c.args))
		if r.Error != nil || string(r.Result) != c.want {
			t.Errorf("scantxoutset %s: %d %s", c.args, r.Status, r.Body)
		}
	}
	r := nodeCall(t, s, "/", "scantxoutset", json.RawMessage(`["stop"]`))
	if r.Error == nil || r.Error.Code != rpc.CodeInvalidParameter || r.Error.Message != "Invalid action 'stop'" {
		t.Errorf("unknown action: %d %s", r.Status, r.Body)
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("btcd was asked: %q", got)
	}
}

// TestNodeCallsForwardingWhitelist checks that -rpcwhitelist applies
// before forwarding: a user whose list lacks a method gets the empty 403 and
// bitcoind is not asked; a listed method is forwarded.
func TestNodeCallsForwardingWhitelist(t *testing.T) {
	double, _ := newRecordedBitcoind(t, extraReplies)
	d := &Deps{Net: &chaincfg.RegressionNetParams, Chain: backendOnly{backendClient(t, chain.KindBitcoind, double)}}
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{Methods: All(d), Auth: auth, MapError: MapError,
		Whitelist: rpc.NewWhitelist([]string{"u:getbestblockhash"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"generatetoaddress", "getblock"} {
		r := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{"method":"`+m+`","params":[1,"bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc"],"id":1}`))
		req.SetBasicAuth("u", "p")
		req.RemoteAddr = "127.0.0.1:5000"
		s.ServeHTTP(r, req)
		if r.Code != http.StatusForbidden || r.Body.Len() != 0 {
			t.Errorf("%s: %d %q, want an empty 403", m, r.Code, r.Body.String())
		}
	}
	if got := double.taken(); len(got) != 0 {
		t.Errorf("refused calls reached bitcoind: %q", got)
	}
	if r := nodeCall(t, s, "/", "getbestblockhash", nil); r.Error != nil ||
		string(r.Result) != `"63f84ffebeed116a485423d6ba944e69927366797cd91810f2bf4bddcb5d2b14"` {
		t.Errorf("allowed call: %s", r.Body)
	}
	if got := double.taken(); len(got) != 1 || got[0] != "getbestblockhash []" {
		t.Errorf("bitcoind received %q", got)
	}
}

// TestNodeCallsBtcdNoTxIndex checks getrawtransaction on a btcd without a
// transaction index (this test's double answers as btcd does): Core's
// message for a node without -txindex.
func TestNodeCallsBtcdNoTxIndex(t *testing.T) {
	const txid = "10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1"
	double, _ := newRecordedBitcoind(t, []recordedCase{{Method: "getrawtransaction", Params: json.RawMessage(`["` + txid + `",1]`),
		HTTPStatus: 500, Reply: json.RawMessage(`{"result":null,"error":{"code":-5,"message":"The transaction index must be enabled to query the blockchain (specify --txindex)"},"id":1}`)}})
	s := nodeServer(t, backendClient(t, chain.KindBtcd, double))
	r := nodeCall(t, s, "/", "getrawtransaction", json.RawMessage(`["`+txid+`"]`))
	if r.Error == nil || r.Error.Code != rpc.CodeInvalidAddressOrKey || r.Error.Message !=
		"No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions." {
		t.Errorf("getrawtransaction without txindex: %s", r.Body)
	}
}
