package methods

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// TestAncestorBumpFeeChain checks the ancestors' bump fees (Core's
// MiniMiner) on btcd: a payment at 1 sat/vB leaves unconfirmed change;
// sendtoaddress at 20 sat/vB, then (after a block and another 1 sat/vB
// parent) sendall at 20 sat/vB, can only spend that change, and each pays
// its own size at 20 sat/vB plus what brings the parent, as btcd's mempool
// reports it, up to 20 sat/vB: the package pays the target rate. Then
// bumpfee to 20 sat/vB of a 2 sat/vB child of a 1 sat/vB parent pays the
// parent's shortfall without counting the child it replaces.
func TestAncestorBumpFeeChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	b, wc, call := h.b, h.w, h.call
	spk := h.newScript()
	stranger := testenv.NewKey("bump fees stranger")
	waitTrusted := func(want float64) {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, func() error {
			var bal float64
			if err := wc.CallResult(&bal, "getbalance"); err != nil {
				return err
			}
			if bal < want {
				return errBalance
			}
			return nil
		})
	}
	type entry struct {
		VSize int64   `json:"vsize"`
		Fee   float64 `json:"fee"`
	}
	mempool := func() map[string]entry {
		t.Helper()
		var m map[string]entry
		if err := json.Unmarshal(b.MustCall("getrawmempool", true), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const rate = 20
	checkChild := func(what, parent, child string) {
		t.Helper()
		pool := mempool()
		p, okP := pool[parent]
		c, okC := pool[child]
		if !okP || !okC {
			t.Fatalf("%s: parent in mempool %v, child %v", what, okP, okC)
		}
		pFee, cFee := int64(p.Fee*1e8+0.5), int64(c.Fee*1e8+0.5)
		bump := rate*p.VSize - pFee
		if bump <= 0 {
			t.Fatalf("%s: the parent pays %d for %d vB", what, pFee, p.VSize)
		}
		nIn := int64(len(testenv.DecodeTx(t, rawHex(t, b, child)).TxIn))
		if low, high := rate*c.VSize+bump, rate*c.VSize+bump+rate*(2*nIn+1); cFee < low || cFee > high {
			t.Fatalf("%s: child pays %d for %d vB, want %d..%d (parent %d for %d vB)", what, cFee, c.VSize, low, high, pFee, p.VSize)
		}
		if (pFee+cFee)*1 < rate*(p.VSize+c.VSize) {
			t.Fatalf("%s: package pays %d for %d vB", what, pFee+cFee, p.VSize+c.VSize)
		}
	}

	b.Fund(wire.NewTxOut(100_000_000, spk))
	b.Generate(1)
	waitTrusted(1)
	var parent, child string
	call(&parent, "sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 1)
	call(&child, "sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, rate)
	checkChild("sendtoaddress", parent, child)
	b.Generate(1)
	if b.Confirmations(child) != 1 {
		t.Fatalf("%s not mined", child)
	}
	waitTrusted(0.7)

	call(&parent, "sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 1)
	var all struct {
		TxID     string `json:"txid"`
		Complete bool   `json:"complete"`
	}
	call(&all, "sendall", []any{stranger.TR.Address}, nil, nil, rate)
	if !all.Complete {
		t.Fatal("sendall incomplete")
	}
	checkChild("sendall", parent, all.TxID)
	b.Generate(1)
	if b.Confirmations(all.TxID) != 1 {
		t.Fatalf("%s not mined", all.TxID)
	}

	// bumpfee of a child of a 1 sat/vB parent: the replacement brings
	// the parent up to 20 sat/vB on its own (the original it replaces
	// no longer pays for it).
	b.Fund(wire.NewTxOut(100_000_000, spk))
	b.Generate(1)
	waitTrusted(1)
	call(&parent, "sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 1)
	call(&child, "sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 2)
	var bumped struct {
		TxID string `json:"txid"`
	}
	call(&bumped, "bumpfee", child, map[string]any{"fee_rate": rate})
	checkChild("bumpfee", parent, bumped.TxID)
	b.Generate(1)
	if b.Confirmations(bumped.TxID) != 1 {
		t.Fatalf("%s not mined", bumped.TxID)
	}
}

var errBalance = errorString("balance not reached yet")

type errorString string

func (e errorString) Error() string { return string(e) }

// rawHex is a transaction's hex from btcd.
func rawHex(t *testing.T, b *testenv.Btcd, txid string) string {
	t.Helper()
	var raw string
	if err := json.Unmarshal(b.MustCall("getrawtransaction", txid, 0), &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestLongChainChain checks the unconfirmed coins' ancestry from btcd's
// mempool (Core's getTransactionAncestry): 25 payments chained through
// their unconfirmed change go out (the last coin has 24 ancestors, within
// Core's limit of 25 less one), the 26th would make a chain the mempool
// refuses and gets Core's error; after a block it goes out.
func TestLongChainChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	b, wc := h.b, h.w
	b.Fund(wire.NewTxOut(100_000_000, h.newScript()))
	b.Generate(1)
	testenv.Eventually(t, 30*time.Second, func() error {
		var bal float64
		if err := wc.CallResult(&bal, "getbalance"); err != nil {
			return err
		}
		if bal < 1 {
			return errBalance
		}
		return nil
	})
	stranger := testenv.NewKey("long chain stranger")
	for i := range 25 {
		var id string
		h.call(&id, "sendtoaddress", stranger.WPKH.Address, 0.01)
		if i == 24 && !b.InMempool(id) {
			t.Fatalf("payment %d not in btcd's mempool", i+1)
		}
	}
	var id string
	err := wc.CallResult(&id, "sendtoaddress", stranger.WPKH.Address, 0.01)
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -6 ||
		re.Message != "Unconfirmed UTXOs are available, but spending them creates a chain of transactions that will be rejected by the mempool" {
		t.Fatalf("26th chained payment: %v", err)
	}
	b.Generate(1)
	testenv.Eventually(t, 30*time.Second, func() error {
		return wc.CallResult(&id, "sendtoaddress", stranger.WPKH.Address, 0.01)
	})
}
