package methods

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestBumpFeeNewChangeOfTheWalletsType bumps a payment that has no
// change output in a wallet whose only change descriptor is tr(): the
// bump adds an input and takes its change as Core's TransactionChangeType
// of the recipients picks it (bech32m, the wallet having no bech32 change
// descriptor), where it used to fail with "No bech32 addresses available"
// (found by the random accounting test, seed 11, step 215).
func TestBumpFeeNewChangeOfTheWalletsType(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b)
	h := &spendHarness{t: t, b: b, d: d, w: createWallet(t, d, "w", false, true), blocks: map[chainhash.Hash]*wire.MsgBlock{}}
	seed := sha256.Sum256([]byte("bumpfee change type"))
	master, err := hdkeychain.NewMaster(seed[:], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	var imp []struct {
		Success bool `json:"success"`
	}
	h.call(&imp, "importdescriptors", []map[string]any{
		{"desc": descriptor.AddChecksum(fmt.Sprintf("wpkh(%s/0/*)", master)), "timestamp": "now", "active": true},
		{"desc": descriptor.AddChecksum(fmt.Sprintf("tr(%s/1/*)", master)), "timestamp": "now", "active": true,
			"internal": true},
	})
	if len(imp) != 2 || !imp[0].Success || !imp[1].Success {
		t.Fatalf("importdescriptors %+v", imp)
	}
	spk := h.newScript()
	b.Fund(wire.NewTxOut(1_000_000, spk), wire.NewTxOut(2_000_000, spk))
	b.Generate(1)
	h.check("receive")

	// The whole of the first coin, fee from the amount: no change.
	stranger := testenv.NewKey("bumpfee change type stranger")
	var orig string
	h.call(&orig, "sendtoaddress", stranger.WPKH.Address, 0.01, nil, nil, true, nil, nil, nil, nil, 2)
	if tx := h.rawTx(orig); len(tx.TxIn) != 1 || len(tx.TxOut) != 1 {
		t.Fatalf("the payment has %d inputs and %d outputs", len(tx.TxIn), len(tx.TxOut))
	}
	var bump struct {
		TxID string `json:"txid"`
	}
	h.call(&bump, "bumpfee", orig)
	tx := h.rawTx(bump.TxID)
	if len(tx.TxIn) != 2 || len(tx.TxOut) != 2 {
		t.Fatalf("the replacement has %d inputs and %d outputs", len(tx.TxIn), len(tx.TxOut))
	}
	taproot := 0
	for _, o := range tx.TxOut {
		if txscript.IsPayToTaproot(o.PkScript) {
			taproot++
		}
	}
	if taproot != 1 {
		t.Errorf("the replacement's outputs %v: want one taproot change", tx.TxOut)
	}
	h.unsafe = map[string]bool{bump.TxID: true}
	h.check("bumpfee")
}
