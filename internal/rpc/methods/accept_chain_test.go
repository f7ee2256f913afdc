package methods

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/acctest"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// acceptEntry is the part of a listtransactions entry the model predicts.
type acceptEntry struct {
	TxID          string       `json:"txid"`
	Category      string       `json:"category"`
	Vout          uint32       `json:"vout"`
	Address       string       `json:"address"`
	Amount        json.Number  `json:"amount"`
	Fee           *json.Number `json:"fee"`
	Confirmations int64        `json:"confirmations"`
	BlockHash     string       `json:"blockhash"`
	Trusted       *bool        `json:"trusted"`
}

func (e acceptEntry) entry() acctest.Entry {
	out := acctest.Entry{TxID: e.TxID, Category: e.Category, Vout: e.Vout, Address: e.Address,
		Amount: sats(e.Amount), Confirmations: e.Confirmations, BlockHash: e.BlockHash, Trusted: e.Trusted}
	if e.Fee != nil {
		f := sats(*e.Fee)
		out.Fee = &f
	}
	return out
}

// acceptHarness is spendHarness over several wallets of one node that
// share the model's scripts (a signer and the watch-only wallet holding
// its public descriptors), comparing balances, listunspent,
// listtransactions and gettransaction with the model; transactions the
// model cannot know (replaced or abandoned, so in no block and not in
// btcd's mempool) are left out of the listings compared and checked by
// the test itself.
type acceptHarness struct {
	*spendHarness
	wallets []*testenv.Client
	// clients are every wallet client the test holds.
	clients []*testenv.Client
	// gone are the wallet's transactions that left the chain's view.
	gone map[string]bool
	// bumps are the fee bumps' replacements: the wallet that bumped lists
	// their outputs as unsafe while unconfirmed (Core's AvailableCoins'
	// replaces_txid rule), which the model, knowing nothing of bumps,
	// cannot tell.
	bumps map[string]bool
}

// names are the addresses of every standard output of the chain, the
// names the listings give to outputs outside the wallet.
func acceptNames(c *acctest.Chain) map[string]string {
	names := map[string]string{}
	add := func(tx *wire.MsgTx) {
		for _, o := range tx.TxOut {
			if a, ok := address.Encode(o.PkScript, &chaincfg.RegressionNetParams); ok {
				names[string(o.PkScript)] = a
			}
		}
	}
	for _, b := range c.Blocks {
		for _, tx := range b.Txs {
			add(tx)
		}
	}
	for _, tx := range c.Mempool {
		add(tx)
	}
	return names
}

