package walletscan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/node"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	testenv.CleanupBuilds()
	os.Exit(code)
}

// daemon is an in-process node following a btcd.
type daemon struct {
	t    *testing.T
	n    *node.Node
	addr string
	dir  string
}

// startNode starts a regtest node on dir following btcd b (offline when b
// is nil).
func startNode(t *testing.T, dir string, b *testenv.Btcd, extra ...string) *daemon {
	t.Helper()
	for try := 0; ; try++ {
		port, err := testenv.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		argv := []string{"-regtest", "-datadir=" + dir, "-rpcport=" + strconv.Itoa(port),
			"-rpcuser=u", "-rpcpassword=p"}
		if b != nil {
			argv = append(argv, "-chainbackend=btcd", "-chainrpcconnect="+b.RPCAddr,
				"-chainrpcuser="+b.User, "-chainrpcpassword="+b.Pass)
		}
		argv = append(argv, extra...)
		cfg, err := node.LoadConfig(argv)
		if err != nil {
			t.Fatal(err)
		}
		n := node.New(cfg)
		if err := n.Start(context.Background()); err != nil {
			if try < 3 && strings.Contains(err.Error(), "unable to bind") {
				continue
			}
			t.Fatal(err)
		}
		d := &daemon{t: t, n: n, addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir}
		t.Cleanup(d.stop)
		return d
	}
}

func (d *daemon) stop() {
	if d.n != nil {
		if err := d.n.Stop(); err != nil {
			d.t.Error(err)
		}
		d.n = nil
	}
}

// client returns a client of wallet w ("" for the node endpoint).
func (d *daemon) client(w string) *testenv.Client {
	url := "http://" + d.addr + "/"
	if w != "" {
		url += "wallet/" + w
	}
	return &testenv.Client{URL: url, User: "u", Pass: "p"}
}

// call calls method and decodes the result into out, failing on error.
func call(t *testing.T, c *testenv.Client, out any, method string, params ...any) {
	t.Helper()
	if err := c.CallResult(out, method, params...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// newScript is the scriptPubKey of a new address of the wallet c serves.
func newScript(t *testing.T, c *testenv.Client) []byte {
	t.Helper()
	var addr string
	call(t, c, &addr, "getnewaddress")
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return spk
}

type unspent struct {
	TxID          string          `json:"txid"`
	Vout          uint32          `json:"vout"`
	Address       string          `json:"address"`
	Amount        json.Number     `json:"amount"`
	Confirmations int64           `json:"confirmations"`
	ParentDescs   []string        `json:"parent_descs"`
	Desc          string          `json:"desc"`
	Raw           json.RawMessage `json:"-"`
}

func outpoints(us []unspent) []string {
	var out []string
	for _, u := range us {
		out = append(out, fmt.Sprintf("%s:%d", u.TxID, u.Vout))
	}
	sort.Strings(out)
	return out
}

// importDesc imports a descriptor with a timestamp (a number or "now").
func importDesc(c *testenv.Client, desc string, ts any, extra map[string]any) (json.RawMessage, error) {
	e := map[string]any{"desc": desc, "timestamp": ts}
	for k, v := range extra {
		e[k] = v
	}
	return c.Call("importdescriptors", []any{e})
}

// waitSynced waits until wallet w processed the btcd's tip.
func waitSynced(t *testing.T, c *testenv.Client, b *testenv.Btcd) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		var info struct {
			Last struct {
				Hash string `json:"hash"`
			} `json:"lastprocessedblock"`
		}
		if err := c.CallResult(&info, "getwalletinfo"); err != nil {
			return err
		}
		if want := b.BestBlockHash(); info.Last.Hash != want {
			return fmt.Errorf("wallet at %s, btcd at %s", info.Last.Hash, want)
		}
		return nil
	})
}

