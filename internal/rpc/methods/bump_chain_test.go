package methods

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/psbt"
)

// walletTxView is what these tests read of gettransaction.
type walletTxView struct {
	Confirmations    int64    `json:"confirmations"`
	WalletConflicts  []string `json:"walletconflicts"`
	MempoolConflicts []string `json:"mempoolconflicts"`
	ReplacedBy       string   `json:"replaced_by_txid"`
	Replaces         string   `json:"replaces_txid"`
	Details          []struct {
		Category  string `json:"category"`
		Abandoned *bool  `json:"abandoned"`
	} `json:"details"`
}

// TestBumpFeeChain bumps the fee of a wallet payment on btcd: the
// replacement takes the original's place in btcd's mempool, the original
// lists it in walletconflicts, mempoolconflicts and replaced_by_txid, the
// replacement is mined and the original shows -1 confirmations; then
// psbtbumpfee of another payment, and sendall empties the wallet, mined.
// The wallet agrees with the model of the chain after each step.
func TestBumpFeeChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	b, wc := h.b, h.w
	spk := h.newScript()
	b.Fund(wire.NewTxOut(20_000_000, spk), wire.NewTxOut(20_000_000, spk), wire.NewTxOut(3_000_000, spk))
	b.Generate(1)
	h.check("receive")

	stranger := testenv.NewKey("bump chain stranger")
	var orig string
	h.call(&orig, "sendtoaddress", stranger.WPKH.Address, 0.05, nil, nil, nil, nil, nil, nil, nil, 2)
	if !b.InMempool(orig) {
		t.Fatalf("%s not in btcd's mempool", orig)
	}
	h.check("send")
	var bump struct {
		TxID    string          `json:"txid"`
		OrigFee json.Number     `json:"origfee"`
		Fee     json.Number     `json:"fee"`
		Errors  json.RawMessage `json:"errors"`
	}
	h.call(&bump, "bumpfee", orig)
	if sats(bump.Fee) <= sats(bump.OrigFee) || string(bump.Errors) != "[]" {
		t.Fatalf("bumpfee: %+v", bump)
	}
	h.unsafe = map[string]bool{bump.TxID: true}
	if !b.InMempool(bump.TxID) || b.InMempool(orig) {
		t.Fatalf("after bumpfee: replacement in mempool %v, original %v", b.InMempool(bump.TxID), b.InMempool(orig))
	}
	// The replacement spends every input of the original and still pays
	// the stranger.
	bt := h.rawTx(bump.TxID)
	paid := false
	for _, o := range bt.TxOut {
		paid = paid || (o.Value == 5_000_000 && string(o.PkScript) == string(stranger.WPKH.Script))
	}
	if !paid {
		t.Errorf("the replacement does not pay the stranger: %v", bt.TxOut)
	}
	h.check("bumpfee")
	var ov, bv walletTxView
	err := testenv.Poll(30*time.Second, func() error {
		h.call(&ov, "gettransaction", orig)
		if !slices.Equal(ov.MempoolConflicts, []string{bump.TxID}) {
			return errors.New("original's mempoolconflicts not the replacement yet")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.call(&bv, "gettransaction", bump.TxID)
	if !slices.Equal(ov.WalletConflicts, []string{bump.TxID}) || ov.ReplacedBy != bump.TxID || ov.Confirmations != 0 {
		t.Errorf("original: %+v", ov)
	}
	if !slices.Equal(bv.WalletConflicts, []string{orig}) || bv.Replaces != orig || len(bv.MempoolConflicts) != 0 {
		t.Errorf("replacement: %+v", bv)
	}
	// The event log reports the replacement once: the original, replaced
	// by the bump (issue 15's replaced event on a real chain).
	var events []struct {
		Kind    string `json:"kind"`
		TxID    string `json:"txid"`
		Related string `json:"related"`
	}
	h.call(&events, "listwalletevents", 0, 1000)
	var replaced []string
	for _, e := range events {
		if e.Kind == "replaced" {
			replaced = append(replaced, e.TxID+" by "+e.Related)
		}
	}
	if want := orig + " by " + bump.TxID; !slices.Equal(replaced, []string{want}) {
		t.Errorf("replaced events %v, want [%s]", replaced, want)
	}
	// Core's refusals: bumping the replaced one, an unknown txid.
	_, err = wc.Call("bumpfee", orig)
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -4 ||
		re.Message != "Cannot bump transaction "+orig+" which was already bumped by transaction "+bump.TxID {
		t.Errorf("bumping the replaced transaction: %v", err)
	}
	b.Generate(1)
	if b.Confirmations(bump.TxID) != 1 {
		t.Fatalf("replacement not mined")
	}
	h.check("bump mined")
	err = testenv.Poll(30*time.Second, func() error {
		h.call(&ov, "gettransaction", orig)
		if ov.Confirmations != -1 {
			return errors.New("original not conflicted yet")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wc.Call("bumpfee", bump.TxID)
	if !errors.As(err, &re) || re.Code != -4 || re.Message != "Transaction has been mined, or is conflicted with a mined transaction" {
		t.Errorf("bumping a mined transaction: %v", err)
	}

	// psbtbumpfee: the unsigned replacement of another payment.
	var second string
	h.call(&second, "sendtoaddress", stranger.WPKH.Address, 0.01)
	h.check("second send")
	var pb struct {
		PSBT    string      `json:"psbt"`
		OrigFee json.Number `json:"origfee"`
		Fee     json.Number `json:"fee"`
	}
	h.call(&pb, "psbtbumpfee", second, map[string]any{"fee_rate": 200})
	p, err := psbt.DecodeBase64(pb.PSBT)
	if err != nil {
		t.Fatal(err)
	}
	st := h.rawTx(second)
	for _, in := range st.TxIn {
		found := false
		for _, pin := range p.UnsignedTx.TxIn {
			found = found || pin.PreviousOutPoint == in.PreviousOutPoint
		}
		if !found {
			t.Errorf("psbtbumpfee leaves out input %v", in.PreviousOutPoint)
		}
	}
	if sats(pb.Fee) <= sats(pb.OrigFee) {
		t.Errorf("psbtbumpfee fees %s -> %s", pb.OrigFee, pb.Fee)
	}
	b.Generate(1)
	h.check("second mined")

	// sendall empties the wallet.
	var sa struct {
		TxID     string `json:"txid"`
		Complete bool   `json:"complete"`
	}
	h.call(&sa, "sendall", []any{stranger.TR.Address}, nil, nil, 3)
	if !sa.Complete || !b.InMempool(sa.TxID) {
		t.Fatalf("sendall: %+v", sa)
	}
	h.checkFee(sa.TxID, 3, func(op wire.OutPoint) int64 {
		tx := h.rawTx(op.Hash.String())
		return tx.TxOut[op.Index].Value
	})
	if out := h.rawTx(sa.TxID).TxOut; len(out) != 1 || string(out[0].PkScript) != string(stranger.TR.Script) {
		t.Errorf("sendall outputs %v", out)
	}
	b.Generate(1)
	if b.Confirmations(sa.TxID) != 1 {
		t.Fatal("sendall not mined")
	}
	h.check("sendall mined")
	var bal json.Number
	h.call(&bal, "getbalance")
	if sats(bal) != 0 {
		t.Errorf("balance after sendall: %s", bal)
	}
}

// TestAbandonNeverRelayed abandons a payment that never reached the
// mempool (-walletbroadcast=0): it stays listed, inactive, its inputs
// spent, until abandoned; then it shows "abandoned": true and its coins
// are spendable again, which a second payment, relayed by hand and mined,
// shows.
func TestAbandonNeverRelayed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t, "-walletbroadcast=0")
	b, wc := h.b, h.w
	spk := h.newScript()
	b.Fund(wire.NewTxOut(10_000_000, spk))
	b.Generate(1)
	h.check("receive")
	stranger := testenv.NewKey("abandon chain stranger")
	var txid string
	h.call(&txid, "sendtoaddress", stranger.WPKH.Address, 0.02, nil, nil, nil, nil, nil, nil, nil, 2)
	if b.InMempool(txid) {
		t.Fatal("relayed with -walletbroadcast=0")
	}
	var us []json.RawMessage
	h.call(&us, "listunspent", 0)
	if len(us) != 0 {
		t.Fatalf("listunspent with the payment inactive: %s", us)
	}
	var v walletTxView
	h.call(&v, "gettransaction", txid)
	if v.Confirmations != 0 || len(v.Details) == 0 || v.Details[0].Abandoned == nil || *v.Details[0].Abandoned {
		t.Fatalf("before abandoning: %+v", v)
	}
	var null json.RawMessage
	h.call(&null, "abandontransaction", txid)
	h.call(&v, "gettransaction", txid)
	if len(v.Details) == 0 || v.Details[0].Abandoned == nil || !*v.Details[0].Abandoned {
		t.Fatalf("after abandoning: %+v", v)
	}
	var lt []struct {
		TxID      string `json:"txid"`
		Category  string `json:"category"`
		Abandoned bool   `json:"abandoned"`
	}
	h.call(&lt, "listtransactions")
	found := false
	for _, e := range lt {
		found = found || (e.TxID == txid && e.Category == "send" && e.Abandoned)
	}
	if !found {
		t.Errorf("listtransactions: %+v", lt)
	}
	// The coin is spendable again: the wallet agrees with btcd's chain.
	h.check("abandoned")
	_, err := wc.Call("abandontransaction", txid)
	if err != nil {
		t.Errorf("abandoning again: %v", err)
	}
	// A new payment spends it; relayed by hand, it is mined.
	var second string
	h.call(&second, "sendtoaddress", stranger.WPKH.Address, 0.03, nil, nil, nil, nil, nil, nil, nil, 2)
	var gt struct {
		Hex string `json:"hex"`
	}
	h.call(&gt, "gettransaction", second)
	b.MustCall("sendrawtransaction", gt.Hex)
	b.Generate(1)
	if b.Confirmations(second) != 1 {
		t.Fatal("second payment not mined")
	}
	h.check("second mined")
	h.call(&v, "gettransaction", txid)
	if v.Confirmations != -1 || !slices.Equal(v.WalletConflicts, []string{second}) {
		t.Errorf("abandoned payment after the conflict was mined: %+v", v)
	}
}
