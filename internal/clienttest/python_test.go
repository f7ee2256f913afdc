package clienttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// systemPython is Debian's interpreter, which sees the python3-bitcoinlib
// package; another python3 earlier on PATH would not.
const systemPython = "/usr/bin/python3"

// bitcoinlibInstallHint says how to install python-bitcoinlib where it is
// missing.
const bitcoinlibInstallHint = "python3-bitcoinlib is not installed: this test needs Debian's package " +
	"for " + systemPython + "; as root run `make python-bitcoinlib` (apt-get install python3-bitcoinlib)"

// requireBitcoinlib returns when python-bitcoinlib can be imported by the
// system's interpreter; when it cannot, the test fails saying how to install
// it (the library comes from the system's package manager, which .ci/run
// calls as root).
func requireBitcoinlib(t *testing.T) {
	t.Helper()
	if err := exec.Command(systemPython, "-c", "import bitcoin.rpc").Run(); err != nil {
		t.Fatalf("%s (%s -c 'import bitcoin.rpc': %v)", bitcoinlibInstallHint, systemPython, err)
	}
}

// rawProxyReport is what rawproxy.py prints.
type rawProxyReport struct {
	Echo        any             `json:"echo"`
	EchoJSON    any             `json:"echojson"`
	UptimeIsInt bool            `json:"uptime_is_int"`
	Unknown     any             `json:"unknown"`
	TooMany     any             `json:"too_many"`
	Batch       json.RawMessage `json:"batch"`
	// ImportAfterTimeout is the range of a descriptor whose import's
	// caller timed out (url mode only).
	ImportAfterTimeout any `json:"import_after_timeout"`
}

// runRawProxy runs rawproxy.py and decodes its report.
func runRawProxy(t *testing.T, mode, arg string) rawProxyReport {
	t.Helper()
	cmd := exec.Command(systemPython, "rawproxy.py", mode, arg)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("rawproxy.py %s: %v\n%s", mode, err, stderr)
	}
	var r rawProxyReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("rawproxy.py output %q: %v", out, err)
	}
	return r
}

// checkRawProxyReport compares a report with what Core answers.
func checkRawProxyReport(t *testing.T, r rawProxyReport) {
	t.Helper()
	want := rawProxyReport{
		Echo:        []any{"a", 1.0, []any{true, nil}, map[string]any{"k": "v"}},
		EchoJSON:    []any{map[string]any{"x": []any{1.0, 2.0}}},
		UptimeIsInt: true,
		Unknown:     map[string]any{"code": -32601.0, "message": "Method not found"},
		TooMany:     -1.0,
	}
	got := r
	got.Batch = nil
	got.ImportAfterTimeout = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("report %+v\nwant %+v", got, want)
	}
	var batch []map[string]any
	if err := json.Unmarshal(r.Batch, &batch); err != nil {
		t.Fatal(err)
	}
	wantBatch := []map[string]any{
		{"result": []any{"b1"}, "error": nil, "id": 1.0},
		{"result": nil, "error": map[string]any{"code": -32601.0, "message": "Method not found"}, "id": 2.0},
	}
	if !reflect.DeepEqual(batch, wantBatch) {
		t.Errorf("batch %s", r.Batch)
	}
}

// TestPythonRawProxy drives the daemon with python-bitcoinlib's RawProxy,
// first with user and password in the service URL, then the way it finds
// bitcoind by itself: rpcport from the configuration file and the cookie from
// the regtest folder beside it.
func TestPythonRawProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	requireBitcoinlib(t)
	t.Parallel()

	t.Run("user and password", func(t *testing.T) {
		t.Parallel()
		d := startDaemon(t, "pyuser", "pypass")
		r := runRawProxy(t, "url", "http://pyuser:pypass@127.0.0.1:"+strconv.Itoa(d.Port))
		checkRawProxyReport(t, r)
		// The caller's timeout does not cut the import short.
		if !reflect.DeepEqual(r.ImportAfterTimeout, []any{0.0, 40000.0}) {
			t.Errorf("import whose caller timed out: %v, want range [0, 40000]", r.ImportAfterTimeout)
		}
	})

	t.Run("cookie", func(t *testing.T) {
		t.Parallel()
		d := startDaemon(t, "", "")
		conf := filepath.Join(d.DataDir, "descwallet.conf")
		writeFile(t, conf, "rpcconnect=127.0.0.1\nrpcport="+strconv.Itoa(d.Port)+"\n")
		r := runRawProxy(t, "conf", conf)
		checkRawProxyReport(t, r)
	})
}
