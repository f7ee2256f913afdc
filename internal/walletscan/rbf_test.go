package walletscan_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// spendWPKH spends coin (paying k's P2WPKH script) to outputs with the
// given sequence, signed by k, and submits it.
func spendWPKH(t *testing.T, b *testenv.Btcd, k *testenv.Key, coin testenv.Coin, seq uint32, outs ...*wire.TxOut) string {
	t.Helper()
	tx := testenv.UnsignedSpend(t, []testenv.Coin{coin}, outs...)
	tx.TxIn[0].Sequence = seq
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher), 0,
		coin.Value, coin.Script, txscript.SigHashAll, k.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = wit
	txid, err := b.SendRawTransaction(testenv.TxHex(t, tx))
	if err != nil {
		t.Fatalf("sendrawtransaction: %v", err)
	}
	return txid
}

// TestBIP125Replaceable checks bip125-replaceable as Core's IsRBFOptIn
// answers it (issue 11, defect 13): "yes" for an unconfirmed transaction
// that signals, or whose unconfirmed ancestor (here not the wallet's)
// signals; "no" for a mempool transaction with final sequences and no such
// ancestor, and for every confirmed one.
func TestBIP125Replaceable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	stranger := testenv.NewKey("walletscan rbf stranger")
	fundID := b.Fund(wire.NewTxOut(1_000_000, stranger.WPKH.Script), wire.NewTxOut(1_000_000, stranger.WPKH.Script))
	b.Generate(1)

	d := startNode(t, t.TempDir(), b, "-chainpoll=200")
	var cw any
	call(t, d.client(""), &cw, "createwallet", "w")
	c := d.client("w")
	waitSynced(t, c, b)

	final := b.Fund(wire.NewTxOut(100_000, newScript(t, c)))
	signals := spendWPKH(t, b, stranger, testenv.Coin{TxID: fundID, Vout: 0, Value: 1_000_000, Script: stranger.WPKH.Script},
		wire.MaxTxInSequenceNum-2, wire.NewTxOut(990_000, newScript(t, c)))
	// A parent outside the wallet signals; its child paying the wallet
	// does not.
	parent := spendWPKH(t, b, stranger, testenv.Coin{TxID: fundID, Vout: 1, Value: 1_000_000, Script: stranger.WPKH.Script},
		wire.MaxTxInSequenceNum-2, wire.NewTxOut(990_000, stranger.WPKH.Script))
	child := spendWPKH(t, b, stranger, testenv.Coin{TxID: parent, Vout: 0, Value: 990_000, Script: stranger.WPKH.Script},
		wire.MaxTxInSequenceNum, wire.NewTxOut(980_000, newScript(t, c)))
	want := map[string]string{final: "no", signals: "yes", child: "yes"}

	check := func(want map[string]string) error {
		var lt []struct {
			TxID        string `json:"txid"`
			Replaceable string `json:"bip125-replaceable"`
		}
		if err := c.CallResult(&lt, "listtransactions"); err != nil {
			return err
		}
		if len(lt) != len(want) {
			return fmt.Errorf("listtransactions lists %d entries, want %d: %+v", len(lt), len(want), lt)
		}
		for _, e := range lt {
			if e.Replaceable != want[e.TxID] {
				return fmt.Errorf("listtransactions %s: bip125-replaceable %q, want %q", e.TxID, e.Replaceable, want[e.TxID])
			}
		}
		for id, w := range want {
			var gt struct {
				Replaceable string `json:"bip125-replaceable"`
			}
			if err := c.CallResult(&gt, "gettransaction", id); err != nil {
				return err
			}
			if gt.Replaceable != w {
				return fmt.Errorf("gettransaction %s: bip125-replaceable %q, want %q", id, gt.Replaceable, w)
			}
		}
		return nil
	}
	testenv.Eventually(t, 30*time.Second, func() error { return check(want) })
	for id := range want {
		if !b.InMempool(id) {
			t.Fatalf("%s left the mempool during the test", id)
		}
	}

	b.Generate(1)
	waitSynced(t, c, b)
	testenv.Eventually(t, 30*time.Second, func() error {
		return check(map[string]string{final: "no", signals: "no", child: "no"})
	})
}
