package node_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestNotifyCommands runs -walletnotify and -blocknotify as Core's
// feature_notifications.py does, each command appending to a file named
// after its substitutions: a payment to two wallets (one whose name needs
// shell quoting) runs walletnotify for each wallet with "-1_unconfirmed"
// while it waits in the mempool, then with the block's height and hash once
// mined; a reorg that takes the block away runs it again unconfirmed.
// blocknotify runs with each new tip's hash. listwalletevents reads each
// wallet's event log of the same history.
func TestNotifyCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd and the daemon")
	}
	t.Parallel()
	stranger := testenv.NewKey("notify stranger")
	n1 := testenv.StartBtcd(t, nil)
	n2 := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: stranger.WPKH.Address})
	n1.Fund(wire.NewTxOut(50_000, stranger.WPKH.Script)) // matures the miner's coins
	n1.Generate(1)
	copyBlocks(t, n1, n2)

	dir := t.TempDir()
	wdir, bdir := filepath.Join(dir, "wallet"), filepath.Join(dir, "block")
	for _, d := range []string{wdir, bdir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + n1.RPCAddr, "-chainrpcuser=" + n1.User, "-chainrpcpassword=" + n1.Pass,
		"-chainpoll=100",
		"-walletnotify=echo %h_%b >> " + wdir + "/%w_%s",
		"-blocknotify=echo %s >> " + bdir + "/tips"}})

	// A name with a quote and a dollar: only Core's quoting keeps it
	// whole through the shell.
	names := []string{"o'n$e", "two"}
	var outs []*wire.TxOut
	for i, name := range names {
		if _, err := d.Call("createwallet", name); err != nil {
			t.Fatal(err)
		}
		w := &testenv.Client{URL: d.URL + "wallet/" + url.PathEscape(name), User: d.User, Pass: d.Pass}
		var addr string
		if err := w.CallResult(&addr, "getnewaddress"); err != nil {
			t.Fatal(err)
		}
		spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, wire.NewTxOut(int64(100_000*(i+1)), spk))
	}
	waitTips(t, d, names, n1.BestBlockHash())

	lines := func(name, txid string) []string {
		b, _ := os.ReadFile(filepath.Join(wdir, name+"_"+txid))
		return strings.Fields(string(b))
	}
	want := func(txid string, wantLines ...string) {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, func() error {
			for _, name := range names {
				if got := lines(name, txid); !slices.Equal(got, wantLines) {
					return fmt.Errorf("walletnotify of %q for %s: %q, want %q", name, txid, got, wantLines)
				}
			}
			return nil
		})
	}

	txid := n1.Fund(outs...)
	want(txid, "-1_unconfirmed")
	mined := n1.Generate(1)[0]
	h := n1.GetBlockCount()
	confirmed := fmt.Sprintf("%d_%s", h, mined)
	want(txid, "-1_unconfirmed", confirmed)
	waitTips(t, d, names, mined)
	// -blocknotify runs for a tip a poll of the backend finds (README):
	// the reorg waits until that poll found this one, or it could be gone
	// before any poll saw it.
	testenv.Eventually(t, 30*time.Second, func() error {
		b, _ := os.ReadFile(filepath.Join(bdir, "tips"))
		if !slices.Contains(strings.Fields(string(b)), mined) {
			return fmt.Errorf("blocknotify has not run for %s yet: %q", mined, b)
		}
		return nil
	})

	// n2's longer branch takes the block away: the transaction is
	// unconfirmed again.
	tip := n2.Generate(2)[1]
	copyBlocks(t, n2, n1)
	if got := n1.BestBlockHash(); got != tip {
		t.Fatalf("no reorg: n1 at %s, n2 at %s", got, tip)
	}
	waitTips(t, d, names, tip)
	want(txid, "-1_unconfirmed", confirmed, "-1_unconfirmed")

	// The event log of each wallet, read with listwalletevents: received,
	// confirmed, reorged, and once mined again confirmed at 1 and 6.
	if !n1.InMempool(txid) {
		t.Fatalf("%s not back in the mempool after the reorg", txid)
	}
	again := n1.Generate(6)
	h2 := h + 2 // above n2's two blocks
	waitTips(t, d, names, again[5])
	for _, name := range names {
		w := &testenv.Client{URL: d.URL + "wallet/" + url.PathEscape(name), User: d.User, Pass: d.Pass}
		var evs []struct {
			Cursor      int64   `json:"cursor"`
			Kind        string  `json:"kind"`
			TxID        string  `json:"txid"`
			Depth       int32   `json:"depth"`
			BlockHash   *string `json:"blockhash"`
			BlockHeight *int64  `json:"blockheight"`
		}
		var got []string
		testenv.Eventually(t, 30*time.Second, func() error {
			if err := w.CallResult(&evs, "listwalletevents"); err != nil {
				return err
			}
			got = got[:0]
			for i, e := range evs {
				if e.Cursor != int64(i+1) || e.TxID != txid || (e.BlockHash == nil) != (e.BlockHeight == nil) {
					return fmt.Errorf("event %d: %+v", i, e)
				}
				g := fmt.Sprintf("%s %d", e.Kind, e.Depth)
				if e.BlockHash != nil {
					g += fmt.Sprintf(" %d_%s", *e.BlockHeight, *e.BlockHash)
				}
				got = append(got, g)
			}
			want := []string{"received 0", "confirmed 1 " + confirmed, "reorged 0 " + confirmed,
				fmt.Sprintf("confirmed 1 %d_%s", h2, again[0]), fmt.Sprintf("confirmed 6 %d_%s", h2, again[0])}
			if !slices.Equal(got, want) {
				return fmt.Errorf("wallet %q events %q, want %q", name, got, want)
			}
			return nil
		})
		// Resuming after a cursor, a limit, and Core-style argument errors.
		if err := w.CallResult(&evs, "listwalletevents", 3, 1); err != nil || len(evs) != 1 || evs[0].Cursor != 4 {
			t.Errorf("listwalletevents 3 1: %+v %v", evs, err)
		}
		for _, bad := range []struct {
			params []any
			msg    string
		}{{[]any{-1}, "Negative after"}, {[]any{0, -1}, "Negative limit"}, {[]any{0, 10001}, "limit must be at most 10000"}} {
			_, err := w.Call("listwalletevents", bad.params...)
			if re, ok := err.(*testenv.RPCError); !ok || re.Code != -8 || re.Message != bad.msg {
				t.Errorf("listwalletevents %v: %v, want -8 %q", bad.params, err, bad.msg)
			}
		}
	}
	want(txid, "-1_unconfirmed", confirmed, "-1_unconfirmed", fmt.Sprintf("%d_%s", h2, again[0]))

	testenv.Eventually(t, 30*time.Second, func() error {
		b, _ := os.ReadFile(filepath.Join(bdir, "tips"))
		got := strings.Fields(string(b))
		if !slices.Contains(got, mined) || !slices.Contains(got, tip) {
			return fmt.Errorf("blocknotify ran with %q; want %s and %s among them", got, mined, tip)
		}
		return nil
	})
	// Nothing else: one file per wallet and transaction.
	ents, err := os.ReadDir(wdir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(names) {
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		t.Errorf("walletnotify files %q, want one per wallet", got)
	}
}