// check waits for every wallet to reach btcd's tip and mempool and
// compares it with the model.
func (h *acceptHarness) check(step string) {
	h.t.Helper()
	s := h.scripts()
	err := testenv.Poll(30*time.Second, func() error {
		c, tip := h.readChain()
		want := acctest.Compute(c, s, acceptNames(c))
		for _, w := range h.wallets {
			if err := h.compare(w, want, tip); err != nil {
				return fmt.Errorf("%s: %w", w.URL, err)
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatalf("%s: the wallet disagrees with the model: %v", step, err)
	}
}

func (h *acceptHarness) compare(w *testenv.Client, want *acctest.View, tip string) error {
	var wi struct {
		Last struct {
			Hash string `json:"hash"`
		} `json:"lastprocessedblock"`
	}
	if err := w.CallResult(&wi, "getwalletinfo"); err != nil {
		return err
	}
	if wi.Last.Hash != tip {
		return fmt.Errorf("wallet at %s, btcd at %s", wi.Last.Hash, tip)
	}
	var bal struct {
		Mine struct {
			Trusted          json.Number `json:"trusted"`
			UntrustedPending json.Number `json:"untrusted_pending"`
			Immature         json.Number `json:"immature"`
		} `json:"mine"`
	}
	if err := w.CallResult(&bal, "getbalances"); err != nil {
		return err
	}
	got := acctest.Balances{Trusted: sats(bal.Mine.Trusted), UntrustedPending: sats(bal.Mine.UntrustedPending),
		Immature: sats(bal.Mine.Immature)}
	if got != want.Balances {
		return fmt.Errorf("balances %+v, model %+v", got, want.Balances)
	}
	var gb json.Number
	if err := w.CallResult(&gb, "getbalance", "*", 0); err != nil {
		return err
	}
	if sats(gb) != want.Balances.Trusted {
		return fmt.Errorf("getbalance %s, model %d", gb, want.Balances.Trusted)
	}
	var us []struct {
		TxID          string      `json:"txid"`
		Vout          uint32      `json:"vout"`
		Address       string      `json:"address"`
		Amount        json.Number `json:"amount"`
		Confirmations int64       `json:"confirmations"`
		Safe          bool        `json:"safe"`
	}
	if err := w.CallResult(&us, "listunspent", 0); err != nil {
		return err
	}
	gotU := []acctest.Unspent{}
	for _, u := range us {
		gotU = append(gotU, acctest.Unspent{TxID: u.TxID, Vout: u.Vout, Address: u.Address,
			Amount: sats(u.Amount), Confirmations: u.Confirmations, Safe: u.Safe})
	}
	acctest.SortUnspent(gotU)
	wantU := append([]acctest.Unspent(nil), want.Unspent...)
	for i, u := range wantU {
		if w == h.w && h.bumps[u.TxID] && u.Confirmations == 0 {
			wantU[i].Safe = false
		}
	}
	if a, b := fmt.Sprint(gotU), fmt.Sprint(wantU); a != b {
		return fmt.Errorf("listunspent\n%s\nmodel\n%s", a, b)
	}
	var lt []acceptEntry
	if err := w.CallResult(&lt, "listtransactions", "*", 100000); err != nil {
		return err
	}
	gotE := []acctest.Entry{}
	for _, e := range lt {
		if !h.gone[e.TxID] {
			gotE = append(gotE, e.entry())
		}
	}
	acctest.SortEntries(gotE)
	if a, b := acctest.JoinEntries(gotE), acctest.JoinEntries(want.Entries); a != b {
		return fmt.Errorf("listtransactions:\n  got%s\n  want%s", a, b)
	}
	for id, tv := range want.Txs {
		var gt struct {
			Amount        json.Number   `json:"amount"`
			Fee           *json.Number  `json:"fee"`
			Confirmations int64         `json:"confirmations"`
			BlockHash     string        `json:"blockhash"`
			Trusted       *bool         `json:"trusted"`
			Details       []acceptEntry `json:"details"`
		}
		if err := w.CallResult(&gt, "gettransaction", id); err != nil {
			return err
		}
		v := acctest.TxView{Amount: sats(gt.Amount), Confirmations: gt.Confirmations, BlockHash: gt.BlockHash,
			Trusted: gt.Trusted}
		if gt.Fee != nil {
			f := sats(*gt.Fee)
			v.Fee = &f
		}
		for _, d := range gt.Details {
			e := d.entry()
			e.TxID, e.Confirmations, e.BlockHash, e.Trusted = id, v.Confirmations, v.BlockHash, v.Trusted
			v.Details = append(v.Details, e)
		}
		acctest.SortEntries(v.Details)
		if a, b := v.String(), tv.String(); a != b {
			return fmt.Errorf("gettransaction %s:\n  got  %s\n  want %s", id, a, b)
		}
	}
	return nil
}

// restart stops the daemon and starts it again on the same data dir with
// args, keeping the wallets' clients pointed at it.
func (h *acceptHarness) restart(args ...string) {
	h.t.Helper()
	if err := h.d.Stop(); err != nil {
		h.t.Fatalf("stop: %v", err)
	}
	args = append([]string{"-chainpoll=100", "-wallet=w", "-wallet=watch", "-wallet=w2"}, args...)
	h.d = testenv.StartDaemon(h.t, &testenv.DaemonOptions{DataDir: h.d.DataDir, Args: btcdArgs(h.b, args...)})
	for _, w := range h.clients {
		name := w.URL[strings.LastIndex(w.URL, "/")+1:]
		w.URL = h.d.URL + "wallet/" + name
	}
}

// inputsOf returns the outpoints a transaction of btcd's spends.
func (h *acceptHarness) inputsOf(txid string) []wire.OutPoint {
	var out []wire.OutPoint
	for _, in := range h.rawTx(txid).TxIn {
		out = append(out, in.PreviousOutPoint)
	}
	return out
}

// TestSpendAcceptanceChain is issue 13's acceptance run on btcd: a wallet
// receives, pays with every spending call (sendtoaddress to each address
// type, sendmany to 50 outputs, send subtracting the fee, sendall, a PSBT
// funded in a watch-only wallet and signed in the signer wallet,
// fundrawtransaction with a preset input), keeps locked coins out of
// selection, bumps a fee (the replacement takes the original's place in
// btcd's mempool), abandons a transaction that was never relayed, and
// restarts in the middle; after every step each wallet agrees with
// acctest's model of btcd's chain and mempool (balances, listunspent,
// listtransactions, gettransaction), and every transaction is accepted by
// btcd and mined.
func TestSpendAcceptanceChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b, "-chainpoll=100")
	wc, w2, watch := createWallet(t, d, "w"), createWallet(t, d, "w2"), createWallet(t, d, "watch", true, true)
	h := &acceptHarness{spendHarness: &spendHarness{t: t, b: b, d: d, w: wc, blocks: map[chainhash.Hash]*wire.MsgBlock{}},
		gone: map[string]bool{}, bumps: map[string]bool{}}

	// The watch-only wallet holds the signer's public descriptors.
	var ld struct {
		Descriptors []struct {
			Desc     string `json:"desc"`
			Active   bool   `json:"active"`
			Internal bool   `json:"internal"`
			Range    []int  `json:"range"`
		} `json:"descriptors"`
	}
	h.call(&ld, "listdescriptors")
	var reqs []map[string]any
	for _, x := range ld.Descriptors {
		reqs = append(reqs, map[string]any{"desc": x.Desc, "active": x.Active, "internal": x.Internal,
			"range": x.Range, "timestamp": "now"})
	}
	var imp []struct {
		Success bool `json:"success"`
	}
	if err := watch.CallResult(&imp, "importdescriptors", reqs); err != nil || len(imp) != len(reqs) {
		t.Fatalf("importdescriptors: %v %+v", err, imp)
	}
	h.wallets = []*testenv.Client{wc, watch}
	h.clients = []*testenv.Client{wc, w2, watch}

	var mined []string // every transaction made, to be found mined at the end
	stranger := testenv.NewKey("acceptance stranger")

	// Receive: coins on an address of each type.
	var outs []*wire.TxOut
	for _, typ := range []string{"legacy", "p2sh-segwit", "bech32", "bech32m"} {
		var a string
		h.call(&a, "getnewaddress", "", typ)
		spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, wire.NewTxOut(40_000_000, spk), wire.NewTxOut(7_000_000, spk))
	}
	b.Fund(outs...)
	b.Generate(1)
	h.check("receive")

	// sendtoaddress to each address type.
	for _, o := range []testenv.Output{stranger.PKH, stranger.SHWPKH, stranger.WPKH, stranger.TR} {
		var txid string
		h.call(&txid, "sendtoaddress", o.Address, 0.011, "", "", false, true, nil, nil, nil, 2)
		if !b.InMempool(txid) {
			t.Fatalf("sendtoaddress %s: %s not in btcd's mempool", o.Address, txid)
		}
		mined = append(mined, txid)
		h.check("sendtoaddress " + o.Address)
	}
	b.Generate(1)
	h.check("sendtoaddress mined")

	// sendmany with 50 outputs.
	amounts := map[string]any{}
	for i := range 50 {
		amounts[testenv.NewKey(fmt.Sprintf("acceptance sendmany %d", i)).WPKH.Address] = 0.0012
	}
	var manyID string
	h.call(&manyID, "sendmany", "", amounts, nil, nil, nil, nil, nil, nil, 2)
	if n := len(h.rawTx(manyID).TxOut); n < 50 || n > 51 {
		t.Fatalf("sendmany made %d outputs", n)
	}
	mined = append(mined, manyID)
	h.check("sendmany")
	// The change of the unconfirmed payment in listunspent: Core's
	// fields of an output in the mempool, with its ancestry from
	// btcd's mempool.
	var rawU []json.RawMessage
	h.call(&rawU, "listunspent", 0)
	seen := false
	for _, raw := range rawU {
		var u struct {
			TxID          string `json:"txid"`
			AncestorCount int64  `json:"ancestorcount"`
			AncestorSize  int64  `json:"ancestorsize"`
			AncestorFees  int64  `json:"ancestorfees"`
		}
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		if u.TxID != manyID {
			continue
		}
		seen = true
		if got := objectKeys(t, raw); strings.Join(got, ",") != strings.Join(shapeList(shapeUnspentMempool), ",") {
			t.Errorf("listunspent entry of a mempool output: fields %v", got)
		}
		if u.AncestorCount != 1 || u.AncestorSize < 1500 || u.AncestorFees < 2*u.AncestorSize {
			t.Errorf("ancestry %+v", u)
		}
	}
	if !seen {
		t.Error("the change of sendmany is not listed")
	}

	// send subtracting the fee from the amount.
	var sent struct {
		TxID     string `json:"txid"`
		Complete bool   `json:"complete"`
	}
	h.call(&sent, "send", []map[string]any{{stranger.WPKH.Address: 0.03}}, nil, nil, 2,
		map[string]any{"subtract_fee_from_outputs": []int{0}})
	if !sent.Complete || !b.InMempool(sent.TxID) {
		t.Fatalf("send: %+v", sent)
	}
	for _, o := range h.rawTx(sent.TxID).TxOut {
		if string(o.PkScript) == string(stranger.WPKH.Script) && (o.Value >= 3_000_000 || o.Value < 2_990_000) {
			t.Fatalf("send subtracting the fee pays %d", o.Value)
		}
	}
	mined = append(mined, sent.TxID)
	h.check("send subtract_fee_from_outputs")
	b.Generate(1)
	h.check("sends mined")

	// A restart in the middle.
	h.restart()
	h.check("restart")

	// Locked coins stay out of selection: lock every coin but the two
	// smallest, pay with sendtoaddress, then unlock.
	var us []struct {
		TxID   string      `json:"txid"`
		Vout   uint32      `json:"vout"`
		Amount json.Number `json:"amount"`
	}
	h.call(&us, "listunspent")
	var lock []map[string]any
	locked := map[wire.OutPoint]bool{}
	var free int64
	for _, u := range us {
		if sats(u.Amount) > 7_000_000 {
			lock = append(lock, map[string]any{"txid": u.TxID, "vout": u.Vout})
			id, _ := chainhash.NewHashFromStr(u.TxID)
			locked[wire.OutPoint{Hash: *id, Index: u.Vout}] = true
		} else {
			free += sats(u.Amount)
		}
	}
	var ok bool
	h.call(&ok, "lockunspent", false, lock)
	var lockedID string
	h.call(&lockedID, "sendtoaddress", stranger.WPKH.Address, float64(free/3)/1e8, nil, nil, false, true, nil, nil, nil, 2)
	for _, op := range h.inputsOf(lockedID) {
		if locked[op] {
			t.Fatalf("sendtoaddress spent locked coin %v", op)
		}
	}
	mined = append(mined, lockedID)
	h.call(&ok, "lockunspent", true)
	h.check("lockunspent respected")

	// fundrawtransaction with a preset input.
	h.call(&us, "listunspent")
	preset := us[0]
	var raw string
	h.call(&raw, "createrawtransaction", []map[string]any{{"txid": preset.TxID, "vout": preset.Vout}},
		[]map[string]any{{stranger.TR.Address: float64(sats(preset.Amount)+5_000_000) / 1e8}})
	var funded struct {
		Hex       string  `json:"hex"`
		Fee       float64 `json:"fee"`
		ChangePos int     `json:"changepos"`
	}
	h.call(&funded, "fundrawtransaction", raw, map[string]any{"fee_rate": 2})
	ftx := testenv.DecodeTx(t, funded.Hex)
	hasPreset := false
	for _, in := range ftx.TxIn {
		hasPreset = hasPreset || (in.PreviousOutPoint.Hash.String() == preset.TxID && in.PreviousOutPoint.Index == preset.Vout)
	}
	if !hasPreset || len(ftx.TxIn) < 2 {
		t.Fatalf("fundrawtransaction: %d inputs, preset kept %v", len(ftx.TxIn), hasPreset)
	}
	var signed struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	h.call(&signed, "signrawtransactionwithwallet", funded.Hex)
	if !signed.Complete {
		t.Fatalf("signrawtransactionwithwallet: %+v", signed)
	}
	var rawID string
	h.call(&rawID, "sendrawtransaction", signed.Hex)
	mined = append(mined, rawID)
	h.check("fundrawtransaction with a preset input")

	// A PSBT funded in the watch-only wallet, filled there, signed in the
	// signer wallet, combined, finalized and broadcast.
	var psbt struct {
		PSBT string `json:"psbt"`
	}
	if err := watch.CallResult(&psbt, "walletcreatefundedpsbt", []any{}, []map[string]any{{stranger.SHWPKH.Address: 0.021}},
		0, map[string]any{"fee_rate": 3}); err != nil {
		t.Fatal(err)
	}
	var filled, signedP struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
	}
	if err := watch.CallResult(&filled, "walletprocesspsbt", psbt.PSBT); err != nil || filled.Complete {
		t.Fatalf("watch-only walletprocesspsbt: %v %+v", err, filled.Complete)
	}
	// DEFAULT, not ALL: an ALL signature of a taproot input sets the
	// PSBT's sighash field, which combinepsbt does not merge into the
	// first (unsigned) copy, so finalizepsbt would refuse it, as Core's.
	h.call(&signedP, "walletprocesspsbt", psbt.PSBT, true, "DEFAULT", true, false)
	var combined string
	h.call(&combined, "combinepsbt", []string{filled.PSBT, signedP.PSBT})
	var final struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	h.call(&final, "finalizepsbt", combined)
	if !final.Complete {
		t.Fatalf("finalizepsbt: %+v", final)
	}
	var psbtID string
	h.call(&psbtID, "sendrawtransaction", final.Hex)
	mined = append(mined, psbtID)
	h.check("PSBT from the watch-only wallet, signed by the signer")
	b.Generate(1)
	h.check("mined")

	// bumpfee: the replacement takes the original's place in btcd's
	// mempool.
	var orig string
	h.call(&orig, "sendtoaddress", stranger.PKH.Address, 0.013, nil, nil, false, true, nil, nil, nil, 1)
	h.check("before bumpfee")
	var bumped struct {
		TxID    string   `json:"txid"`
		OrigFee float64  `json:"origfee"`
		Fee     float64  `json:"fee"`
		Errors  []string `json:"errors"`
	}
	h.call(&bumped, "bumpfee", orig, map[string]any{"fee_rate": 5})
	if bumped.Fee <= bumped.OrigFee || len(bumped.Errors) != 0 || !b.InMempool(bumped.TxID) || b.InMempool(orig) {
		t.Fatalf("bumpfee: %+v; original in mempool %v", bumped, b.InMempool(orig))
	}
	h.gone[orig] = true
	h.bumps[bumped.TxID] = true
	mined = append(mined, bumped.TxID)
	h.check("bumpfee")
	var gtOrig struct {
		WalletConflicts []string `json:"walletconflicts"`
		ReplacedBy      string   `json:"replaced_by_txid"`
	}
	h.call(&gtOrig, "gettransaction", orig)
	if gtOrig.ReplacedBy != bumped.TxID {
		t.Fatalf("gettransaction of the replaced transaction: %+v", gtOrig)
	}

	// sendall from the second wallet.
	var a2 string
	if err := w2.CallResult(&a2, "getnewaddress"); err != nil {
		t.Fatal(err)
	}
	spk2, _ := address.Decode(a2, &chaincfg.RegressionNetParams)
	b.Fund(wire.NewTxOut(3_000_000, spk2), wire.NewTxOut(2_000_000, spk2))
	b.Generate(1)
	h.check("w2 funded")
	var all struct {
		TxID     string `json:"txid"`
		Complete bool   `json:"complete"`
	}
	if err := w2.CallResult(&all, "sendall", []string{stranger.WPKH.Address}, nil, nil, 2); err != nil {
		t.Fatal(err)
	}
	if !all.Complete || !b.InMempool(all.TxID) {
		t.Fatalf("sendall: %+v", all)
	}
	mined = append(mined, all.TxID)
	var bal2 json.Number
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := w2.CallResult(&bal2, "getbalance", "*", 0); err != nil {
			return err
		}
		if sats(bal2) != 0 {
			return fmt.Errorf("w2 balance %s after sendall", bal2)
		}
		return nil
	})
	h.check("sendall")

	// abandontransaction: with -walletbroadcast=0 a payment is recorded
	// but never relayed; abandoned, its coins come back.
	h.restart("-walletbroadcast=0")
	var quiet string
	h.call(&quiet, "sendtoaddress", stranger.WPKH.Address, 0.004, nil, nil, false, true, nil, nil, nil, 2)
	if b.InMempool(quiet) {
		t.Fatal("-walletbroadcast=0 relayed the payment")
	}
	var gq struct {
		Confirmations int64 `json:"confirmations"`
	}
	h.call(&gq, "gettransaction", quiet)
	var abandoned json.RawMessage
	h.call(&abandoned, "abandontransaction", quiet)
	h.gone[quiet] = true
	h.check("abandontransaction")

	// Everything is mined.
	h.restart()
	b.Generate(1)
	h.check("all mined")
	for _, id := range mined {
		if c := b.Confirmations(id); c < 1 {
			t.Errorf("%s has %d confirmations", id, c)
		}
	}
	var pool []string
	_ = json.Unmarshal(b.MustCall("getrawmempool"), &pool)
	if len(pool) != 0 {
		t.Errorf("btcd's mempool holds %v", pool)
	}
}