// TestImportRescan mines coinbases to a key, imports its descriptor with
// timestamp 0 (exactly the mature coinbases are listed) and with "now"
// (none), spends one coin and sees it spent, and checks the balances.
func TestImportRescan(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan import key")
	stranger := testenv.NewKey("walletscan stranger")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(110)
	d := startNode(t, t.TempDir(), b)
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")

	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "old", true, true)
	call(t, d.client(""), &cw, "createwallet", "new", true, true)
	res, err := importDesc(d.client("old"), desc, 0, nil)
	if err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	var want []string
	for h := int64(1); h <= 10; h++ {
		want = append(want, b.Coinbase(h).String())
	}
	sort.Strings(want)
	var us []unspent
	call(t, d.client("old"), &us, "listunspent")
	if got := outpoints(us); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("listunspent after a timestamp-0 import:\n got %v\nwant %v", got, want)
	}
	for _, u := range us {
		if u.Amount.String() != "50.00000000" || u.Address != key.WPKH.Address ||
			len(u.ParentDescs) != 1 || u.ParentDescs[0] != desc || u.Confirmations < 101 {
			t.Errorf("entry %+v", u)
		}
	}
	var bal struct {
		Mine map[string]json.Number `json:"mine"`
	}
	call(t, d.client("old"), &bal, "getbalances")
	if bal.Mine["trusted"] != "500.00000000" || bal.Mine["immature"] != "5000.00000000" ||
		bal.Mine["untrusted_pending"] != "0.00000000" {
		t.Errorf("getbalances %v", bal.Mine)
	}

	res, err = importDesc(d.client("new"), desc, "now", nil)
	if err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import now: %s %v", res, err)
	}
	call(t, d.client("new"), &us, "listunspent")
	if len(us) != 0 {
		t.Errorf("listunspent after a \"now\" import: %v", outpoints(us))
	}

	// Spend the first coin to a stranger.
	coin := b.Coinbase(1)
	tx := testenv.UnsignedSpend(t, []testenv.Coin{coin}, wire.NewTxOut(coin.Value-20000, stranger.WPKH.Script))
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher), 0, coin.Value,
		coin.Script, txscript.SigHashAll, key.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = wit
	spend, err := b.SendRawTransaction(testenv.TxHex(t, tx))
	if err != nil {
		t.Fatal(err)
	}
	b.Generate(1)
	waitSynced(t, d.client("old"), b)
	call(t, d.client("old"), &us, "listunspent")
	got := outpoints(us)
	if len(got) != 10 || strings.Contains(strings.Join(got, " "), coin.String()) {
		t.Errorf("after the spend listunspent %v still lists %s or lacks the new mature coin", got, coin)
	}
	var gt struct {
		Amount        json.Number `json:"amount"`
		Fee           json.Number `json:"fee"`
		Confirmations int64       `json:"confirmations"`
		Details       []struct {
			Category string      `json:"category"`
			Address  string      `json:"address"`
			Amount   json.Number `json:"amount"`
		} `json:"details"`
	}
	call(t, d.client("old"), &gt, "gettransaction", spend)
	if gt.Amount != "-49.99980000" || gt.Fee != "-0.00020000" || gt.Confirmations != 1 ||
		len(gt.Details) != 1 || gt.Details[0].Category != "send" ||
		gt.Details[0].Address != stranger.WPKH.Address || gt.Details[0].Amount != "-49.99980000" {
		t.Errorf("gettransaction %+v", gt)
	}
	var lt []struct {
		Category string `json:"category"`
		TxID     string `json:"txid"`
	}
	call(t, d.client("old"), &lt, "listtransactions", "*", 3)
	if len(lt) != 3 || lt[2].TxID != spend || lt[2].Category != "send" || lt[1].Category != "immature" {
		t.Errorf("listtransactions %+v", lt)
	}
	// signrawtransactionwithkey finds the spent outputs in btcd's UTXO set.
	coin2 := b.Coinbase(2)
	tx2 := testenv.UnsignedSpend(t, []testenv.Coin{coin2}, wire.NewTxOut(coin2.Value-20000, stranger.WPKH.Script))
	var sr struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
		Errors   []struct {
			Error string `json:"error"`
		} `json:"errors"`
	}
	call(t, d.client(""), &sr, "signrawtransactionwithkey", testenv.TxHex(t, tx2), []string{key.WIF})
	if !sr.Complete {
		t.Fatalf("signing a coin of the UTXO set without prevtxs: %+v", sr)
	}
	spend2, err := b.SendRawTransaction(sr.Hex)
	if err != nil {
		t.Fatalf("btcd refused the signed transaction: %v", err)
	}
	sr.Complete, sr.Errors = true, nil
	call(t, d.client(""), &sr, "signrawtransactionwithkey", testenv.TxHex(t, tx), []string{key.WIF})
	if sr.Complete || len(sr.Errors) != 1 || sr.Errors[0].Error != "Input not found or already spent" {
		t.Errorf("signing a spent coin: %+v", sr)
	}

	// The second spend, of the wallet's coin, reaches the wallet from
	// btcd's mempool: 112 transactions of the chain and that one.
	testenv.Eventually(t, 30*time.Second, func() error {
		var gt struct {
			Confirmations int64 `json:"confirmations"`
		}
		if err := d.client("old").CallResult(&gt, "gettransaction", spend2); err != nil {
			return err
		}
		if gt.Confirmations != 0 {
			return fmt.Errorf("the spend in the mempool has %d confirmations", gt.Confirmations)
		}
		return nil
	})
	var wi struct {
		TxCount  int             `json:"txcount"`
		Scanning json.RawMessage `json:"scanning"`
	}
	call(t, d.client("old"), &wi, "getwalletinfo")
	if wi.TxCount != 113 || string(wi.Scanning) != "false" {
		t.Errorf("getwalletinfo txcount %d scanning %s", wi.TxCount, wi.Scanning)
	}
}

