package walletscan_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// walletTx is the part of a listtransactions entry or a gettransaction
// reply the mempool test reads; Raw keeps the whole object.
type walletTx struct {
	TxID          string  `json:"txid"`
	Category      string  `json:"category"`
	Confirmations int64   `json:"confirmations"`
	Trusted       *bool   `json:"trusted"`
	BlockHash     *string `json:"blockhash"`
	BlockHeight   *int64  `json:"blockheight"`
}

// TestMempoolReceive pays a wallet address with a transaction that stays in
// btcd's mempool: the wallet lists it unconfirmed (listunspent with
// minconf 0, untrusted_pending, confirmations 0 and no block in the
// transaction listings) and, once it is mined, confirmed in its block,
// recorded once.
func TestMempoolReceive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	b := testenv.StartBtcd(t, nil)
	stranger := testenv.NewKey("walletscan mempool stranger")
	// The first Fund mines the coinbases it spends; later ones do not.
	b.Fund(wire.NewTxOut(50_000, stranger.WPKH.Script))
	b.Generate(1)

	d := startNode(t, t.TempDir(), b)
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w")
	c := d.client("w")
	waitSynced(t, c, b)
	var addr string
	call(t, c, &addr, "getnewaddress")
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}

	const value = 1_234_567
	txid := b.Fund(wire.NewTxOut(value, spk))
	if !b.InMempool(txid) {
		t.Fatalf("%s is not in the mempool", txid)
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		var us []unspent
		if err := c.CallResult(&us, "listunspent", 0); err != nil {
			return err
		}
		for _, u := range us {
			if u.TxID == txid && u.Address == addr {
				if u.Confirmations != 0 || u.Amount != "0.01234567" {
					return fmt.Errorf("listunspent 0 entry %+v", u)
				}
				return nil
			}
		}
		return fmt.Errorf("listunspent 0 does not show %s yet: %+v", txid, us)
	})
	if !b.InMempool(txid) {
		t.Fatalf("%s left the mempool during the test", txid)
	}

	var us []unspent
	call(t, c, &us, "listunspent")
	if len(us) != 0 {
		t.Errorf("listunspent (minconf 1) lists %+v", us)
	}
	var bal struct {
		Mine struct {
			Trusted          json.Number `json:"trusted"`
			UntrustedPending json.Number `json:"untrusted_pending"`
			Immature         json.Number `json:"immature"`
		} `json:"mine"`
	}
	call(t, c, &bal, "getbalances")
	if bal.Mine.UntrustedPending != "0.01234567" || bal.Mine.Trusted != "0.00000000" {
		t.Errorf("getbalances mine %+v", bal.Mine)
	}
	checkUnconfirmed := func(what string, tx walletTx) {
		t.Helper()
		if tx.TxID != txid || tx.Confirmations != 0 || tx.Trusted == nil || *tx.Trusted ||
			tx.BlockHash != nil || tx.BlockHeight != nil {
			t.Errorf("%s: %+v", what, tx)
		}
	}
	var lt []walletTx
	call(t, c, &lt, "listtransactions")
	if len(lt) != 1 || lt[0].Category != "receive" {
		t.Fatalf("listtransactions: %+v", lt)
	}
	checkUnconfirmed("listtransactions", lt[0])
	var gt walletTx
	call(t, c, &gt, "gettransaction", txid)
	checkUnconfirmed("gettransaction", gt)

	block := b.Generate(1)[0]
	if b.Confirmations(txid) != 1 {
		t.Fatalf("%s not mined in %s", txid, block)
	}
	waitSynced(t, c, b)
	testenv.Eventually(t, 30*time.Second, func() error {
		var gt walletTx
		if err := c.CallResult(&gt, "gettransaction", txid); err != nil {
			return err
		}
		if gt.Confirmations != 1 || gt.BlockHash == nil || *gt.BlockHash != block || gt.Trusted != nil {
			return fmt.Errorf("gettransaction after mining: %+v", gt)
		}
		return nil
	})
	call(t, c, &lt, "listtransactions")
	if len(lt) != 1 || lt[0].TxID != txid || lt[0].Confirmations != 1 || lt[0].BlockHash == nil ||
		*lt[0].BlockHash != block {
		t.Errorf("listtransactions after mining: %+v", lt)
	}
	call(t, c, &us, "listunspent")
	if len(us) != 1 || us[0].TxID != txid || us[0].Confirmations != 1 {
		t.Errorf("listunspent after mining: %+v", us)
	}
	call(t, c, &bal, "getbalances")
	if bal.Mine.Trusted != "0.01234567" || bal.Mine.UntrustedPending != "0.00000000" {
		t.Errorf("getbalances mine after mining %+v", bal.Mine)
	}
}