// copyBlocks submits to dst the blocks of src's best chain above their
// last common block. The nodes never connect, so that each mines its own
// branch.
func copyBlocks(t *testing.T, src, dst *testenv.Btcd) {
	t.Helper()
	top := src.GetBlockCount()
	fork := min(top, dst.GetBlockCount())
	for ; fork > 0 && src.BlockHash(fork) != dst.BlockHash(fork); fork-- {
	}
	for height := fork + 1; height <= top; height++ {
		var raw string
		if err := src.CallResult(&raw, "getblock", src.BlockHash(height), 0); err != nil {
			t.Fatalf("getblock: %v", err)
		}
		var res json.RawMessage
		if err := dst.CallResult(&res, "submitblock", raw); err != nil || string(res) != "null" {
			t.Fatalf("submitblock at height %d: %s %v", height, res, err)
		}
	}
}

// waitTips waits until every wallet processed the block hash.
func waitTips(t *testing.T, d *testenv.Daemon, names []string, hash string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		for _, name := range names {
			w := &testenv.Client{URL: d.URL + "wallet/" + url.PathEscape(name), User: d.User, Pass: d.Pass}
			var info struct {
				Last struct {
					Hash string `json:"hash"`
				} `json:"lastprocessedblock"`
			}
			if err := w.CallResult(&info, "getwalletinfo"); err != nil {
				return err
			}
			if info.Last.Hash != hash {
				return fmt.Errorf("wallet %q at %s, want %s", name, info.Last.Hash, hash)
			}
		}
		return nil
	})
}
