package node_test

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// walletEvent is a listwalletevents entry as a client reads it.
type walletEvent struct {
	Cursor      int64    `json:"cursor"`
	Kind        string   `json:"kind"`
	TxID        string   `json:"txid"`
	Depth       int32    `json:"depth"`
	BlockHash   *string  `json:"blockhash"`
	BlockHeight *int64   `json:"blockheight"`
	Time        int64    `json:"time"`
	Amount      float64  `json:"amount"`
	Fee         *float64 `json:"fee"`
	Outputs     []struct {
		Vout        uint32   `json:"vout"`
		Address     string   `json:"address"`
		Amount      float64  `json:"amount"`
		Label       *string  `json:"label"`
		ParentDescs []string `json:"parent_descs"`
	} `json:"outputs"`
}

func sats(btc float64) int64 { return int64(math.Round(btc * 1e8)) }

func walletAt(d *testenv.Daemon, name string) *testenv.Client {
	return &testenv.Client{URL: d.URL + "wallet/" + url.PathEscape(name), User: d.User, Pass: d.Pass}
}

// allEvents reads a wallet's whole log after a cursor, page by page.
func allEvents(w *testenv.Client, after int64) ([]walletEvent, error) {
	var out []walletEvent
	for {
		var page []walletEvent
		if err := w.CallResult(&page, "listwalletevents", after, 10000); err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 10000 {
			return out, nil
		}
		after = page[len(page)-1].Cursor
	}
}

// short is an event in a form to compare: kind, depth, txid, height, net
// amount and fee in satoshis (fee 1: none).
func short(e walletEvent) string {
	s := fmt.Sprintf("%s %d %s", e.Kind, e.Depth, e.TxID)
	if e.BlockHeight != nil {
		s += fmt.Sprintf(" @%d", *e.BlockHeight)
	}
	fee := int64(1)
	if e.Fee != nil {
		fee = sats(*e.Fee)
	}
	return s + fmt.Sprintf(" %d/%d", sats(e.Amount), fee)
}