// bigRange is a ranged watch-only descriptor whose import and rescan take a
// few seconds (its scripts are derived for the scan), with the key's own
// descriptor as the coins to find.
func bigRange() string {
	const tpub = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	return descriptor.AddChecksum("wpkh(" + tpub + "/7/*)")
}

// TestRescanAbortAndResume checks that a long rescan shows in
// getwalletinfo, that getaddressinfo answers meanwhile, that abortrescan
// stops it with Core's error (an import's and rescanblockchain's), and that a rescan interrupted by a node stop
// resumes when the node comes back.
func TestRescanAbortAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan resume key")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(105)
	dir := t.TempDir()
	d := startNode(t, dir, b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true, "", false, true, true)
	c := d.client("w")
	// The big range first, with "now": no scan.
	res, err := importDesc(c, bigRange(), "now", map[string]any{"range": []int{0, 60000}})
	if err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")

	// Abort.
	done := make(chan error, 1)
	go func() {
		_, err := importDesc(c, desc, 0, nil)
		done <- err
	}()
	waitScanning(t, c)
	var ai struct {
		IsMine bool `json:"ismine"`
	}
	t0 := time.Now()
	call(t, c, &ai, "getaddressinfo", key.WPKH.Address)
	if !ai.IsMine || time.Since(t0) > 2*time.Second {
		t.Errorf("getaddressinfo during the rescan: ismine %v after %v", ai.IsMine, time.Since(t0))
	}
	var aborted bool
	call(t, c, &aborted, "abortrescan")
	if !aborted {
		t.Fatal("abortrescan found no rescan")
	}
	err = <-done
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -1 || re.Message != "Rescan aborted by user." {
		t.Fatalf("aborted import: %v", err)
	}
	call(t, c, &aborted, "abortrescan")
	if aborted {
		t.Error("abortrescan with no rescan running answered true")
	}

	// rescanblockchain aborted: Core's words differ from an import's.
	go func() {
		_, err := c.Call("rescanblockchain")
		done <- err
	}()
	waitScanning(t, c)
	call(t, c, &aborted, "abortrescan")
	if !aborted {
		t.Fatal("abortrescan found no rescanblockchain")
	}
	err = <-done
	if !errors.As(err, &re) || re.Code != -1 || re.Message != "Rescan aborted." {
		t.Fatalf("aborted rescanblockchain: %v", err)
	}

	// Interrupt a rescan with a node stop, then restart.
	go func() {
		_, err := c.Call("rescanblockchain")
		done <- err
	}()
	waitScanning(t, c)
	d.stop()
	<-done
	d = startNode(t, dir, b)
	c = d.client("w")
	testenv.Eventually(t, 60*time.Second, func() error {
		var us []unspent
		if err := c.CallResult(&us, "listunspent"); err != nil {
			return err
		}
		if len(us) != 5 {
			return fmt.Errorf("%d coins listed, want 5", len(us))
		}
		return nil
	})
}

