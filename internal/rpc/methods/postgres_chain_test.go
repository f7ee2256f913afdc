package methods

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestPostgresChainFlow runs the daemon on btcd with its wallets in
// PostgreSQL through one flow per group of wallet calls: wallets
// (create, list, unload, load), addresses and labels, import with a
// rescan, receiving and the chain listings (checked against acctest's
// model), spending, coin control kept across an unload, encryption,
// the event log, rescanblockchain, backup and restore within the store,
// and a restart of the node that finds every wallet as it left it.
func TestPostgresChainFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd, PostgreSQL and the daemon")
	}
	t.Parallel()
	dsn := pgtest.DSN(t)
	b := testenv.StartBtcd(t, nil)
	args := btcdArgs(b, "-walletdb="+dsn, "-chainpoll=200")
	dataDir := t.TempDir()
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir, Args: args})
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var ignore json.RawMessage

	// Wallets.
	call(d.Client, &ignore, "createwallet", "pay")
	call(d.Client, &ignore, "createwallet", "recv")
	call(d.Client, &ignore, "createwallet", "watch", true, true)
	var dirList struct {
		Wallets []struct {
			Name string `json:"name"`
		} `json:"wallets"`
	}
	call(d.Client, &dirList, "listwalletdir")
	if fmt.Sprint(dirList.Wallets) != "[{pay} {recv} {watch}]" {
		t.Fatalf("listwalletdir %v", dirList.Wallets)
	}
	if r, err := d.Call("createwallet", "pay"); err == nil || !strings.Contains(err.Error(), "Database already exists") {
		t.Fatalf("createwallet twice: %s %v", r, err)
	}
	pay, recv, watch := walletClient(d, "pay"), walletClient(d, "recv"), walletClient(d, "watch")
	h := &spendHarness{t: t, b: b, d: d, w: pay, blocks: map[chainhash.Hash]*wire.MsgBlock{}}

	// Addresses and labels.
	var payAddr, recvAddr string
	call(pay, &payAddr, "getnewaddress", "funding")
	call(recv, &recvAddr, "getnewaddress", "incoming", "bech32m")
	var info struct {
		IsMine bool     `json:"ismine"`
		Labels []string `json:"labels"`
	}
	call(recv, &info, "getaddressinfo", recvAddr)
	if !info.IsMine || fmt.Sprint(info.Labels) != "[incoming]" {
		t.Fatalf("getaddressinfo %+v", info)
	}

	// Receiving: coins to pay, mined; the wallet agrees with the model.
	spk, err := address.Decode(payAddr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	fundID := b.Fund(wire.NewTxOut(50_000_000, spk), wire.NewTxOut(20_000_000, spk))
	b.Generate(1)
	h.check("receive")
	var listed []struct {
		TxID     string `json:"txid"`
		Category string `json:"category"`
	}
	call(pay, &listed, "listtransactions")
	if len(listed) != 2 || listed[0].TxID != fundID || listed[0].Category != "receive" {
		t.Fatalf("listtransactions %+v", listed)
	}

	// Import with a rescan: the watch-only wallet finds the funding
	// transaction in the chain.
	var di struct {
		Checksum string `json:"checksum"`
	}
	call(d.Client, &di, "getdescriptorinfo", "addr("+payAddr+")")
	var imp []struct {
		Success bool `json:"success"`
	}
	call(watch, &imp, "importdescriptors", []any{map[string]any{"desc": "addr(" + payAddr + ")#" + di.Checksum, "timestamp": 0}})
	if len(imp) != 1 || !imp[0].Success {
		t.Fatalf("importdescriptors %+v", imp)
	}
	var watchTxs []json.RawMessage
	call(watch, &watchTxs, "listtransactions", "*", 10, 0, true)
	if len(watchTxs) != 2 {
		t.Fatalf("watch-only wallet after the import's rescan: %d entries", len(watchTxs))
	}

	// Spending, and the payee's payment detection.
	var payID string
	call(pay, &payID, "sendtoaddress", recvAddr, 0.25, "", "", false, true, nil, nil, nil, 2)
	if !b.InMempool(payID) {
		t.Fatalf("%s not in btcd's mempool", payID)
	}
	b.Generate(1)
	h.check("spend mined")
	var received json.Number
	err = testenv.Poll(30*time.Second, func() error {
		if err := recv.CallResult(&received, "getreceivedbyaddress", recvAddr); err != nil {
			return err
		}
		if received != "0.25000000" {
			return fmt.Errorf("received %s", received)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Coin control: a persistent lock survives an unload and a load.
	var coins []struct {
		TxID string `json:"txid"`
		Vout uint32 `json:"vout"`
	}
	call(pay, &coins, "listunspent")
	if len(coins) == 0 {
		t.Fatal("no coins")
	}
	lock := map[string]any{"txid": coins[0].TxID, "vout": coins[0].Vout}
	var ok bool
	call(pay, &ok, "lockunspent", false, []any{lock}, true)
	call(d.Client, &ignore, "unloadwallet", "pay")
	call(d.Client, &ignore, "loadwallet", "pay")
	var locked []struct {
		TxID string `json:"txid"`
		Vout uint32 `json:"vout"`
	}
	call(pay, &locked, "listlockunspent")
	if len(locked) != 1 || locked[0].TxID != coins[0].TxID || locked[0].Vout != coins[0].Vout {
		t.Fatalf("listlockunspent after reload: %+v", locked)
	}
	call(pay, &ok, "lockunspent", true, []any{lock})

	// Encryption: locked, the wallet cannot pay; unlocked, it does.
	call(pay, &ignore, "encryptwallet", "pg pass")
	if _, err := pay.Call("sendtoaddress", recvAddr, 0.01); err == nil || !strings.Contains(err.Error(), "walletpassphrase") {
		t.Fatalf("sendtoaddress while locked: %v", err)
	}
	call(pay, &ignore, "walletpassphrase", "pg pass", 60)
	call(pay, &payID, "sendtoaddress", recvAddr, 0.01)
	call(pay, &ignore, "walletlock")
	b.Generate(1)
	h.check("encrypted spend mined")

	// Events and rescanblockchain on the payee.
	var events []struct {
		Kind string `json:"kind"`
	}
	err = testenv.Poll(30*time.Second, func() error {
		if err := recv.CallResult(&events, "listwalletevents"); err != nil {
			return err
		}
		if len(events) < 4 {
			return fmt.Errorf("%d events", len(events))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rs struct {
		Start int64 `json:"start_height"`
		Stop  int64 `json:"stop_height"`
	}
	call(recv, &rs, "rescanblockchain")
	if rs.Start != 0 || rs.Stop != b.GetBlockCount() {
		t.Fatalf("rescanblockchain %+v", rs)
	}

	// Backup and restore inside the store.
	backup := filepath.Join(t.TempDir(), "recv.bak")
	call(recv, &ignore, "backupwallet", backup)
	call(d.Client, &ignore, "restorewallet", "recv2", backup)
	balances := func(c *testenv.Client) string {
		var bal json.RawMessage
		call(c, &bal, "getbalances")
		return string(bal)
	}
	recv2 := walletClient(d, "recv2")
	err = testenv.Poll(30*time.Second, func() error {
		if a, b := balances(recv), balances(recv2); a != b {
			return fmt.Errorf("restored %s, original %s", b, a)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// A restart finds every wallet as it was.
	before := map[string]string{}
	for _, n := range []string{"pay", "recv", "watch", "recv2"} {
		before[n] = balances(walletClient(d, n))
	}
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	d2 := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir,
		Args: append(args, "-wallet=pay", "-wallet=recv", "-wallet=watch", "-wallet=recv2")})
	h.d, h.w = d2, walletClient(d2, "pay")
	h.check("after restart")
	for n, want := range before {
		if got := balances(walletClient(d2, n)); got != want {
			t.Errorf("%s after restart: %s, want %s", n, got, want)
		}
	}
	// Nothing of the wallets went to SQLite files.
	files, _ := filepath.Glob(filepath.Join(dataDir, "regtest", "wallets", "*", "wallet.sqlite*"))
	if len(files) != 0 {
		t.Errorf("wallet files in the data dir: %v", files)
	}
}
