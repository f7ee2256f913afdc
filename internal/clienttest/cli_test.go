package clienttest

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// cliResult is what one descwallet-cli run printed and returned.
type cliResult struct {
	stdout, stderr string
	status         int
}

// runCLI runs the built descwallet-cli with args and stdin.
func runCLI(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(cliPath(), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	status := 0
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{out.String(), errb.String(), status}
}

// TestCLI runs descwallet-cli against a daemon using user and password.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	d := startDaemon(t, "alice", "s3cret:x")
	base := []string{"-datadir=" + d.DataDir, "-regtest", "-rpcport=" + strconv.Itoa(d.Port),
		"-rpcuser=alice", "-rpcpassword=s3cret:x"}
	cli := func(stdin string, args ...string) cliResult {
		return runCLI(t, stdin, append(append([]string{}, base...), args...)...)
	}

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  cliResult
	}{
		{"echo strings", "", []string{"echo", "a", "1", "true"},
			cliResult{"[\n  \"a\",\n  \"1\",\n  \"true\"\n]\n", "", 0}},
		{"echo nothing", "", []string{"echo"}, cliResult{"[\n]\n", "", 0}},
		{"echojson", "", []string{"echojson", `{"k":[1,2.50]}`, "null", `"s"`},
			cliResult{"[\n  {\n    \"k\": [\n      1,\n      2.50\n    ]\n  },\n  null,\n  \"s\"\n]\n", "", 0}},
		{"named", "", []string{"-named", "echo", "arg1=b", "arg0=a"},
			cliResult{"[\n  \"a\",\n  \"b\"\n]\n", "", 0}},
		{"named with positional", "", []string{"-named", "echojson", "7", "arg2=[]"},
			cliResult{"[\n  7,\n  null,\n  [\n  ]\n]\n", "", 0}},
		{"stdin", "x y\n{\"a\":1}\n", []string{"-stdin", "echo", "first"},
			cliResult{"[\n  \"first\",\n  \"x y\",\n  \"{\\\"a\\\":1}\"\n]\n", "", 0}},
		{"unknown method", "", []string{"nosuchmethod"},
			cliResult{"", "error code: -32601\nerror message:\nMethod not found\n", 32601 & 0xff}},
		{"unknown named parameter", "", []string{"-named", "echo", "bogus=1"},
			cliResult{"", "error code: -8\nerror message:\nUnknown named parameter bogus\n", 8}},
		{"bad json argument", "", []string{"echojson", "{"},
			cliResult{"", "error: Error parsing JSON: {\n", 1}},
		// Arguments bitcoin-cli sends as JSON (its conversion table):
		// arrays, objects, numbers and booleans of the raw transaction
		// and util calls.
		{"createrawtransaction", "", []string{"createrawtransaction",
			`[{"txid":"56de916503d37a7e31eaa8dedcd5aab858300beee29e9049eff173397c1b6293","vout":0}]`,
			`[{"bcrt1qwrqgj90aptm6fwvexjqanpxxtruh5ne37f26e8":1.5}]`, "0", "true"},
			cliResult{"020000000193621b7c3973f1ef49909ee2ee0b3058b8aad5dcdea8ea317e7ad3036591de560000000000fdffffff0180d1f0080000000016001470c08915fd0af7a4b9993481d984c658f97a4f3100000000\n", "", 0}},
		{"createmultisig", "", []string{"createmultisig", "1",
			`["02e2c33d94db1e766ebfe0f1915466c305e457e76ec0e4538e21d2a23adc776b85"]`, "legacy"},
			cliResult{"{\n  \"address\": \"2N6H7PMrDNmFVT8ZrRLWzEuwUw2MkugBh96\",\n  \"redeemScript\": \"512102e2c33d94db1e766ebfe0f1915466c305e457e76ec0e4538e21d2a23adc776b8551ae\",\n  \"descriptor\": \"sh(multi(1,02e2c33d94db1e766ebfe0f1915466c305e457e76ec0e4538e21d2a23adc776b85))#lqgrrv2m\"\n}\n", "", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cli(tt.stdin, tt.args...)
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	t.Run("too many parameters", func(t *testing.T) {
		got := cli("", "echo", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
		if got.status != 1 || !strings.HasPrefix(got.stderr, "error code: -1\nerror message:\necho ") {
			t.Fatalf("got %+v", got)
		}
	})

	t.Run("uptime", func(t *testing.T) {
		got := cli("", "uptime")
		if n, err := strconv.Atoi(strings.TrimSpace(got.stdout)); err != nil || n < 0 || got.status != 0 {
			t.Fatalf("got %+v", got)
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		got := runCLI(t, "", "-datadir="+d.DataDir, "-regtest", "-rpcport="+strconv.Itoa(d.Port),
			"-rpcuser=alice", "-rpcpassword=nope", "echo")
		want := cliResult{"", "error: Authorization failed: Incorrect rpcuser or rpcpassword\n", 1}
		if got != want {
			t.Fatalf("got %+v", got)
		}
	})

	t.Run("stdinrpcpass", func(t *testing.T) {
		got := runCLI(t, "s3cret:x\n", "-datadir="+d.DataDir, "-regtest", "-rpcport="+strconv.Itoa(d.Port),
			"-rpcuser=alice", "-stdinrpcpass", "echo", "ok")
		if got.status != 0 || got.stdout != "[\n  \"ok\"\n]\n" {
			t.Fatalf("got %+v", got)
		}
	})
}

// TestCLICookie runs descwallet-cli against a daemon using cookie
// authentication: the client finds the cookie in the data directory's
// regtest folder, and reads the port from descwallet.conf.
func TestCLICookie(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	d := startDaemon(t, "", "")
	writeFile(t, d.DataDir+"/descwallet.conf", "[regtest]\nrpcport="+strconv.Itoa(d.Port)+"\n")

	got := runCLI(t, "", "-datadir="+d.DataDir, "-regtest", "echo", "cookie")
	if got != (cliResult{"[\n  \"cookie\"\n]\n", "", 0}) {
		t.Fatalf("got %+v", got)
	}

	// Another network's folder has no cookie: the 401 is explained.
	got = runCLI(t, "", "-datadir="+d.DataDir, "-signet", "-rpcport="+strconv.Itoa(d.Port), "echo")
	if got.status != 1 || !strings.HasPrefix(got.stderr, "error: Could not locate RPC credentials. No authentication cookie could be found") {
		t.Fatalf("got %+v", got)
	}

	// The stop call prints its message and the daemon goes away.
	got = runCLI(t, "", "-datadir="+d.DataDir, "-regtest", "stop")
	if got.status != 0 || got.stdout == "" {
		t.Fatalf("stop: %+v", got)
	}
	<-d.Exited()
	got = runCLI(t, "", "-datadir="+d.DataDir, "-regtest", "echo")
	if got.status != 1 || !strings.HasPrefix(got.stderr, "error: timeout on transient error: Could not connect to the server 127.0.0.1:"+strconv.Itoa(d.Port)+"\n") {
		t.Fatalf("after stop: %+v", got)
	}
}

// TestCLIWallets checks -rpcwallet routing (with a name that needs
// percent-encoding), the hint bitcoin-cli adds when no wallet was chosen,
// and named boolean arguments.
func TestCLIWallets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	d := startDaemon(t, "u", "p")
	cli := func(args ...string) cliResult {
		base := []string{"-datadir=" + d.DataDir, "-regtest", "-rpcport=" + strconv.Itoa(d.Port),
			"-rpcuser=u", "-rpcpassword=p"}
		return runCLI(t, "", append(base, args...)...)
	}
	const odd = "a b/ü%#?"
	if got := cli("createwallet", odd); got.status != 0 {
		t.Fatalf("createwallet: %+v", got)
	}
	if got := cli("-named", "createwallet", "wallet_name=w=2", "blank=true"); got.status != 0 {
		t.Fatalf("createwallet -named: %+v", got)
	}

	got := cli("getwalletinfo")
	wantErr := "error code: -19\nerror message:\nMultiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.\n" +
		"Try adding \"-rpcwallet=<filename>\" option to descwallet-cli command line.\n"
	if got != (cliResult{"", wantErr, 19}) {
		t.Fatalf("no wallet chosen: %+v", got)
	}

	for _, name := range []string{odd, "w=2"} {
		got := cli("-rpcwallet="+name, "getwalletinfo")
		var info struct {
			WalletName string `json:"walletname"`
		}
		if got.status != 0 || json.Unmarshal([]byte(got.stdout), &info) != nil || info.WalletName != name {
			t.Fatalf("-rpcwallet=%s: %+v", name, got)
		}
	}

	got = cli("-rpcwallet=nosuch", "getwalletinfo")
	if got != (cliResult{"", "error code: -18\nerror message:\nRequested wallet does not exist or is not loaded\n", 18}) {
		t.Fatalf("unknown wallet: %+v", got)
	}
}
