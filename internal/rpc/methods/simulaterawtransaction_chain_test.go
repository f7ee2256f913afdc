package methods

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestSimulateRawTransactionChain follows the second part of Core's
// wallet_simulaterawtx.py on btcd: a transaction funded by the wallet's
// real coins counts its inputs and change, chains inside the array, the
// same coin spent twice, a coin spent by a mempool transaction (still
// found, as Core's mempool view finds it), an output of a mempool
// transaction, and a coin already spent in a block.
func TestSimulateRawTransactionChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts btcd and the daemon; skipped with -short")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b, "-fallbackfee=0.0001")
	w0 := createWallet(t, d, "w0")
	w1 := createWallet(t, d, "w1")
	w2 := createWallet(t, d, "w2", true)
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
	}
	sim := func(c *testenv.Client, txs ...string) (int64, error) {
		var r struct {
			Change json.Number `json:"balance_change"`
		}
		err := c.CallResult(&r, "simulaterawtransaction", txs)
		return sats(r.Change), err
	}
	want := func(c *testenv.Client, v int64, txs ...string) {
		t.Helper()
		got, err := sim(c, txs...)
		if err != nil || got != v {
			t.Errorf("simulaterawtransaction: %d %v, want %d", got, err, v)
		}
	}
	fails := func(c *testenv.Client, msg string, txs ...string) {
		t.Helper()
		_, err := sim(c, txs...)
		var re *testenv.RPCError
		if !errors.As(err, &re) || re.Code != -8 || re.Message != msg {
			t.Errorf("simulaterawtransaction: %v, want -8 %q", err, msg)
		}
	}
	newAddr := func(c *testenv.Client) string {
		var a string
		call(c, &a, "getnewaddress")
		return a
	}
	script := func(a string) []byte {
		spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return spk
	}
	balance := func(c *testenv.Client, v int64) {
		t.Helper()
		err := testenv.Poll(30*time.Second, func() error {
			var bal json.Number
			if err := c.CallResult(&bal, "getbalance", nil, 0); err != nil {
				return err
			}
			if sats(bal) != v {
				return fmt.Errorf("balance %s", bal)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// seen waits until every wallet has processed btcd's tip and knows
	// the transactions txids (each pays or spends a coin of each wallet).
	seen := func(txids ...string) {
		t.Helper()
		tip := b.BestBlockHash()
		err := testenv.Poll(30*time.Second, func() error {
			for _, c := range []*testenv.Client{w0, w1, w2} {
				var wi struct {
					Last struct {
						Hash string `json:"hash"`
					} `json:"lastprocessedblock"`
				}
				if err := c.CallResult(&wi, "getwalletinfo"); err != nil {
					return err
				}
				if wi.Last.Hash != tip {
					return fmt.Errorf("wallet at %s, btcd at %s", wi.Last.Hash, tip)
				}
				for _, id := range txids {
					var tx json.RawMessage
					if err := c.CallResult(&tx, "gettransaction", id); err != nil {
						return fmt.Errorf("%s %s: %w", c.URL, id, err)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	b.Fund(wire.NewTxOut(20e8, script(newAddr(w0))))
	b.Generate(1)
	balance(w0, 20e8)
	addr1, addr2 := newAddr(w1), newAddr(w1)
	var info struct {
		Desc string `json:"desc"`
	}
	call(w1, &info, "getaddressinfo", addr1)
	var imported json.RawMessage
	call(w2, &imported, "importdescriptors", []map[string]any{{"desc": info.Desc, "timestamp": "now"}})

	var tx1, tx2 string
	call(w0, &tx1, "createrawtransaction", []any{}, []map[string]any{{addr1: 5}})
	call(w0, &tx2, "createrawtransaction", []any{}, []map[string]any{{addr2: 10}})
	var funded struct {
		Hex       string      `json:"hex"`
		Fee       json.Number `json:"fee"`
		ChangePos int         `json:"changepos"`
	}
	call(w0, &funded, "fundrawtransaction", tx1)
	tx1, fee1 := funded.Hex, sats(funded.Fee)
	want(w0, -(5e8 + fee1), tx1)
	want(w1, 5e8, tx1)
	want(w2, 5e8, tx1)
	fails(w0, "Transaction(s) are spending the same output more than once", tx1, tx1)

	var dec struct {
		TxID string `json:"txid"`
	}
	call(w0, &dec, "decoderawtransaction", tx1)
	in := []map[string]any{{"txid": dec.TxID, "vout": 1 - funded.ChangePos}}
	var tx3, tx4 string
	call(w0, &tx3, "createrawtransaction", in, []map[string]any{{newAddr(w0): 4.9999}})
	call(w0, &tx4, "createrawtransaction", in, []map[string]any{{newAddr(w1): 4.9999}})
	const missing = "One or more transaction inputs are missing or have been spent already"
	for _, c := range []*testenv.Client{w0, w1} {
		fails(c, missing, tx3)
		fails(c, missing, tx4)
		fails(c, "Transaction(s) are spending the same output more than once", tx1, tx3, tx4)
	}
	want(w0, -5e8-fee1+499_990_000, tx1, tx3)
	want(w1, 0, tx1, tx3)
	want(w0, -5e8-fee1, tx1, tx4)
	want(w1, 499_990_000, tx1, tx4)

	// tx1 in the mempool: its input is spent there and still found, as
	// are its outputs, also once tx3 spends one of them there.
	var signed struct {
		Hex string `json:"hex"`
	}
	call(w0, &signed, "signrawtransactionwithwallet", tx1)
	id1, err := b.SendRawTransaction(signed.Hex)
	if err != nil {
		t.Fatal(err)
	}
	seen(id1)
	want(w0, -(5e8 + fee1), tx1)
	want(w1, 5e8, tx1)
	want(w0, 499_990_000, tx3)
	want(w1, -5e8+499_990_000, tx4)
	call(w1, &signed, "signrawtransactionwithwallet", tx3)
	id3, err := b.SendRawTransaction(signed.Hex)
	if err != nil {
		t.Fatal(err)
	}
	seen(id1, id3)
	want(w1, -5e8+499_990_000, tx4)

	// Mined: tx1's input is spent in a block.
	b.Generate(1)
	seen(id1, id3)
	call(w0, &funded, "fundrawtransaction", tx2)
	tx2, fee2 := funded.Hex, sats(funded.Fee)
	want(w0, -(10e8 + fee2), tx2)
	want(w1, 10e8, tx2)
	want(w2, 0, tx2)
	for _, c := range []*testenv.Client{w0, w1, w2} {
		fails(c, missing, tx1, tx2)
	}
}
