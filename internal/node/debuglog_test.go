package node_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// subsystemTags are the -debug words and the tags their lines carry.
var subsystemTags = map[string]string{
	"rpc": "RPCS", "wallet": "WLLT", "descriptor": "DESC",
	"scan": "SCAN", "store": "STOR", "node": "NODE",
}

// TestDebugLogging runs a real flow (create a wallet, import private
// descriptors with a rescan, hand out an address, follow a new block) with
// -debug=<subsystem> for each subsystem: each writes debug lines, and no
// line of the log carries the imported xprv, WIF or private key bytes.
// Without -debug the same calls log no debug line.
func TestDebugLogging(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	b.Generate(3)

	seed := make([]byte, 32)
	copy(seed, "descwallet debug log test seed")
	master, err := hdkeychain.NewMaster(seed, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	xprv := master.String()
	key := testenv.NewKey("descwallet debug log test key")
	secrets := map[string]string{"xprv": xprv, "WIF": key.WIF,
		"private key hex": hex.EncodeToString(key.Priv.Serialize())}

	args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + b.RPCAddr,
		"-chainrpcuser=" + b.User, "-chainrpcpassword=" + b.Pass}
	for word := range subsystemTags {
		args = append(args, "-debug="+word)
	}
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: args})
	flow(t, d, xprv, key.WIF)
	b.Generate(1)

	logPath := filepath.Join(d.NetDir, "debug.log")
	testenv.Eventually(t, 30*time.Second, func() error {
		log, err := os.ReadFile(logPath)
		if err != nil {
			return err
		}
		for word, tag := range subsystemTags {
			if !strings.Contains(string(log), " DEBUG ["+tag+"] ") {
				return fmt.Errorf("-debug=%s: no debug line tagged %s", word, tag)
			}
		}
		return nil
	})
	log, _ := os.ReadFile(logPath)
	for line := range strings.Lines(string(log)) {
		for what, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("debug.log carries the %s: %s", what, line)
			}
		}
	}
	if t.Failed() {
		t.Logf("debug.log:\n%s", log)
	}

	// Off by default.
	quiet := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: args[:4]})
	flow(t, quiet, xprv, key.WIF)
	qlog, _ := os.ReadFile(filepath.Join(quiet.NetDir, "debug.log"))
	if strings.Contains(string(qlog), " DEBUG [") {
		t.Errorf("debug lines without -debug:\n%s", qlog)
	}
}

// flow creates a wallet, imports private descriptors (a ranged xprv and a
// WIF) with a rescan from the genesis block and hands out an address.
func flow(t *testing.T, d *testenv.Daemon, xprv, wif string) {
	t.Helper()
	c := d.Client
	if _, err := c.Call("createwallet", "w"); err != nil {
		t.Fatal(err)
	}
	w := &testenv.Client{URL: d.URL + "wallet/w", User: c.User, Pass: c.Pass}
	req := []map[string]any{
		{"desc": descriptor.AddChecksum("wpkh(" + xprv + "/0/*)"), "timestamp": 0, "range": []int{0, 20}},
		{"desc": descriptor.AddChecksum("pkh(" + wif + ")"), "timestamp": 0},
	}
	raw, err := w.Call("importdescriptors", req)
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		Success bool `json:"success"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res) != 2 || !res[0].Success || !res[1].Success {
		t.Fatalf("importdescriptors: %s", raw)
	}
	if _, err := w.Call("getnewaddress"); err != nil {
		t.Fatal(err)
	}
}