// waitScanning waits until getwalletinfo shows a running rescan.
func waitScanning(t *testing.T, c *testenv.Client) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		var wi struct {
			Scanning json.RawMessage `json:"scanning"`
		}
		if err := c.CallResult(&wi, "getwalletinfo"); err != nil {
			return err
		}
		if string(wi.Scanning) == "false" {
			return errors.New("not scanning")
		}
		var s struct {
			Duration *int64   `json:"duration"`
			Progress *float64 `json:"progress"`
		}
		if json.Unmarshal(wi.Scanning, &s) != nil || s.Duration == nil || s.Progress == nil {
			return fmt.Errorf("scanning %s", wi.Scanning)
		}
		return nil
	})
}

// TestReorgRollsBack builds a reorg from two btcd nodes: the wallet's
// node mines two blocks paying the wallet while the other mines a longer
// branch; once they connect, the wallet's two coinbases of the dropped
// branch are no longer confirmed.
func TestReorgRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd")
	}
	key := testenv.NewKey("walletscan reorg key")
	stranger := testenv.NewKey("walletscan reorg stranger")
	n1 := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	n2 := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: stranger.WPKH.Address})
	n1.Connect(n2)
	n1.Generate(10)
	testenv.WaitSynced(t, n1, n2)
	n1.Disconnect(n2)
	dropped := n1.Generate(2)

	d := startNode(t, t.TempDir(), n1)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	c := d.client("w")
	if res, err := importDesc(c, descriptor.AddChecksum("wpkh("+key.PubKeyHex+")"), 0, nil); err != nil ||
		!strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	waitSynced(t, c, n1)
	var bal struct {
		Mine map[string]json.Number `json:"mine"`
	}
	call(t, c, &bal, "getbalances")
	if bal.Mine["immature"] != "600.00000000" {
		t.Fatalf("before the reorg: %v", bal.Mine)
	}
	droppedCB := n1.Block(dropped[1]).Transactions[0].TxHash().String()
	var gt struct {
		Confirmations int64  `json:"confirmations"`
		BlockHash     string `json:"blockhash"`
	}
	call(t, c, &gt, "gettransaction", droppedCB)
	if gt.Confirmations != 1 || gt.BlockHash != dropped[1] {
		t.Fatalf("before the reorg: %+v", gt)
	}

	n2.Generate(4)
	n1.Connect(n2)
	testenv.WaitSynced(t, n1, n2)
	waitSynced(t, c, n1)
	gt.Confirmations, gt.BlockHash = -1, ""
	call(t, c, &gt, "gettransaction", droppedCB)
	if gt.Confirmations != 0 || gt.BlockHash != "" {
		t.Errorf("after the reorg the dropped coinbase is %+v", gt)
	}
	call(t, c, &bal, "getbalances")
	if bal.Mine["immature"] != "500.00000000" {
		t.Errorf("after the reorg: %v", bal.Mine)
	}
	var lt []struct {
		Category string `json:"category"`
		TxID     string `json:"txid"`
	}
	call(t, c, &lt, "listtransactions", "*", 2)
	if len(lt) != 2 || lt[1].TxID != droppedCB || lt[1].Category != "orphan" {
		t.Errorf("listtransactions %+v", lt)
	}
}