// TestMempoolSpendConfirms spends a wallet coin to an outside address with
// a transaction the wallet first sees in the mempool: once mined, the spend
// is recorded in its block, the coin stays spent and the balance stays at
// zero (the block confirming a spend that pays nothing back to the wallet
// must match the wallet's watched outputs).
func TestMempoolSpendConfirms(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd")
	}
	b := testenv.StartBtcd(t, nil)
	key := testenv.NewKey("walletscan mempool spend key")
	stranger := testenv.NewKey("walletscan mempool spend stranger")
	b.Fund(wire.NewTxOut(50_000, stranger.WPKH.Script))
	b.Generate(1)

	d := startNode(t, t.TempDir(), b, "-chainpoll=200")
	var cw json.RawMessage
	call(t, d.client(""), &cw, "createwallet", "w", true, true)
	c := d.client("w")
	if res, err := importDesc(c, descriptor.AddChecksum("wpkh("+key.PubKeyHex+")"), "now", nil); err != nil ||
		!strings.Contains(string(res), `"success":true`) {
		t.Fatalf("import: %s %v", res, err)
	}
	waitSynced(t, c, b)

	const value = 2_000_000
	fundID := b.Fund(wire.NewTxOut(value, key.WPKH.Script))
	b.Generate(1)
	waitSynced(t, c, b)
	coin := testenv.Coin{TxID: fundID, Vout: 0, Value: value, Script: key.WPKH.Script}
	tx := testenv.UnsignedSpend(t, []testenv.Coin{coin}, wire.NewTxOut(value-10_000, stranger.WPKH.Script))
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
	var bal struct {
		Mine map[string]json.Number `json:"mine"`
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		var gt walletTx
		if err := c.CallResult(&gt, "gettransaction", spend); err != nil {
			return err
		}
		if gt.Confirmations != 0 {
			return fmt.Errorf("the spend in the mempool: %+v", gt)
		}
		return nil
	})
	call(t, c, &bal, "getbalances")
	if bal.Mine["trusted"] != "0.00000000" {
		t.Fatalf("getbalances with the spend in the mempool: %v", bal.Mine)
	}

	block := b.Generate(1)[0]
	waitSynced(t, c, b)
	// The old code dropped the spend as gone from the mempool at the first
	// mempool poll after the block. A poll hands the wallet the new
	// transactions it finds before it looks for those that left, so two
	// payments seen one after the other prove that a whole poll ran after
	// the block: the second was sent once the first was seen, so a later
	// poll found it.
	const marker = 30_000
	var markers []string
	for range 2 {
		id := b.Fund(wire.NewTxOut(marker, key.WPKH.Script))
		markers = append(markers, id+":0")
		testenv.Eventually(t, 30*time.Second, func() error {
			var gt walletTx
			return c.CallResult(&gt, "gettransaction", id)
		})
	}
	var gt walletTx
	call(t, c, &gt, "gettransaction", spend)
	if gt.Confirmations != 1 || gt.BlockHash == nil || *gt.BlockHash != block {
		t.Errorf("gettransaction of the mined spend: %+v", gt)
	}
	var us []unspent
	call(t, c, &us, "listunspent", 0)
	sort.Strings(markers)
	if got := outpoints(us); !slices.Equal(got, markers) {
		t.Errorf("listunspent after the spend was mined: %v, want the two later payments %v", got, markers)
	}
	call(t, c, &bal, "getbalances")
	if bal.Mine["trusted"] != "0.00000000" || bal.Mine["untrusted_pending"] != "0.00060000" {
		t.Errorf("getbalances after the spend was mined: %v", bal.Mine)
	}
}
