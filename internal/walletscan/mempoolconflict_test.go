package walletscan_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// TestForeignReplacementInMempool: a sender outside the wallet pays it
// with a BIP 125 transaction, then replaces that in btcd's mempool with
// one paying the sender back. The wallet lists the replacement in the
// payment's mempoolconflicts (trusted false, nothing pending), its event
// log has one replaced event with the replacement as related, which a
// restart reading the same mempool does not repeat; mining the
// replacement makes the payment conflicted (negative confirmations).
func TestForeignReplacementInMempool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	stranger := testenv.NewKey("walletscan replacement stranger")
	fundID := b.Fund(wire.NewTxOut(1_000_000, stranger.WPKH.Script))
	b.Generate(1)

	dir := t.TempDir()
	d := startNode(t, dir, b, "-chainpoll=200")
	var cw any
	call(t, d.client(""), &cw, "createwallet", "w")
	c := d.client("w")
	waitSynced(t, c, b)
	spk := newScript(t, c)
	coin := testenv.Coin{TxID: fundID, Vout: 0, Value: 1_000_000, Script: stranger.WPKH.Script}
	pay := spendWPKH(t, b, stranger, coin, wire.MaxTxInSequenceNum-2, wire.NewTxOut(990_000, spk))

	type txReply struct {
		Confirmations    int64    `json:"confirmations"`
		Trusted          *bool    `json:"trusted"`
		MempoolConflicts []string `json:"mempoolconflicts"`
		WalletConflicts  []string `json:"walletconflicts"`
	}
	get := func() (txReply, error) {
		var r txReply
		err := c.CallResult(&r, "gettransaction", pay)
		return r, err
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		r, err := get()
		if err != nil {
			return err
		}
		if r.Confirmations != 0 || r.Trusted == nil || *r.Trusted || len(r.MempoolConflicts) != 0 {
			return fmt.Errorf("payment in the mempool: %+v", r)
		}
		return nil
	})

	repl := spendWPKH(t, b, stranger, coin, wire.MaxTxInSequenceNum-2, wire.NewTxOut(980_000, stranger.WPKH.Script))
	if b.InMempool(pay) || !b.InMempool(repl) {
		t.Fatalf("btcd did not replace %s with %s", pay, repl)
	}
	replaced := func(c *testenv.Client) error {
		var r txReply
		if err := c.CallResult(&r, "gettransaction", pay); err != nil {
			return err
		}
		if r.Confirmations != 0 || r.Trusted == nil || *r.Trusted || !slices.Equal(r.MempoolConflicts, []string{repl}) ||
			len(r.WalletConflicts) != 0 {
			return fmt.Errorf("replaced payment: %+v", r)
		}
		var lt []txReply
		if err := c.CallResult(&lt, "listtransactions"); err != nil {
			return err
		}
		if len(lt) != 1 || !slices.Equal(lt[0].MempoolConflicts, []string{repl}) {
			return fmt.Errorf("listtransactions: %+v", lt)
		}
		var bal struct {
			Mine map[string]float64 `json:"mine"`
		}
		if err := c.CallResult(&bal, "getbalances"); err != nil {
			return err
		}
		if bal.Mine["trusted"] != 0 || bal.Mine["untrusted_pending"] != 0 {
			return fmt.Errorf("getbalances: %+v", bal.Mine)
		}
		return nil
	}
	testenv.Eventually(t, 30*time.Second, func() error { return replaced(c) })

	type event struct {
		Kind    string `json:"kind"`
		TxID    string `json:"txid"`
		Related string `json:"related"`
	}
	events := func(c *testenv.Client) []string {
		t.Helper()
		var evs []event
		call(t, c, &evs, "listwalletevents", 0, 1000)
		var out []string
		for _, e := range evs {
			out = append(out, e.Kind+" "+e.TxID+" "+e.Related)
		}
		return out
	}
	want := []string{"received " + pay + " ", "replaced " + pay + " " + repl}
	if got := events(c); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}

	// A restart reads the same mempool again: the conflict comes back,
	// the event does not.
	d.stop()
	d = startNode(t, dir, b, "-chainpoll=200", "-wallet=w")
	c = d.client("w")
	testenv.Eventually(t, 30*time.Second, func() error { return replaced(c) })
	if got := events(c); !slices.Equal(got, want) {
		t.Fatalf("after a restart: events %q, want %q", got, want)
	}

	// The replacement is mined: the payment is conflicted by its block.
	block := b.Generate(1)[0]
	waitSynced(t, c, b)
	testenv.Eventually(t, 30*time.Second, func() error {
		r, err := get()
		if err != nil {
			return err
		}
		if r.Confirmations != -1 || r.Trusted == nil || *r.Trusted || len(r.MempoolConflicts) != 0 {
			return fmt.Errorf("payment after the replacement was mined in %s: %+v", block, r)
		}
		return nil
	})
	want = append(want, "conflicted "+pay+" "+repl)
	if got := events(c); !slices.Equal(got, want) {
		t.Fatalf("after mining: events %q, want %q", got, want)
	}
}
