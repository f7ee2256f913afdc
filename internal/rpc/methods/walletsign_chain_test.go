package methods

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// walletSignSetup starts btcd and a daemon following it with wallet w
// holding one confirmed coin on an address of each type; it returns the
// wallet's client and the coins.
func walletSignSetup(t *testing.T) (*testenv.Btcd, *testenv.Client, []wire.OutPoint, []*wire.TxOut) {
	t.Helper()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b)
	wc := createWallet(t, d, "w")
	var outs []*wire.TxOut
	for i, typ := range []string{"legacy", "p2sh-segwit", "bech32", "bech32m"} {
		var a string
		if err := wc.CallResult(&a, "getnewaddress", "", typ); err != nil {
			t.Fatal(err)
		}
		spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, wire.NewTxOut(int64(10_000_000+i), spk))
	}
	fundID := b.Fund(outs...)
	b.Generate(1)
	hash, err := chainhash.NewHashFromStr(fundID)
	if err != nil {
		t.Fatal(err)
	}
	fund := b.Block(b.BestBlockHash())
	var ops []wire.OutPoint
	var coins []*wire.TxOut
	for _, tx := range fund.Transactions {
		if tx.TxHash() != *hash {
			continue
		}
		for _, want := range outs {
			for i, o := range tx.TxOut {
				if o.Value == want.Value && bytes.Equal(o.PkScript, want.PkScript) {
					ops = append(ops, wire.OutPoint{Hash: *hash, Index: uint32(i)})
					coins = append(coins, o)
				}
			}
		}
	}
	if len(ops) != len(outs) {
		t.Fatalf("funding transaction %s: found %d of %d coins", fundID, len(ops), len(outs))
	}
	// The wallet has processed the block when it lists the coins.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var us []json.RawMessage
		if err := wc.CallResult(&us, "listunspent"); err != nil {
			t.Fatal(err)
		}
		if len(us) == len(outs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the wallet lists %d of %d coins", len(us), len(outs))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return b, wc, ops, coins
}

// spendAllTx is an unsigned transaction spending ops to one stranger
// output, leaving fee.
func spendAllTx(ops []wire.OutPoint, coins []*wire.TxOut, to []byte, fee int64) *wire.MsgTx {
	tx := wire.NewMsgTx(2)
	var total int64
	for i, op := range ops {
		tx.AddTxIn(wire.NewTxIn(&op, nil, nil))
		total += coins[i].Value
	}
	tx.AddTxOut(wire.NewTxOut(total-fee, to))
	return tx
}

func txHex(t *testing.T, tx *wire.MsgTx) string {
	t.Helper()
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(buf.Bytes())
}

// TestSignRawTransactionWithWalletChain signs, with the wallet's keys, a
// transaction spending a coin of each address type that the wallet holds
// (the coins found through the chain backend, no prevtxs); btcd accepts
// it and mines it.
func TestSignRawTransactionWithWalletChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b, wc, ops, coins := walletSignSetup(t)
	stranger := testenv.NewKey("walletsign stranger")
	tx := spendAllTx(ops, coins, stranger.WPKH.Script, 20_000)

	var res struct {
		Hex      string            `json:"hex"`
		Complete bool              `json:"complete"`
		Errors   []json.RawMessage `json:"errors"`
	}
	if err := wc.CallResult(&res, "signrawtransactionwithwallet", txHex(t, tx)); err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Errors) != 0 {
		t.Fatalf("signrawtransactionwithwallet: complete %v, errors %s", res.Complete, res.Errors)
	}
	txid, err := b.SendRawTransaction(res.Hex)
	if err != nil {
		t.Fatalf("btcd refuses the signed transaction: %v", err)
	}
	b.Generate(1)
	if c := b.Confirmations(txid); c != 1 {
		t.Fatalf("%s has %d confirmations, want 1", txid, c)
	}
}

// TestWalletProcessPSBTChain: a PSBT made by createpsbt spending a coin of
// each address type is filled by the wallet (its previous transactions,
// scripts and derivations) without signing, then signed and finalized;
// btcd accepts the extracted transaction and mines it.
func TestWalletProcessPSBTChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b, wc, ops, coins := walletSignSetup(t)
	stranger := testenv.NewKey("walletprocesspsbt stranger")
	var inputs []map[string]any
	var total int64
	for i, op := range ops {
		inputs = append(inputs, map[string]any{"txid": op.Hash.String(), "vout": op.Index})
		total += coins[i].Value
	}
	amount := json.Number(fmt.Sprintf("%d.%08d", (total-20_000)/1e8, (total-20_000)%1e8))
	var unsigned string
	if err := wc.CallResult(&unsigned, "createpsbt", inputs, []map[string]any{{stranger.WPKH.Address: amount}}); err != nil {
		t.Fatal(err)
	}
	type processed struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
		Hex      string `json:"hex"`
	}
	var filled processed
	if err := wc.CallResult(&filled, "walletprocesspsbt", unsigned, false); err != nil {
		t.Fatal(err)
	}
	if filled.Complete || filled.Hex != "" || filled.PSBT == unsigned {
		t.Fatalf("walletprocesspsbt without signing: complete %v, hex %q, PSBT unchanged %v",
			filled.Complete, filled.Hex, filled.PSBT == unsigned)
	}
	var signed processed
	if err := wc.CallResult(&signed, "walletprocesspsbt", filled.PSBT); err != nil {
		t.Fatal(err)
	}
	if !signed.Complete || signed.Hex == "" {
		t.Fatalf("walletprocesspsbt: complete %v, hex %q", signed.Complete, signed.Hex)
	}
	txid, err := b.SendRawTransaction(signed.Hex)
	if err != nil {
		t.Fatalf("btcd refuses the signed transaction: %v", err)
	}
	b.Generate(1)
	if c := b.Confirmations(txid); c != 1 {
		t.Fatalf("%s has %d confirmations, want 1", txid, c)
	}
}