// TestEventFlow: payments to several wallets, then a send from one of
// them to another, give each wallet's log exactly the expected events in
// order (received, confirmed at 1 and 6, sent, confirmed at 1 and 6), with
// the wallet's outputs, labels, descriptors, amounts and the send's fee as
// gettransaction reports them. After a restart with -eventretention=3 the
// log keeps the last three events and an older cursor gets -8.
func TestEventFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	n := testenv.StartBtcd(t, nil)
	chainArgs := []string{"-chainbackend=btcd", "-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User,
		"-chainrpcpassword=" + n.Pass, "-chainpoll=100", "-fallbackfee=0.0001"}
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: chainArgs})
	names := []string{"a", "b", "c"}
	addrs := map[string]string{}
	for _, name := range names {
		if _, err := d.Call("createwallet", name); err != nil {
			t.Fatal(err)
		}
		var addr string
		if err := walletAt(d, name).CallResult(&addr, "getnewaddress", "shop-"+name); err != nil {
			t.Fatal(err)
		}
		addrs[name] = addr
	}
	out := func(name string, value int64) *wire.TxOut {
		spk, err := address.Decode(addrs[name], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return wire.NewTxOut(value, spk)
	}
	// Fund mines the blocks that mature its coinbases first: wait until
	// every wallet is past them, so that the payment is first seen in the
	// mempool.
	pay := n.Fund(out("a", 100_000_000), out("b", 50_000_000))
	waitTips(t, d, names, n.BestBlockHash())
	waitKinds := func(name string, want ...string) []walletEvent {
		t.Helper()
		var evs []walletEvent
		testenv.Eventually(t, 30*time.Second, func() error {
			var err error
			if evs, err = allEvents(walletAt(d, name), 0); err != nil {
				return err
			}
			var got []string
			for _, e := range evs {
				got = append(got, fmt.Sprintf("%s %d", e.Kind, e.Depth))
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("wallet %s: events %q, want %q", name, got, want)
			}
			return nil
		})
		return evs
	}
	waitKinds("a", "received 0")
	waitKinds("b", "received 0")
	h1 := n.GetBlockCount() + 1
	n.Generate(1)
	waitKinds("a", "received 0", "confirmed 1")
	n.Generate(5)
	waitKinds("a", "received 0", "confirmed 1", "confirmed 6")

	var send string
	if err := walletAt(d, "a").CallResult(&send, "sendtoaddress", addrs["c"], 0.3); err != nil {
		t.Fatal(err)
	}
	waitKinds("c", "received 0")
	h2 := n.GetBlockCount() + 1
	n.Generate(6)
	waitTips(t, d, names, n.BestBlockHash())
	final := map[string][]walletEvent{}
	for _, name := range names {
		want := []string{"received 0", "confirmed 1", "confirmed 6"}
		if name == "a" {
			want = append(want, "sent 0", "confirmed 1", "confirmed 6")
		}
		final[name] = waitKinds(name, want...)
	}

	var gt struct {
		Amount float64 `json:"amount"`
		Fee    float64 `json:"fee"`
	}
	if err := walletAt(d, "a").CallResult(&gt, "gettransaction", send); err != nil {
		t.Fatal(err)
	}
	sent, fee := sats(gt.Amount), sats(gt.Fee)
	if sent != -30_000_000 || fee >= 0 {
		t.Fatalf("gettransaction %s: amount %d fee %d", send, sent, fee)
	}
	want := map[string][]string{
		"a": {fmt.Sprintf("received 0 %s 100000000/1", pay), fmt.Sprintf("confirmed 1 %s @%d 100000000/1", pay, h1),
			fmt.Sprintf("confirmed 6 %s @%d 100000000/1", pay, h1), fmt.Sprintf("sent 0 %s %d/%d", send, sent, fee),
			fmt.Sprintf("confirmed 1 %s @%d %d/%d", send, h2, sent, fee),
			fmt.Sprintf("confirmed 6 %s @%d %d/%d", send, h2, sent, fee)},
		"b": {fmt.Sprintf("received 0 %s 50000000/1", pay), fmt.Sprintf("confirmed 1 %s @%d 50000000/1", pay, h1),
			fmt.Sprintf("confirmed 6 %s @%d 50000000/1", pay, h1)},
		"c": {fmt.Sprintf("received 0 %s 30000000/1", send), fmt.Sprintf("confirmed 1 %s @%d 30000000/1", send, h2),
			fmt.Sprintf("confirmed 6 %s @%d 30000000/1", send, h2)},
	}
	for _, name := range names {
		evs := final[name]
		var got []string
		for i, e := range evs {
			got = append(got, short(e))
			if e.Cursor != int64(i+1) || e.Time < time.Now().Unix()-600 {
				t.Errorf("wallet %s event %d: cursor %d time %d", name, i, e.Cursor, e.Time)
			}
			// The payment's outputs: the labelled address, or the
			// change of the send (no label).
			if len(e.Outputs) != 1 || len(e.Outputs[0].ParentDescs) != 1 ||
				!strings.HasPrefix(e.Outputs[0].ParentDescs[0], "wpkh([") {
				t.Errorf("wallet %s event %d: outputs %+v", name, i, e.Outputs)
				continue
			}
			o := e.Outputs[0]
			if e.Kind == "sent" || e.TxID == send && name == "a" {
				if o.Label != nil || o.Amount <= 0 || sats(o.Amount) != 100_000_000+sent+fee {
					t.Errorf("wallet a change output %+v", o)
				}
			} else if o.Address != addrs[name] || o.Label == nil || *o.Label != "shop-"+name ||
				sats(o.Amount) != sats(e.Amount) {
				t.Errorf("wallet %s event %d: output %+v", name, i, o)
			}
		}
		if !slices.Equal(got, want[name]) {
			t.Errorf("wallet %s events\n%q\nwant\n%q", name, got, want[name])
		}
	}

	// Retention: the newest three events stay.
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: d.DataDir, Args: append(chainArgs,
		"-eventretention=3", "-wallet=a")})
	testenv.Eventually(t, 30*time.Second, func() error {
		_, err := walletAt(d, "a").Call("listwalletevents", 2)
		msg := "Cursor 2 is older than the event log keeps: events through cursor 3 were removed " +
			"(-eventretention); resume after 3 or later"
		if re, ok := err.(*testenv.RPCError); !ok || re.Code != -8 || re.Message != msg {
			return fmt.Errorf("listwalletevents 2 after pruning: %v, want -8 %q", err, msg)
		}
		return nil
	})
	kept, err := allEvents(walletAt(d, "a"), 3)
	if err != nil || len(kept) != 3 || kept[0].Cursor != 4 || short(kept[0]) != want["a"][3] {
		t.Errorf("kept events: %+v %v", kept, err)
	}
}
