package methods

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/psbt"
)

// TestFundChain funds transactions from a wallet following btcd:
// fundrawtransaction with a preset input (add_inputs, change_position,
// lock_unspents), signed with signrawtransactionwithwallet and broadcast;
// the locked inputs left out of the next funding; walletcreatefundedpsbt
// in a watch-only wallet of the same keys, signed by walletprocesspsbt in
// the signing wallet, combined and finalized; send with
// subtract_fee_from_outputs; send with add_to_wallet false. btcd accepts
// and mines every transaction; the signing wallet agrees with the model
// after each step.
func TestFundChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	b, d, wc := h.b, h.d, h.w

	var outs []*wire.TxOut
	for _, typ := range []string{"bech32", "bech32m", "legacy"} {
		spk := h.newScript("", typ)
		outs = append(outs, wire.NewTxOut(30_000_000, spk), wire.NewTxOut(5_000_000, spk))
	}
	fundID := b.Fund(outs...)
	b.Generate(1)
	h.check("receive")
	stranger := testenv.NewKey("fund chain stranger")

	// fundrawtransaction: one preset input of 0.05 paying 0.2, so more
	// inputs are added; change first; the inputs locked.
	preset := map[string]any{"txid": fundID, "vout": 1}
	var raw string
	h.call(&raw, "createrawtransaction", []any{preset}, []any{map[string]any{stranger.WPKH.Address: 0.2}})
	var fr struct {
		Hex       string      `json:"hex"`
		Fee       json.Number `json:"fee"`
		ChangePos int         `json:"changepos"`
	}
	h.call(&fr, "fundrawtransaction", raw, map[string]any{"fee_rate": 2, "changePosition": 0, "lockUnspents": true})
	ftx := testenv.DecodeTx(t, fr.Hex)
	if fr.ChangePos != 0 || len(ftx.TxOut) != 2 || string(ftx.TxOut[1].PkScript) != string(stranger.WPKH.Script) {
		t.Fatalf("fundrawtransaction: changepos %d, %d outputs", fr.ChangePos, len(ftx.TxOut))
	}
	if c := ftx.TxOut[0].PkScript; len(c) != 22 || c[0] != 0x00 {
		t.Errorf("fundrawtransaction paying P2WPKH: change script %x, want P2WPKH (Core's change type)", c)
	}
	if len(ftx.TxIn) < 2 || ftx.TxIn[0].PreviousOutPoint.Hash.String() != fundID || ftx.TxIn[0].PreviousOutPoint.Index != 1 {
		t.Fatalf("fundrawtransaction: the preset input is not first: %v", ftx.TxIn)
	}
	var locked []struct {
		TxID string `json:"txid"`
		Vout uint32 `json:"vout"`
	}
	h.call(&locked, "listlockunspent")
	if len(locked) != len(ftx.TxIn) {
		t.Fatalf("lockUnspents: %d locked, %d inputs", len(locked), len(ftx.TxIn))
	}
	// The next funding leaves the locked coins alone.
	var raw2 string
	h.call(&raw2, "createrawtransaction", []any{}, []any{map[string]any{stranger.TR.Address: 0.01}})
	var fr2 struct {
		Hex string `json:"hex"`
	}
	h.call(&fr2, "fundrawtransaction", raw2, map[string]any{"fee_rate": 1})
	for _, in := range testenv.DecodeTx(t, fr2.Hex).TxIn {
		for _, l := range locked {
			if in.PreviousOutPoint.Hash.String() == l.TxID && in.PreviousOutPoint.Index == l.Vout {
				t.Errorf("a locked coin %s:%d was selected", l.TxID, l.Vout)
			}
		}
	}
	var signed struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	h.call(&signed, "signrawtransactionwithwallet", fr.Hex)
	if !signed.Complete {
		t.Fatal("signrawtransactionwithwallet: incomplete")
	}
	var fundedID string
	if err := d.CallResult(&fundedID, "sendrawtransaction", signed.Hex); err != nil {
		t.Fatal(err)
	}
	var unlocked bool
	h.call(&unlocked, "lockunspent", true)
	if !unlocked {
		t.Error("lockunspent true: false")
	}
	b.Generate(1)
	if b.Confirmations(fundedID) != 1 {
		t.Fatalf("%s not mined", fundedID)
	}
	h.check("fundrawtransaction mined")

	// An external input: a coin of the stranger's key, found in the UTXO
	// set and sized from solving_data; the wallet signs its own input,
	// the stranger's key the other.
	extID := b.Fund(wire.NewTxOut(4_000_000, stranger.WPKH.Script))
	b.Generate(1)
	h.check("external coin mined")
	var raw3 string
	h.call(&raw3, "createrawtransaction", []any{map[string]any{"txid": extID, "vout": 0}},
		[]any{map[string]any{stranger.TR.Address: 0.06}})
	_, err := wc.Call("fundrawtransaction", raw3, map[string]any{"fee_rate": 2})
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -4 || re.Message != "Not solvable pre-selected input COutPoint("+extID[:10]+", 0)" {
		t.Errorf("external input without solving data: %v", err)
	}
	pub := hex.EncodeToString(stranger.Priv.PubKey().SerializeCompressed())
	var fr3 struct {
		Hex string      `json:"hex"`
		Fee json.Number `json:"fee"`
	}
	h.call(&fr3, "fundrawtransaction", raw3, map[string]any{"fee_rate": 2, "solving_data": map[string]any{"pubkeys": []string{pub}}})
	h.call(&signed, "signrawtransactionwithwallet", fr3.Hex)
	if signed.Complete {
		t.Fatal("signrawtransactionwithwallet signed the stranger's input")
	}
	prev := []any{map[string]any{"txid": extID, "vout": 0, "scriptPubKey": stranger.WPKH.ScriptHex, "amount": 0.04}}
	if err := d.CallResult(&signed, "signrawtransactionwithkey", signed.Hex, []string{stranger.WIF}, prev); err != nil || !signed.Complete {
		t.Fatalf("signrawtransactionwithkey: %v complete %v", err, signed.Complete)
	}
	etx := testenv.DecodeTx(t, signed.Hex)
	if vsize := int64((etx.SerializeSizeStripped()*3 + etx.SerializeSize() + 3) / 4); sats(fr3.Fee) < 2*vsize {
		t.Errorf("external input: fee %s for %d vbytes at 2 sat/vB", fr3.Fee, vsize)
	}
	var extSpend string
	if err := d.CallResult(&extSpend, "sendrawtransaction", signed.Hex); err != nil {
		t.Fatal(err)
	}
	b.Generate(1)
	if b.Confirmations(extSpend) != 1 {
		t.Fatalf("%s not mined", extSpend)
	}
	h.check("external input mined")

	// walletcreatefundedpsbt in a watch-only wallet of the same
	// descriptors; the signing wallet signs; combined and finalized.
	watch := createWallet(t, d, "watch", true, true)
	var ld struct {
		Descriptors []struct {
			Desc     string  `json:"desc"`
			Active   bool    `json:"active"`
			Internal *bool   `json:"internal"`
			Range    *[2]int `json:"range"`
			Next     *int    `json:"next_index"`
		} `json:"descriptors"`
	}
	h.call(&ld, "listdescriptors")
	var reqs []map[string]any
	for _, x := range ld.Descriptors {
		r := map[string]any{"desc": x.Desc, "timestamp": 0, "active": x.Active}
		if x.Internal != nil {
			r["internal"] = *x.Internal
		}
		if x.Range != nil {
			r["range"] = x.Range[:]
		}
		if x.Next != nil {
			r["next_index"] = *x.Next
		}
		reqs = append(reqs, r)
	}
	var imp []struct {
		Success bool `json:"success"`
	}
	if err := watch.CallResult(&imp, "importdescriptors", reqs); err != nil {
		t.Fatal(err)
	}
	for i, r := range imp {
		if !r.Success {
			t.Fatalf("import %d failed", i)
		}
	}
	var wp struct {
		PSBT      string      `json:"psbt"`
		Fee       json.Number `json:"fee"`
		ChangePos int         `json:"changepos"`
	}
	if err := watch.CallResult(&wp, "walletcreatefundedpsbt", []any{}, []any{map[string]any{stranger.SHWPKH.Address: 0.15}},
		0, map[string]any{"fee_rate": 3}); err != nil {
		t.Fatal(err)
	}
	wpkt, err := psbt.DecodeBase64(wp.PSBT)
	if err != nil || wp.ChangePos < 0 {
		t.Fatalf("walletcreatefundedpsbt: %v, changepos %d", err, wp.ChangePos)
	}
	if c := wpkt.UnsignedTx.TxOut[wp.ChangePos].PkScript; len(c) != 23 || c[0] != 0xa9 {
		t.Errorf("walletcreatefundedpsbt paying P2SH: change script %x, want P2SH-P2WPKH (Core's change type)", c)
	}
	var proc struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
	}
	h.call(&proc, "walletprocesspsbt", wp.PSBT, true, nil, true, false)
	var combined string
	if err := d.CallResult(&combined, "combinepsbt", []string{wp.PSBT, proc.PSBT}); err != nil {
		t.Fatal(err)
	}
	var fin struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	if err := d.CallResult(&fin, "finalizepsbt", combined); err != nil {
		t.Fatal(err)
	}
	if !fin.Complete {
		an, _ := d.Call("analyzepsbt", combined)
		dec, _ := d.Call("decodepsbt", proc.PSBT)
		t.Fatalf("finalizepsbt: incomplete: %s\n%s", an, dec)
	}
	var psbtID string
	if err := d.CallResult(&psbtID, "sendrawtransaction", fin.Hex); err != nil {
		t.Fatal(err)
	}
	if sats(wp.Fee) < 3*int64(testenv.DecodeTx(t, fin.Hex).SerializeSizeStripped()) {
		t.Errorf("walletcreatefundedpsbt fee %s below 3 sat/vB", wp.Fee)
	}
	b.Generate(1)
	if b.Confirmations(psbtID) != 1 {
		t.Fatalf("%s not mined", psbtID)
	}
	h.check("walletcreatefundedpsbt mined")

	// send, the fee taken from the payment.
	var sr struct {
		TxID     string `json:"txid"`
		Complete bool   `json:"complete"`
	}
	h.call(&sr, "send", []any{map[string]any{stranger.PKH.Address: 0.1}}, nil, nil, 2,
		map[string]any{"subtract_fee_from_outputs": []int{0}})
	if !sr.Complete || !b.InMempool(sr.TxID) {
		t.Fatalf("send: complete %v, %s in mempool %v", sr.Complete, sr.TxID, b.InMempool(sr.TxID))
	}
	var paid int64
	stx := h.rawTx(sr.TxID)
	for _, o := range stx.TxOut {
		if string(o.PkScript) == string(stranger.PKH.Script) {
			paid = o.Value
		}
	}
	if paid >= 10_000_000 || paid < 10_000_000-2_000 {
		t.Errorf("send subtract_fee_from_outputs: recipient gets %d", paid)
	}
	if stx.LockTime == 0 || int64(stx.LockTime) > b.GetBlockCount() {
		t.Errorf("send: locktime %d at tip %d", stx.LockTime, b.GetBlockCount())
	}
	h.check("send")

	// send without adding to the wallet: a signed transaction returned,
	// not relayed.
	var sr2 struct {
		PSBT     string `json:"psbt"`
		TxID     string `json:"txid"`
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	h.call(&sr2, "send", map[string]any{stranger.WPKH.Address: 0.01}, nil, nil, nil,
		map[string]any{"add_to_wallet": false, "fee_rate": 1})
	if !sr2.Complete || sr2.Hex == "" || sr2.PSBT == "" || b.InMempool(sr2.TxID) {
		t.Errorf("send add_to_wallet false: %+v", sr2)
	}
	if testenv.DecodeTx(t, sr2.Hex).TxHash().String() != sr2.TxID {
		t.Errorf("send add_to_wallet false: hex is not %s", sr2.TxID)
	}
	b.Generate(1)
	if b.Confirmations(sr.TxID) != 1 {
		t.Fatalf("%s not mined", sr.TxID)
	}
	h.check("send mined")

	// Errors of the funding calls answer RPC_WALLET_ERROR.
	_, err = wc.Call("send", []any{map[string]any{stranger.WPKH.Address: 1000}})
	if !errors.As(err, &re) || re.Code != -4 || re.Message != "Insufficient funds" {
		t.Errorf("send too much: %v", err)
	}
}