// TestRangedTopUpWhileBlocksCome imports an active ranged descriptor with
// timestamp 0 while blocks paying it keep coming, one of them to an index
// derived only once an earlier payment moved the key pool: every payment is
// found, the next index moves past the highest used one, and the addresses
// up to it are labelled "" (ischange false).
func TestRangedTopUpWhileBlocksCome(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	b := testenv.StartBtcd(t, nil)
	d := startNode(t, t.TempDir(), b)
	const tpub = "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp"
	desc := descriptor.AddChecksum("wpkh(" + tpub + "/0/*)")
	var addrs []string
	call(t, d.client(""), &addrs, "deriveaddresses", desc, []int{0, 1600})
	pay := func(idx ...int) string {
		var outs []*wire.TxOut
		for _, i := range idx {
			spk, err := address.Decode(addrs[i], &chaincfg.RegressionNetParams)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, wire.NewTxOut(1_000_000, spk))
		}
		return b.Fund(outs...)
	}
	pay(3, 995)
	b.Generate(1)

	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	c := d.client("w")
	done := make(chan error, 1)
	go func() {
		res, err := importDesc(c, desc, 0, map[string]any{"active": true, "range": []int{0, 9}})
		if err == nil && !strings.Contains(string(res), `"success":true`) {
			err = fmt.Errorf("import: %s", res)
		}
		done <- err
	}()
	pay(1500)
	b.Generate(1)
	pay(7)
	b.Generate(1)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pay(8)
	b.Generate(1)
	waitSynced(t, c, b)

	var us []unspent
	call(t, c, &us, "listunspent")
	got := map[string]bool{}
	for _, u := range us {
		got[u.Address] = true
	}
	for _, i := range []int{3, 995, 1500, 7, 8} {
		if !got[addrs[i]] {
			t.Errorf("payment to index %d not listed", i)
		}
	}
	if len(us) != 5 {
		t.Errorf("listunspent has %d entries, want 5", len(us))
	}
	var ld struct {
		Descriptors []struct {
			Range [2]int64 `json:"range"`
			Next  int64    `json:"next_index"`
		} `json:"descriptors"`
	}
	call(t, c, &ld, "listdescriptors")
	if len(ld.Descriptors) != 1 || ld.Descriptors[0].Next != 1501 || ld.Descriptors[0].Range != [2]int64{0, 2500} {
		t.Errorf("listdescriptors %+v", ld)
	}
	for _, tc := range []struct {
		idx    int
		change bool
	}{{5, false}, {1500, false}, {1501, true}} {
		var ai struct {
			IsChange bool     `json:"ischange"`
			Labels   []string `json:"labels"`
		}
		call(t, c, &ai, "getaddressinfo", addrs[tc.idx])
		if ai.IsChange != tc.change {
			t.Errorf("index %d: ischange %v, labels %v", tc.idx, ai.IsChange, ai.Labels)
		}
	}
}

// TestOfflineImportCatchesUp imports into a node with no backend (no scan),
// then restarts it with one: the wallet, which never processed a block,
// scans from its birth time and finds its coins.
func TestOfflineImportCatchesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan offline key")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(103)
	dir := t.TempDir()
	d := startNode(t, dir, nil)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true, "", false, true, true)
	if res, err := importDesc(d.client("w"), descriptor.AddChecksum("wpkh("+key.PubKeyHex+")"), 0, nil); err != nil ||
		!strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	var us []unspent
	call(t, d.client("w"), &us, "listunspent")
	if len(us) != 0 {
		t.Fatalf("offline listunspent: %v", outpoints(us))
	}
	var aborted bool
	call(t, d.client("w"), &aborted, "abortrescan")
	if aborted {
		t.Error("abortrescan offline answered true")
	}
	d.stop()
	d = startNode(t, dir, b)
	testenv.Eventually(t, 60*time.Second, func() error {
		if err := d.client("w").CallResult(&us, "listunspent"); err != nil {
			return err
		}
		if len(us) != 3 {
			return fmt.Errorf("%d coins listed, want 3", len(us))
		}
		return nil
	})
}

