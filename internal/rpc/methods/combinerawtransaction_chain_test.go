package methods

import (
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestCombineRawTransactionBtcd pays a real btcd's coins to 2-of-3
// multisig outputs (P2WSH, P2SH and P2SH-P2WSH), has two parties sign each
// spend separately with signrawtransactionwithkey, combines their halves
// with combinerawtransaction (the spent outputs read from btcd), and btcd
// accepts and mines the combined transaction.
func TestCombineRawTransactionBtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	btcd, s := nodeServerOnBtcd(t)
	k1, k2, k3 := testenv.NewKey("combine 1"), testenv.NewKey("combine 2"), testenv.NewKey("combine 3")
	multi, _ := script.PayToMultisig(2, [][]byte{k1.PubKey, k2.PubKey, k3.PubKey})
	ms := hex.EncodeToString(multi)
	wsh := sign.P2WSH(multi)
	kinds := []struct {
		name  string
		spk   []byte
		extra map[string]any
	}{
		{"p2wsh", wsh, map[string]any{"witnessScript": ms}},
		{"p2sh", p2sh(multi), map[string]any{"redeemScript": ms}},
		{"p2sh-p2wsh", p2sh(wsh), map[string]any{"witnessScript": ms, "redeemScript": hex.EncodeToString(wsh)}},
	}
	const value = 20_000_000
	var outs []*wire.TxOut
	for _, k := range kinds {
		outs = append(outs, wire.NewTxOut(value, k.spk))
	}
	fundID := btcd.Fund(outs...)
	btcd.Generate(1)

	miner := testenv.MinerKey()
	// One spend of all three outputs: each party signs every input.
	var coins []testenv.Coin
	var prev []any
	for i, k := range kinds {
		coin := testenv.Coin{TxID: fundID, Vout: uint32(i), Value: value, Script: k.spk}
		coins = append(coins, coin)
		prev = append(prev, prevtx(coin, k.extra))
	}
	unsigned := testenv.TxHex(t, testenv.UnsignedSpend(t, coins, wire.NewTxOut(3*value-20_000, miner.WPKH.Script)))
	half := func(wif string) string {
		var r signResult
		okCall(t, s, "signrawtransactionwithkey", &r, unsigned, []string{wif}, prev)
		if r.Complete || len(r.Errors) != len(kinds) {
			t.Fatalf("one signature of two: %+v", r)
		}
		return r.Hex
	}
	a, b := half(k1.WIF), half(k3.WIF)

	var combined string
	okCall(t, s, "combinerawtransaction", &combined, []string{a, b})
	// The combined transaction is complete: signing it again with no key
	// finds nothing left to do.
	var check signResult
	okCall(t, s, "signrawtransactionwithkey", &check, combined, []string{}, prev)
	if !check.Complete || check.Hex != combined {
		t.Fatalf("combined transaction incomplete: %+v", check)
	}
	id, err := btcd.SendRawTransaction(combined)
	if err != nil {
		t.Fatalf("btcd rejected the combined transaction %s: %v", combined, err)
	}
	// A complete version wins over a partial one.
	var same string
	okCall(t, s, "combinerawtransaction", &same, []string{a, combined})
	if same != combined {
		t.Fatalf("complete version not taken: %s", same)
	}
	btcd.Generate(1)
	if btcd.Confirmations(id) != 1 {
		t.Fatalf("%s not mined", id)
	}
	// Spent now: Core's error for an input it cannot find.
	errCall(t, s, -25, "Input not found or already spent", "combinerawtransaction", []string{a, b})
}
