package walletscan_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

type lockedOut struct {
	TxID string `json:"txid"`
	Vout uint32 `json:"vout"`
}

// TestCoinControlChain follows real coins through lockunspent and
// avoid_reuse against btcd: locks listed in Core's order, a spend unlocking
// its input, the spent-from script marked used (getbalance, getbalances'
// used, listunspent's reused) and, across a restart, the persistent lock
// and the used mark kept while the in-memory lock is gone.
func TestCoinControlChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	k := testenv.NewKey("walletscan coin control")
	stranger := testenv.NewKey("walletscan coin control stranger")
	dir := t.TempDir()
	d := startNode(t, dir, b, "-chainpoll=200")
	var cw any
	call(t, d.client(""), &cw, "createwallet", "w", false, true)
	c := d.client("w")
	if _, err := importDesc(c, descriptor.AddChecksum("wpkh("+k.WIF+")"), "now", nil); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, c, b)

	fund := b.Fund(wire.NewTxOut(100_000, k.WPKH.Script), wire.NewTxOut(200_000, k.WPKH.Script),
		wire.NewTxOut(300_000, k.WPKH.Script))
	b.Generate(1)
	waitSynced(t, c, b)
	var us []unspent
	call(t, c, &us, "listunspent")
	if len(us) != 3 {
		t.Fatalf("listunspent: %d outputs, want 3", len(us))
	}
	out := func(v uint32) map[string]any { return map[string]any{"txid": fund, "vout": v} }
	var ok bool
	call(t, c, &ok, "lockunspent", false, []any{out(0)}, true)
	call(t, c, &ok, "lockunspent", false, []any{out(2), out(1)})
	var locked []lockedOut
	call(t, c, &locked, "listlockunspent")
	if len(locked) != 3 || locked[0].Vout != 0 || locked[1].Vout != 1 || locked[2].Vout != 2 {
		t.Fatalf("listlockunspent %+v, want the three outputs in order", locked)
	}
	if err := c.CallResult(&ok, "lockunspent", false, []any{out(1)}); err == nil {
		t.Fatal("locking a locked output again succeeded")
	}
	// The in-memory lock of output 1 becomes persistent.
	call(t, c, &ok, "lockunspent", false, []any{out(1)}, true)

	var flag map[string]any
	call(t, c, &flag, "setwalletflag", "avoid_reuse")
	// Spend output 0 (locked: the lock binds the wallet's own selection,
	// not a transaction signed elsewhere).
	spend := spendWPKH(t, b, k, testenv.Coin{TxID: fund, Vout: 0, Value: 100_000, Script: k.WPKH.Script},
		wire.MaxTxInSequenceNum, wire.NewTxOut(90_000, stranger.WPKH.Script))
	testenv.Eventually(t, 30*time.Second, func() error {
		var locked []lockedOut
		if err := c.CallResult(&locked, "listlockunspent"); err != nil {
			return err
		}
		if len(locked) != 2 || locked[0].Vout != 1 || locked[1].Vout != 2 {
			return fmt.Errorf("listlockunspent %+v, want outputs 1 and 2 (the spend unlocks 0)", locked)
		}
		return nil
	})
	// In btcd's mempool, then mined: never eligible for abandonment.
	notEligible := func(when string) {
		t.Helper()
		var e *testenv.RPCError
		if err := c.CallResult(new(any), "abandontransaction", spend); !asRPCError(err, &e) ||
			e.Code != -5 || e.Message != "Transaction not eligible for abandonment" {
			t.Fatalf("abandontransaction %s: %v", when, err)
		}
	}
	notEligible("in the mempool")
	b.Generate(1)
	waitSynced(t, c, b)
	notEligible("confirmed")

	check := func(when string) {
		t.Helper()
		var bal, full json.Number
		call(t, c, &bal, "getbalance")
		call(t, c, &full, "getbalance", "*", 0, false, false)
		if bal != "0.00000000" || full != "0.00500000" {
			t.Errorf("%s: getbalance %s, without avoid_reuse %s; want 0 and 0.005", when, bal, full)
		}
		var bs struct {
			Mine struct {
				Trusted json.Number `json:"trusted"`
				Used    json.Number `json:"used"`
			} `json:"mine"`
		}
		call(t, c, &bs, "getbalances")
		if bs.Mine.Trusted != "0.00000000" || bs.Mine.Used != "0.00500000" {
			t.Errorf("%s: getbalances %+v, want trusted 0 and used 0.005", when, bs.Mine)
		}
		var list []struct {
			Vout   uint32 `json:"vout"`
			Reused *bool  `json:"reused"`
		}
		call(t, c, &list, "listunspent")
		if len(list) != 2 {
			t.Fatalf("%s: listunspent %+v, want 2 outputs", when, list)
		}
		for _, u := range list {
			if u.Reused == nil || !*u.Reused {
				t.Errorf("%s: output %d not reported reused", when, u.Vout)
			}
		}
	}
	check("before restart")
	var lockedErr *testenv.RPCError
	if err := c.CallResult(&ok, "lockunspent", false, []any{out(0)}); !asRPCError(err, &lockedErr) ||
		lockedErr.Code != -8 || lockedErr.Message != "Invalid parameter, expected unspent output" {
		t.Fatalf("locking a spent output: %v", err)
	}

	d.stop()
	d = startNode(t, dir, b, "-chainpoll=200", "-wallet=w")
	c = d.client("w")
	waitSynced(t, c, b)
	call(t, c, &locked, "listlockunspent")
	if len(locked) != 1 || locked[0].TxID != fund || locked[0].Vout != 1 {
		t.Fatalf("after restart listlockunspent %+v, want only the persistent lock of output 1", locked)
	}
	check("after restart")
	call(t, c, &ok, "lockunspent", true)
	call(t, c, &locked, "listlockunspent")
	if len(locked) != 0 {
		t.Fatalf("after unlocking all: %+v", locked)
	}
}
