package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// getinfoNode answers the calls -getinfo makes. withNetwork selects whether
// getnetworkinfo exists; wallets are the loaded wallets.
func getinfoNode(t *testing.T, withNetwork bool, wallets []string) string {
	t.Helper()
	results := map[string]string{
		"getnetworkinfo": `{"version":300000,"subversion":"/x/","connections":3,"connections_in":1,"connections_out":2,` +
			`"networks":[{"name":"ipv4","proxy":"127.0.0.1:9050"},{"name":"ipv6","proxy":""},{"name":"onion","proxy":"127.0.0.1:9050"}],` +
			`"relayfee":0.00001000,"timeoffset":0,"warnings":""}`,
		"getblockchaininfo": `{"chain":"regtest","blocks":120,"headers":120,"difficulty":4.656542373906925e-10,` +
			`"verificationprogress":1,"warnings":["w1","w2"]}`,
		"getwalletinfo": `{"walletname":"","keypoolsize":1000}`,
		"getbalances":   `{"mine":{"trusted":1.50000000,"untrusted_pending":0.00000000}}`,
	}
	answer := func(method string, id json.RawMessage) string {
		if method == "getnetworkinfo" && !withNetwork {
			return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":%s}`, id)
		}
		if method == "listwallets" {
			b, _ := json.Marshal(wallets)
			return fmt.Sprintf(`{"jsonrpc":"2.0","result":%s,"id":%s}`, b, id)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","result":%s,"id":%s}`, results[method], id)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		type req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		var batch []req
		if json.Unmarshal(body, &batch) == nil {
			// Answer out of order: the client must sort by id.
			parts := make([]string, len(batch))
			for i, q := range batch {
				parts[len(batch)-1-i] = answer(q.Method, q.ID)
			}
			io.WriteString(w, "["+strings.Join(parts, ",")+"]")
			return
		}
		var one req
		if err := json.Unmarshal(body, &one); err != nil {
			t.Errorf("bad request %q", body)
		}
		io.WriteString(w, answer(one.Method, one.ID))
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

// TestGetinfo checks the -getinfo summary with and without
// getnetworkinfo, with several wallets, and its argument checks.
func TestGetinfo(t *testing.T) {
	t.Parallel()
	run := func(port string, extra ...string) (string, string, int) {
		args := append([]string{"-datadir=" + t.TempDir(), "-regtest", "-rpcport=" + port, "-rpcpassword=p", "-getinfo"}, extra...)
		return runCLI(t, "", args...)
	}

	port := getinfoNode(t, true, []string{""})
	out, errOut, status := run(port)
	want := "Chain: regtest\nBlocks: 120\nHeaders: 120\nVerification progress: 100.0000%\nDifficulty: 4.656542373906925e-10\n\n" +
		"Network: in 1, out 2, total 3\nVersion: 300000\nTime offset (s): 0\nProxies: 127.0.0.1:9050 (ipv4, onion)\n" +
		"Min tx relay fee rate (BTC/kvB): 0.00001000\n\n" +
		"Wallet: \"\"\nKeypool size: 1000\nBalance: 1.50000000\n\nWarnings: (none)\n"
	if out != want || status != 0 {
		t.Fatalf("stdout %q stderr %q status %d\nwant %q", out, errOut, status, want)
	}

	port = getinfoNode(t, false, []string{"a", "bb"})
	out, _, status = run(port)
	want = "Chain: regtest\nBlocks: 120\nHeaders: 120\nVerification progress: 100.0000%\nDifficulty: 4.656542373906925e-10\n\n" +
		"Wallet: \"\"\nKeypool size: 1000\nBalance: 1.50000000\n\n" +
		"Balances\n1.50000000 a\n1.50000000 bb\n\nWarnings: w1\nw2\n"
	if out != want || status != 0 {
		t.Fatalf("stdout %q status %d\nwant %q", out, status, want)
	}

	out, _, _ = run(port, "-color=always")
	if !strings.HasPrefix(out, "\x1b[34mChain: regtest\x1b[0m\n") {
		t.Fatalf("colour: %q", out)
	}
	_, errOut, status = run(port, "-color=pink")
	if status != 1 || errOut != "error: Invalid value for -color option. Valid values: always, auto, never.\n" {
		t.Fatalf("bad colour: %q %d", errOut, status)
	}
	_, errOut, status = run(port, "extra")
	if status != 1 || errOut != "error: -getinfo takes no arguments\n" {
		t.Fatalf("arguments: %q %d", errOut, status)
	}
}

// TestProgressBar checks the bar's length and fill.
func TestProgressBar(t *testing.T) {
	t.Parallel()
	if got := progressBar(0.5); got != strings.Repeat("\u2592", 10)+strings.Repeat("\u2591", 10) {
		t.Fatalf("half: %q", got)
	}
	if got := progressBar(0); got != strings.Repeat("\u2591", 20) {
		t.Fatalf("zero: %q", got)
	}
	if progressBar(-1) != "" || progressBar(2) != "" {
		t.Fatal("out of range drew a bar")
	}
}

// TestGenerate checks -generate: getnewaddress through -rpcwallet, then
// generatetoaddress with the number of blocks, the address and maxtries,
// printed as bitcoin-cli prints it, and its argument checks.
func TestGenerate(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var q struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			ID     json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(body, &q); err != nil {
			t.Errorf("bad request %q", body)
		}
		mu.Lock()
		calls = append(calls, r.URL.EscapedPath()+" "+q.Method+" "+string(q.Params))
		mu.Unlock()
		switch q.Method {
		case "getnewaddress":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":"bcrt1qaddr","id":%s}`, q.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":["h1","h2"],"id":%s}`, q.ID)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := []string{"-datadir=" + t.TempDir(), "-regtest", "-rpcport=" + port, "-rpcuser=u", "-rpcpassword=p",
		"-rpcwallet=w1", "-generate"}
	out, errOut, status := runCLI(t, "", append(base, "2", "1000")...)
	if status != 0 || errOut != "" || out != "{\n  \"address\": \"bcrt1qaddr\",\n  \"blocks\": [\n    \"h1\",\n    \"h2\"\n  ]\n}\n" {
		t.Fatalf("-generate 2 1000: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	want := []string{"/wallet/w1 getnewaddress []", `/wallet/w1 generatetoaddress [2,"bcrt1qaddr",1000]`}
	mu.Lock()
	got := append([]string(nil), calls...)
	calls = nil
	mu.Unlock()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls %q, want %q", got, want)
	}
	if _, _, status := runCLI(t, "", base...); status != 0 {
		t.Fatalf("-generate: status %d", status)
	}
	mu.Lock()
	last := calls[len(calls)-1]
	mu.Unlock()
	if last != `/wallet/w1 generatetoaddress [1,"bcrt1qaddr"]` {
		t.Fatalf("-generate without arguments: %q", last)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"0"}, "error: the first argument (number of blocks to generate, default: 1) must be an integer value greater than zero\n"},
		{[]string{"1", "2", "3"}, "error: too many arguments (maximum 2 for nblocks and maxtries)\n"},
		{[]string{"-getinfo"}, "error: Only one of -generate, -getinfo may be specified.\n"},
	} {
		_, errOut, status := runCLI(t, "", append(base, tc.args...)...)
		if status != 1 || errOut != tc.want {
			t.Errorf("-generate %q: status %d, stderr %q", tc.args, status, errOut)
		}
	}
}
