package methods

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// The calls of this file behaved differently from Core before the
// parameter declarations were compared with Core's (params_parity_test.go).

// TestBumpFeeNamedOptions: bumpfee's and psbtbumpfee's options are
// Core's OBJ_NAMED_PARAMS, so a named call may give them at the top level
// (they were "Unknown named parameter fee_rate").
func TestBumpFeeNamedOptions(t *testing.T) {
	b := newBumpNode(t)
	res, e := b.call(t, "psbtbumpfee", `{"txid": "`+b.orig+`", "fee_rate": 25}`)
	if e != nil {
		t.Fatalf("psbtbumpfee named fee_rate: %+v", e)
	}
	var p struct {
		PSBT string `json:"psbt"`
	}
	if json.Unmarshal(res, &p); p.PSBT == "" {
		t.Errorf("psbtbumpfee: %s", res)
	}
	for _, c := range []struct {
		params string
		code   int
		msg    string
	}{
		{`{"txid": "` + b.orig + `", "fee_rate": 25, "conf_target": 3}`, -8,
			"Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate."},
		{`{"txid": "` + b.orig + `", "replaceable": "no"}`, -3,
			"JSON value of type string for field replaceable is not of expected type bool"},
		{`{"txid": "` + b.orig + `", "fee_rate": 25, "options": {}}`, -8,
			"Parameter options conflicts with parameter fee_rate"},
	} {
		_, e := b.call(t, "bumpfee", c.params)
		if e == nil || e.Code != c.code || e.Message != c.msg {
			t.Errorf("bumpfee %s: %+v, want %d %q", c.params, e, c.code, c.msg)
		}
	}
	res, e = b.call(t, "bumpfee", `{"txid": "`+b.orig+`", "fee_rate": 25}`)
	if e != nil {
		t.Fatalf("bumpfee named fee_rate: %+v", e)
	}
	var r struct {
		TxID string `json:"txid"`
	}
	if json.Unmarshal(res, &r); len(r.TxID) != 64 {
		t.Errorf("bumpfee: %s", res)
	}
}

// TestListUnspentQueryOptions: query_options is Core's OBJ_NAMED_PARAMS
// (its members were refused at the top level of a named call), checked by
// Core's RPCTypeCheckObj (a wrong member type named no field), and takes
// include_immature_coinbase (refused before).
func TestListUnspentQueryOptions(t *testing.T) {
	ctx := context.Background()
	b, spk := newBumpWallet(t)
	w := b.w
	// A payment of 1 BTC at height 100 and a coinbase of 50 BTC at
	// height 200, the tip: 101 and 1 confirmations.
	pay := wire.NewMsgTx(2)
	pay.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0x42}}, nil, nil))
	pay.AddTxOut(wire.NewTxOut(100_000_000, spk))
	cb := wire.NewMsgTx(2)
	cb.AddTxIn(wire.NewTxIn(&wire.OutPoint{Index: wire.MaxPrevOutIndex}, []byte{1, 200}, nil))
	cb.AddTxOut(wire.NewTxOut(5_000_000_000, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xa1}, Time: 1700000000},
		[]*wire.MsgTx{pay}, []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 200, Hash: chainhash.Hash{0xb1}, Time: 1700006000},
		[]*wire.MsgTx{cb}, []int{0}); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 200, Hash: [32]byte{0xb1}}}); err != nil {
		t.Fatal(err)
	}
	amounts := func(params string) []float64 {
		t.Helper()
		res, e := b.call(t, "listunspent", params)
		if e != nil {
			t.Fatalf("listunspent %s: %+v", params, e)
		}
		var list []struct {
			Amount float64 `json:"amount"`
		}
		if err := json.Unmarshal(res, &list); err != nil {
			t.Fatalf("listunspent %s: %s", params, res)
		}
		var out []float64
		for _, u := range list {
			out = append(out, u.Amount)
		}
		return out
	}
	for _, c := range []struct {
		params string
		want   []float64
	}{
		{`[]`, []float64{1}},
		{`{"minimumAmount": 2}`, nil},
		{`{"maximumAmount": 0.5, "minconf": 0}`, nil},
		{`{"include_immature_coinbase": true}`, []float64{1, 50}},
		{`[1, 9999999, [], true, {"include_immature_coinbase": true, "minimumAmount": 10}]`, []float64{50}},
		{`{"include_immature_coinbase": true, "maximumCount": 1}`, []float64{1}},
	} {
		got := amounts(c.params)
		if len(got) != len(c.want) {
			t.Errorf("listunspent %s: %v, want %v", c.params, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("listunspent %s: %v, want %v", c.params, got, c.want)
			}
		}
	}
	for _, c := range []struct {
		params string
		code   int
		msg    string
	}{
		{`{"maximumCount": "1"}`, -3, "JSON value of type string for field maximumCount is not of expected type number"},
		{`{"include_immature_coinbase": 1, "maximumCount": "1"}`, -3, "JSON value of type number for field include_immature_coinbase is not of expected type bool"},
		{`[1, 2, [], true, {"bogus": 1}]`, -3, "Unexpected key bogus"},
		{`[1, 2, [], true, {"minimumAmount": null}]`, -3, "Amount is not a number or string"},
		{`{"maximumCount": 1.5}`, -1, "JSON integer out of range"},
		{`{"minimumAmount": 1, "query_options": {}}`, -8, "Parameter query_options conflicts with parameter minimumAmount"},
	} {
		_, e := b.call(t, "listunspent", c.params)
		if e == nil || e.Code != c.code || e.Message != c.msg {
			t.Errorf("listunspent %s: %+v, want %d %q", c.params, e, c.code, c.msg)
		}
	}
}

// TestStopWait: stop takes Core's hidden wait argument, the milliseconds
// to wait after asking for the shutdown (it answered with the help, -1).
func TestStopWait(t *testing.T) {
	n := newSpendNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	b := &bumpNode{n: n}
	start := time.Now()
	res, e := b.call(t, "stop", `[60]`)
	if e != nil || string(res) != `"Bitcoin Core stopping"` {
		t.Fatalf("stop 60: %s %+v", res, e)
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("stop 60 answered after %v", d)
	}
	if _, e := b.call(t, "stop", `["60"]`); e == nil || e.Code != -3 {
		t.Errorf("stop \"60\": %+v, want the -3 type error", e)
	}
	if _, e := b.call(t, "stop", `{"wait": 0}`); e != nil {
		t.Errorf("stop wait=0: %+v", e)
	}
	help, e := b.call(t, "help", `["stop"]`)
	var text string
	json.Unmarshal(help, &text)
	if e != nil || len(text) < 4 || text[:5] != "stop\n" {
		t.Errorf("help stop shows the hidden argument: %q", text)
	}
}

// TestHelpListCategories: the help list groups methods under Core's
// categories, one heading each (the raw-transaction and util methods were
// split under "Raw transactions", "Rawtransactions" and "Util", "util").
func TestHelpListCategories(t *testing.T) {
	list := rpc.HelpList(All(&Deps{Net: &chaincfg.RegressionNetParams}))
	var headings []string
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, "== ") {
			headings = append(headings, line)
		}
	}
	want := []string{"== Blockchain ==", "== Control ==", "== Network ==", "== Rawtransactions ==", "== Signer ==", "== Util ==", "== Wallet ==", "== Zmq =="}
	if !slices.Equal(headings, want) {
		t.Errorf("help list headings %q, want %q", headings, want)
	}
}
