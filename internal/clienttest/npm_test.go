package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/internal/testvec"
)

// bitcoinCoreVersion is the pinned release of the npm `bitcoin-core` client;
// .ci/run and the Makefile's npm-bitcoin-core target install the same one.
const bitcoinCoreVersion = "5.0.0"

// npmInstallTimeout bounds the npm install of the client.
const npmInstallTimeout = 5 * time.Minute

// bitcoinCorePrefix is the npm prefix the client is installed into,
// <repo>/.cache/npm-bitcoin-core.
func bitcoinCorePrefix() string {
	return filepath.Join(testenv.RepoRoot(), ".cache", "npm-bitcoin-core")
}

// installedBitcoinCore returns the version of the client installed under
// prefix, or "" when there is none.
func installedBitcoinCore(prefix string) string {
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", "bitcoin-core", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

var (
	bitcoinCoreOnce sync.Once
	bitcoinCoreDir  string
	bitcoinCoreErr  error
)

// bitcoinCoreModule returns the folder of the pinned client package,
// installing it once per test binary when the cache lacks it. The install
// goes to a fresh folder renamed into place, so test binaries running at
// once never see a half-installed package.
func bitcoinCoreModule() (string, error) {
	bitcoinCoreOnce.Do(func() {
		prefix := bitcoinCorePrefix()
		module := filepath.Join(prefix, "node_modules", "bitcoin-core")
		if installedBitcoinCore(prefix) == bitcoinCoreVersion {
			bitcoinCoreDir = module
			return
		}
		if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
			bitcoinCoreErr = err
			return
		}
		staging, err := os.MkdirTemp(filepath.Dir(prefix), "npm-bitcoin-core.tmp-")
		if err != nil {
			bitcoinCoreErr = err
			return
		}
		defer os.RemoveAll(staging)
		ctx, cancel := context.WithTimeout(context.Background(), npmInstallTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", staging,
			"bitcoin-core@"+bitcoinCoreVersion, "--save-exact", "--no-audit", "--no-fund")
		if out, err := cmd.CombinedOutput(); err != nil {
			bitcoinCoreErr = fmt.Errorf("npm install bitcoin-core@%s: %v\n%s", bitcoinCoreVersion, err, out)
			return
		}
		if got := installedBitcoinCore(staging); got != bitcoinCoreVersion {
			bitcoinCoreErr = fmt.Errorf("npm installed bitcoin-core %q, want %s", got, bitcoinCoreVersion)
			return
		}
		if installedBitcoinCore(prefix) != bitcoinCoreVersion {
			// Another version, or another test binary's install in between.
			_ = os.RemoveAll(prefix)
			if err := os.Rename(staging, prefix); err != nil &&
				installedBitcoinCore(prefix) != bitcoinCoreVersion {
				bitcoinCoreErr = err
				return
			}
		}
		bitcoinCoreDir = module
	})
	return bitcoinCoreDir, bitcoinCoreErr
}

// nodeInstallHint says how to install Node.js and npm where they are
// missing.
const nodeInstallHint = "this test needs Node.js and npm in PATH; on Debian run as root: " +
	"apt-get install nodejs npm, then `make npm-bitcoin-core`"

// requireNode returns when node and npm are on PATH; when one is missing
// the test fails saying how to install them.
func requireNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (%v): %s", tool, err, nodeInstallHint)
		}
	}
}

// npmOutcome is one call's outcome as bitcoin_core_client.js reports it: the
// result, or the error object the client raised.
type npmOutcome struct {
	Result json.RawMessage `json:"result"`
	Error  *npmError       `json:"error"`
}

// npmError is what a caller of the client reads from its error object.
type npmError struct {
	Name    string `json:"name"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// npmReport is what bitcoin_core_client.js prints.
type npmReport struct {
	Echo        npmOutcome   `json:"echo"`
	UptimeIsInt bool         `json:"uptime_is_int"`
	RPCInfo     npmOutcome   `json:"rpcinfo"`
	Descriptors []npmOutcome `json:"descriptors"`
	Named       npmOutcome   `json:"named"`
	Unknown     npmOutcome   `json:"unknown"`
	Batch       []npmOutcome `json:"batch"`
	BadPassword npmOutcome   `json:"bad_password"`
}

// descriptorCase is a recorded getdescriptorinfo call of Bitcoin Core.
type descriptorCase struct {
	ID     string   `json:"id"`
	Method string   `json:"method"`
	Params []string `json:"params"`
	Expect struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"expect"`
}

// recordedDescriptorCases returns the named getdescriptorinfo cases of
// core_rpc/stateless.json, in the order given.
func recordedDescriptorCases(t *testing.T, ids ...string) []descriptorCase {
	t.Helper()
	var file struct {
		Cases []json.RawMessage `json:"cases"`
	}
	testvec.Load(t, "core_rpc/stateless.json", &file)
	byID := map[string]descriptorCase{}
	for _, raw := range file.Cases {
		var c descriptorCase
		if json.Unmarshal(raw, &c) == nil && c.Method == "getdescriptorinfo" {
			byID[c.ID] = c
		}
	}
	out := make([]descriptorCase, len(ids))
	for i, id := range ids {
		c, ok := byID[id]
		if !ok || len(c.Params) != 1 {
			t.Fatalf("stateless.json: no one-parameter getdescriptorinfo case %s", id)
		}
		out[i] = c
	}
	return out
}

