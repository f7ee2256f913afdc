package walletscan_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestFilterAndFullRescanAgree builds one chain on two btcd nodes, one with
// BIP158 filters and one started with --nocfilters, and imports the same
// descriptors with timestamp 0 into a wallet of a node following each: the
// filter rescan and the full-block rescan find the same transactions
// (listtransactions, listunspent), including payments to indexes derived
// only after the key pool topped up during the scan, a spend of a wallet
// coin, and pkh, sh(wpkh), wpkh and tr outputs.
func TestFilterAndFullRescanAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd")
	}
	key := testenv.NewKey("walletscan filters key")
	stranger := testenv.NewKey("walletscan filters stranger")
	withF := testenv.StartBtcd(t, nil)
	noF := testenv.StartBtcd(t, &testenv.BtcdOptions{Args: []string{"--nocfilters"}})
	withF.Connect(noF)
	nodeF := startNode(t, t.TempDir(), withF)
	nodeN := startNode(t, t.TempDir(), noF)

	const tpubA = "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp"
	const tpubB = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	ranged := []string{descriptor.AddChecksum("wpkh(" + tpubA + "/0/*)"), descriptor.AddChecksum("tr(" + tpubB + "/0/*)")}
	single := []string{descriptor.AddChecksum("pkh(" + key.PubKeyHex + ")"),
		descriptor.AddChecksum("sh(wpkh(" + key.PubKeyHex + "))"), descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")}
	script := func(desc string, i int) []byte {
		t.Helper()
		var addrs []string
		call(t, nodeF.client(""), &addrs, "deriveaddresses", desc, []int{i, i})
		spk, err := address.Decode(addrs[0], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return spk
	}
	out := func(spk []byte, v int64) *wire.TxOut { return wire.NewTxOut(v, spk) }

	withF.Fund(out(script(ranged[0], 3), 110_000), out(script(ranged[1], 5), 120_000),
		out(key.PKH.Script, 130_000), out(key.SHWPKH.Script, 140_000))
	withF.Generate(1)
	withF.Fund(out(script(ranged[0], 995), 150_000))
	withF.Generate(1)
	coinTx := withF.Fund(out(key.WPKH.Script, 1_000_000))
	withF.Generate(1)
	coin := testenv.Coin{TxID: coinTx, Vout: 0, Value: 1_000_000, Script: key.WPKH.Script}
	spend := testenv.UnsignedSpend(t, []testenv.Coin{coin}, out(script(ranged[0], 1500), 900_000),
		out(stranger.WPKH.Script, 80_000))
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(spend, txscript.NewTxSigHashes(spend, fetcher), 0, coin.Value,
		coin.Script, txscript.SigHashAll, key.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	spend.TxIn[0].Witness = wit
	if _, err := withF.SendRawTransaction(testenv.TxHex(t, spend)); err != nil {
		t.Fatal(err)
	}
	withF.Generate(1)
	withF.Fund(out(script(ranged[1], 998), 160_000))
	withF.Generate(1)
	withF.Fund(out(script(ranged[1], 1700), 170_000))
	withF.Generate(3)
	testenv.WaitSynced(t, withF, noF)

	type answers struct {
		txs      []map[string]any
		unspent  []string
		balances json.RawMessage
	}
	scanWith := func(d *daemon, b *testenv.Btcd) answers {
		t.Helper()
		var cw json.RawMessage
		call(t, d.client(""), &cw, "createwallet", "w", true, true)
		c := d.client("w")
		var reqs []map[string]any
		for _, desc := range ranged {
			reqs = append(reqs, map[string]any{"desc": desc, "timestamp": 0, "active": true, "range": []int{0, 9}})
		}
		for _, desc := range single {
			reqs = append(reqs, map[string]any{"desc": desc, "timestamp": 0})
		}
		var res []struct {
			Success bool `json:"success"`
		}
		call(t, c, &res, "importdescriptors", reqs)
		for i, r := range res {
			if !r.Success {
				t.Fatalf("element %d of the import failed", i)
			}
		}
		waitSynced(t, c, b)
		var a answers
		call(t, c, &a.txs, "listtransactions", "*", 1000)
		for _, tx := range a.txs {
			// The times the wallet stored them at may differ.
			delete(tx, "timereceived")
			delete(tx, "time")
		}
		var us []unspent
		call(t, c, &us, "listunspent")
		for _, u := range us {
			a.unspent = append(a.unspent, fmt.Sprintf("%s:%d %s %s", u.TxID, u.Vout, u.Address, u.Amount))
		}
		sort.Strings(a.unspent)
		var bal struct {
			Mine json.RawMessage `json:"mine"`
		}
		call(t, c, &bal, "getbalances")
		a.balances = bal.Mine
		return a
	}
	f := scanWith(nodeF, withF)
	n := scanWith(nodeN, noF)

	if len(f.unspent) != 8 {
		t.Errorf("filter rescan lists %d unspent outputs, want 8: %v", len(f.unspent), f.unspent)
	}
	// 9 payments (the spent coin and the spend's output to the wallet
	// included) and the spend's two send entries.
	if len(f.txs) != 11 {
		t.Errorf("filter rescan lists %d transaction entries, want 11", len(f.txs))
	}
	if !reflect.DeepEqual(f.unspent, n.unspent) {
		t.Errorf("listunspent differs:\nfilters %v\nfull    %v", f.unspent, n.unspent)
	}
	if !reflect.DeepEqual(f.txs, n.txs) {
		fj, _ := json.Marshal(f.txs)
		nj, _ := json.Marshal(n.txs)
		t.Errorf("listtransactions differs:\nfilters %s\nfull    %s", fj, nj)
	}
	if string(f.balances) != string(n.balances) {
		t.Errorf("getbalances differs: filters %s, full %s", f.balances, n.balances)
	}

	// Each node scanned as intended.
	logOf := func(d *daemon) string {
		b, err := os.ReadFile(filepath.Join(d.dir, "regtest", "debug.log"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const noFilterLine = "backend has no block filters"
	if strings.Contains(logOf(nodeF), noFilterLine) {
		t.Error("the node following the btcd with filters scanned full blocks")
	}
	if !strings.Contains(logOf(nodeN), noFilterLine) {
		t.Error("the node following the btcd without filters did not report scanning full blocks")
	}
}