// TestLoadWaitsForCatchUp loads two wallets that missed blocks while they
// were not loaded, one that never processed a block (it scans from its
// birth time) and one that processed blocks before being unloaded (it scans
// from its last processed block): loadwallet returns once they caught up,
// so their coins are listed at once and an import sent right away is not
// refused as "currently rescanning".
func TestLoadWaitsForCatchUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	key := testenv.NewKey("walletscan load key")
	other := testenv.NewKey("walletscan load other")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(103)
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	otherDesc := descriptor.AddChecksum("wpkh(" + other.PubKeyHex + ")")
	dir := t.TempDir()

	// "fresh" gets its descriptor offline: it never processes a block.
	d := startNode(t, dir, nil)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "fresh", true, true, "", false, true, false)
	if res, err := importDesc(d.client("fresh"), desc, 0, nil); err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	d.stop()

	d = startNode(t, dir, b)
	call(t, d.client(""), &cw, "createwallet", "behind", true, true, "", false, true, false)
	if res, err := importDesc(d.client("behind"), desc, 0, nil); err != nil || !strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	waitSynced(t, d.client("behind"), b)
	var us []unspent
	call(t, d.client("behind"), &us, "listunspent")
	if len(us) != 3 {
		t.Fatalf("before unloading: %d coins, want 3", len(us))
	}
	call(t, d.client(""), &cw, "unloadwallet", "behind")
	b.Generate(5) // 8 mature coinbases now

	for _, name := range []string{"fresh", "behind"} {
		var lw struct {
			Name string `json:"name"`
		}
		call(t, d.client(""), &lw, "loadwallet", name)
		if lw.Name != name {
			t.Fatalf("loadwallet answered %q", lw.Name)
		}
		call(t, d.client(name), &us, "listunspent")
		if len(us) != 8 {
			t.Errorf("%s: %d coins listed right after loadwallet, want 8", name, len(us))
		}
		var info struct {
			Last struct {
				Hash string `json:"hash"`
			} `json:"lastprocessedblock"`
		}
		call(t, d.client(name), &info, "getwalletinfo")
		if want := b.BestBlockHash(); info.Last.Hash != want {
			t.Errorf("%s: last processed block %s right after loadwallet, tip %s", name, info.Last.Hash, want)
		}
		if name == "fresh" {
			checkRescanTimes(t, d.client(name), b, 108)
		}
		res, err := importDesc(d.client(name), otherDesc, 0, nil)
		if err != nil || !strings.Contains(string(res), `"success":true`) {
			t.Fatalf("%s: import right after loadwallet: %s %v", name, res, err)
		}
		call(t, d.client(name), &us, "listunspent")
		if len(us) != 8 {
			t.Errorf("%s: %d coins listed after the import, want 8", name, len(us))
		}
	}
}

// checkRescanTimes checks a wallet whose n transactions a rescan found:
// each is listed with its block's time (the header's, from btcd) as Core's
// smart time, in block order.
func checkRescanTimes(t *testing.T, c *testenv.Client, b *testenv.Btcd, n int) {
	t.Helper()
	var list []struct {
		TxID        string `json:"txid"`
		BlockHash   string `json:"blockhash"`
		BlockHeight int64  `json:"blockheight"`
		BlockTime   int64  `json:"blocktime"`
		Time        int64  `json:"time"`
	}
	call(t, c, &list, "listtransactions", "*", 1000)
	if len(list) != n {
		t.Fatalf("%d transactions listed, want %d", len(list), n)
	}
	for i, e := range list {
		hdr := b.Block(e.BlockHash).Header.Timestamp.Unix()
		if e.Time != hdr || e.BlockTime != hdr {
			t.Errorf("%s: time %d, blocktime %d, block header time %d", e.TxID, e.Time, e.BlockTime, hdr)
		}
		if i > 0 && e.BlockHeight <= list[i-1].BlockHeight {
			t.Errorf("entry %d at height %d after height %d", i, e.BlockHeight, list[i-1].BlockHeight)
		}
		var gt struct {
			Time int64 `json:"time"`
		}
		call(t, c, &gt, "gettransaction", e.TxID)
		if gt.Time != hdr {
			t.Errorf("gettransaction %s: time %d, block header time %d", e.TxID, gt.Time, hdr)
		}
	}
}