// checkOutcome compares a call's outcome with the one Core recorded.
func checkOutcome(t *testing.T, what string, got npmOutcome, c descriptorCase) {
	t.Helper()
	if c.Expect.Error != nil {
		want := npmError{Name: "RpcError", Code: c.Expect.Error.Code, Message: c.Expect.Error.Message}
		if got.Error == nil || *got.Error != want {
			t.Errorf("%s (%s): got %+v %s, want error %+v", what, c.ID, got.Error, got.Result, want)
		}
		return
	}
	if got.Error != nil || !sameJSON(t, got.Result, c.Expect.Result) {
		t.Errorf("%s (%s): got %+v %s\nwant %s", what, c.ID, got.Error, got.Result, c.Expect.Result)
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("recorded result %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// TestNpmBitcoinCore drives the daemon with the npm `bitcoin-core` client
// (pinned to bitcoinCoreVersion) through testdata/bitcoin_core_client.js:
// calls through the client's named methods and its generic command, a
// JSON-RPC error, named parameters, a batch, and a wrong password. The
// descriptor calls are checked against Bitcoin Core's recorded answers.
func TestNpmBitcoinCore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	requireNode(t)
	t.Parallel()
	module, err := bitcoinCoreModule()
	if err != nil {
		t.Fatalf("%v\nthe npm bitcoin-core client %s is missing and could not be installed: run `make npm-bitcoin-core` "+
			"(it needs npm's registry)", err, bitcoinCoreVersion)
	}
	cases := recordedDescriptorCases(t,
		"gdi-tr-multi_a",
		"gdi-checksum-of-input-not-normalized",
		"gdi-invalid-multipath-unclosed",
	)

	d := startDaemon(t, "npmuser", "npmpass")
	req := map[string]any{
		"host":     "http://127.0.0.1:" + strconv.Itoa(d.Port),
		"username": "npmuser",
		"password": "npmpass",
	}
	descs := make([]string, len(cases))
	for i, c := range cases {
		descs[i] = c.Params[0]
	}
	req["descriptors"] = descs
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "bitcoin_core_client.js"), module)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bitcoin_core_client.js: %v\n%s", err, stderr.Bytes())
	}
	var r npmReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("bitcoin_core_client.js output %q: %v", out, err)
	}

	if r.Echo.Error != nil || !sameJSON(t, r.Echo.Result, json.RawMessage(`["a",1,[true,null],{"k":"v"}]`)) {
		t.Errorf("echo: %+v %s", r.Echo.Error, r.Echo.Result)
	}
	if !r.UptimeIsInt {
		t.Error("uptime: not a non-negative integer")
	}
	var info struct {
		ActiveCommands []struct {
			Method   string `json:"method"`
			Duration *int64 `json:"duration"`
		} `json:"active_commands"`
		LogPath *string `json:"logpath"`
	}
	if r.RPCInfo.Error != nil || json.Unmarshal(r.RPCInfo.Result, &info) != nil ||
		len(info.ActiveCommands) != 1 || info.ActiveCommands[0].Method != "getrpcinfo" ||
		info.ActiveCommands[0].Duration == nil || info.LogPath == nil {
		t.Errorf("getrpcinfo: %+v %s", r.RPCInfo.Error, r.RPCInfo.Result)
	}

	if len(r.Descriptors) != len(cases) {
		t.Fatalf("getdescriptorinfo: %d outcomes for %d calls", len(r.Descriptors), len(cases))
	}
	for i, c := range cases {
		checkOutcome(t, "getdescriptorinfo", r.Descriptors[i], c)
	}
	checkOutcome(t, "getdescriptorinfo with named parameters", r.Named, cases[0])

	notFound := npmError{Name: "RpcError", Code: -32601, Message: "Method not found"}
	if r.Unknown.Error == nil || *r.Unknown.Error != notFound {
		t.Errorf("unknown method: %+v %s, want %+v", r.Unknown.Error, r.Unknown.Result, notFound)
	}

	if len(r.Batch) != 3 {
		t.Fatalf("batch: %d entries, want 3: %s", len(r.Batch), out)
	}
	if r.Batch[0].Error != nil || !sameJSON(t, r.Batch[0].Result, json.RawMessage(`["b1"]`)) {
		t.Errorf("batch echo: %+v %s", r.Batch[0].Error, r.Batch[0].Result)
	}
	checkOutcome(t, "batch getdescriptorinfo", r.Batch[1], cases[len(cases)-1])
	if r.Batch[2].Error == nil || *r.Batch[2].Error != notFound {
		t.Errorf("batch unknown method: %+v %s, want %+v", r.Batch[2].Error, r.Batch[2].Result, notFound)
	}

	// Core answers a wrong password with a bare HTTP 401, which the client
	// raises with the status as its code.
	unauthorized := npmError{Name: "RpcError", Code: 401, Message: "Unauthorized"}
	if r.BadPassword.Error == nil || *r.BadPassword.Error != unauthorized {
		t.Errorf("wrong password: %+v %s, want %+v", r.BadPassword.Error, r.BadPassword.Result, unauthorized)
	}
}
