package methods

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
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

// spendHarness drives a wallet that pays through sendtoaddress and
// sendmany on a node following btcd, and checks it after every step
// against acctest's model of the chain.
type spendHarness struct {
	t      *testing.T
	b      *testenv.Btcd
	d      *testenv.Daemon
	w      *testenv.Client
	blocks map[chainhash.Hash]*wire.MsgBlock
	// unsafe are transactions whose unconfirmed outputs the wallet
	// rightly lists as unsafe where the model cannot tell (a fee bump's
	// replacement, Core's AvailableCoins).
	unsafe map[string]bool
}

func (h *spendHarness) call(out any, method string, params ...any) {
	h.t.Helper()
	if err := h.w.CallResult(out, method, params...); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
}

// scripts are the wallet's scripts: every descriptor of listdescriptors
// derived over [0, 40], internal ones as change.
func (h *spendHarness) scripts() acctest.Scripts {
	h.t.Helper()
	var ld struct {
		Descriptors []struct {
			Desc     string `json:"desc"`
			Internal bool   `json:"internal"`
		} `json:"descriptors"`
	}
	h.call(&ld, "listdescriptors")
	s := acctest.Scripts{}
	for _, d := range ld.Descriptors {
		var addrs []string
		h.call(&addrs, "deriveaddresses", d.Desc, []int{0, 40})
		for _, a := range addrs {
			spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
			if err != nil {
				h.t.Fatal(err)
			}
			s[string(spk)] = acctest.Watched{Address: a, Change: d.Internal}
		}
	}
	return s
}

// readChain is btcd's best chain and mempool.
func (h *spendHarness) readChain() (*acctest.Chain, string) {
	tip := h.b.GetBlockCount()
	c := &acctest.Chain{}
	for height := int64(0); height <= tip; height++ {
		hs := h.b.BlockHash(height)
		hash, _ := chainhash.NewHashFromStr(hs)
		blk, ok := h.blocks[*hash]
		if !ok {
			blk = h.b.Block(hs)
			h.blocks[*hash] = blk
		}
		c.Blocks = append(c.Blocks, acctest.Block{Height: int32(height), Hash: *hash, Txs: blk.Transactions})
	}
	var ids []string
	h.b.MustCall("getrawmempool")
	_ = json.Unmarshal(h.b.MustCall("getrawmempool"), &ids)
	for _, id := range ids {
		var raw string
		_ = json.Unmarshal(h.b.MustCall("getrawtransaction", id, 0), &raw)
		c.Mempool = append(c.Mempool, testenv.DecodeTx(h.t, raw))
	}
	return c, h.b.BlockHash(tip)
}

// check compares the wallet's balances and listunspent (minconf 0) with
// the model, waiting for the wallet to reach btcd's tip and mempool.
func (h *spendHarness) check(step string) {
	h.t.Helper()
	s := h.scripts()
	err := testenv.Poll(30*time.Second, func() error {
		c, tip := h.readChain()
		want := acctest.Compute(c, s, nil)
		var wi struct {
			Last struct {
				Hash string `json:"hash"`
			} `json:"lastprocessedblock"`
		}
		if err := h.w.CallResult(&wi, "getwalletinfo"); err != nil {
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
		if err := h.w.CallResult(&bal, "getbalances"); err != nil {
			return err
		}
		got := acctest.Balances{Trusted: sats(bal.Mine.Trusted), UntrustedPending: sats(bal.Mine.UntrustedPending),
			Immature: sats(bal.Mine.Immature)}
		if got != want.Balances {
			return fmt.Errorf("balances %+v, model %+v", got, want.Balances)
		}
		var us []struct {
			TxID          string      `json:"txid"`
			Vout          uint32      `json:"vout"`
			Address       string      `json:"address"`
			Amount        json.Number `json:"amount"`
			Confirmations int64       `json:"confirmations"`
			Safe          bool        `json:"safe"`
		}
		if err := h.w.CallResult(&us, "listunspent", 0); err != nil {
			return err
		}
		var gotU []acctest.Unspent
		for _, u := range us {
			gotU = append(gotU, acctest.Unspent{TxID: u.TxID, Vout: u.Vout, Address: u.Address,
				Amount: sats(u.Amount), Confirmations: u.Confirmations, Safe: u.Safe})
		}
		acctest.SortUnspent(gotU)
		for i, u := range want.Unspent {
			if h.unsafe[u.TxID] && u.Confirmations == 0 {
				want.Unspent[i].Safe = false
			}
		}
		if fmt.Sprint(gotU) != fmt.Sprint(want.Unspent) {
			return fmt.Errorf("listunspent\n%v\nmodel\n%v", gotU, want.Unspent)
		}
		return nil
	})
	if err != nil {
		h.t.Fatalf("%s: the wallet disagrees with the model: %v", step, err)
	}
}

// sats reads a BTC amount of a reply.
func sats(n json.Number) int64 {
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00000000")[:8]
	var v int64
	for _, c := range whole + frac {
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

// rawTx is btcd's decoded transaction.
func (h *spendHarness) rawTx(txid string) *wire.MsgTx {
	h.t.Helper()
	var raw string
	if err := json.Unmarshal(h.b.MustCall("getrawtransaction", txid, 0), &raw); err != nil {
		h.t.Fatal(err)
	}
	return testenv.DecodeTx(h.t, raw)
}

// checkFee checks that txid (in btcd's mempool) pays at least rate
// sat/vB on its actual vsize, and not much more.
func (h *spendHarness) checkFee(txid string, rate int64, inputValue func(wire.OutPoint) int64) {
	h.t.Helper()
	tx := h.rawTx(txid)
	var in, out int64
	for _, i := range tx.TxIn {
		in += inputValue(i.PreviousOutPoint)
	}
	for _, o := range tx.TxOut {
		out += o.Value
	}
	fee := in - out
	weight := tx.SerializeSizeStripped()*3 + tx.SerializeSize()
	vsize := int64((weight + 3) / 4)
	if fee < rate*vsize || fee > rate*vsize+rate*int64(len(tx.TxIn))*2+1000 {
		h.t.Errorf("%s pays %d sat for %d vbytes at %d sat/vB", txid, fee, vsize, rate)
	}
	if tx.Version != 2 || tx.LockTime == 0 || int64(tx.LockTime) > h.b.GetBlockCount() {
		h.t.Errorf("%s version %d locktime %d (tip %d)", txid, tx.Version, tx.LockTime, h.b.GetBlockCount())
	}
	for _, i := range tx.TxIn {
		if i.Sequence != 0xfffffffd {
			h.t.Errorf("%s input sequence %x", txid, i.Sequence)
		}
	}
}

// TestSendChain pays from a wallet holding coins of every address type:
// sendtoaddress to each address type, with subtractfeefromamount,
// sendmany with 50 outputs, Core's errors, and a watch-only wallet that
// cannot send. btcd accepts and mines every transaction; the wallet agrees
// with the model after each step.
func TestSendChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	b, d, wc := h.b, h.d, h.w

	// Receive: two coins on an address of each type.
	var outs []*wire.TxOut
	for _, typ := range []string{"legacy", "p2sh-segwit", "bech32", "bech32m"} {
		spk := h.newScript("", typ)
		outs = append(outs, wire.NewTxOut(30_000_000, spk), wire.NewTxOut(5_000_000, spk))
	}
	fundID := b.Fund(outs...)
	b.Generate(1)
	h.check("receive")
	values := map[wire.OutPoint]int64{}
	remember := func(txid string) {
		tx := h.rawTx(txid)
		for i, o := range tx.TxOut {
			values[wire.OutPoint{Hash: tx.TxHash(), Index: uint32(i)}] = o.Value
		}
	}
	remember(fundID)
	inputValue := func(op wire.OutPoint) int64 {
		v, ok := values[op]
		if !ok {
			t.Fatalf("input %v of an unknown transaction", op)
		}
		return v
	}

	// sendtoaddress to each address type.
	stranger := testenv.NewKey("spend chain stranger")
	for _, o := range []testenv.Output{stranger.PKH, stranger.SHWPKH, stranger.WPKH, stranger.TR} {
		var txid string
		h.call(&txid, "sendtoaddress", o.Address, 0.01, "", "", false, true, nil, nil, nil, 3)
		if !b.InMempool(txid) {
			t.Fatalf("sendtoaddress %s: %s not in btcd's mempool", o.Address, txid)
		}
		tx := h.rawTx(txid)
		// The wallet records its transaction at once: its inputs are
		// no longer listed, without waiting for the mempool.
		var us []struct {
			TxID string `json:"txid"`
			Vout uint32 `json:"vout"`
		}
		h.call(&us, "listunspent", 0)
		for _, u := range us {
			for _, in := range tx.TxIn {
				if u.TxID == in.PreviousOutPoint.Hash.String() && u.Vout == in.PreviousOutPoint.Index {
					t.Errorf("%s spends %s:%d, still listed", txid, u.TxID, u.Vout)
				}
			}
		}
		paid := false
		for _, out := range tx.TxOut {
			paid = paid || (out.Value == 1_000_000 && string(out.PkScript) == string(o.Script))
		}
		if !paid {
			t.Errorf("%s does not pay 0.01 to %s", txid, o.Address)
		}
		h.checkFee(txid, 3, inputValue)
		remember(txid)
		h.check("sendtoaddress " + o.Address)
	}
	b.Generate(1)
	h.check("sendtoaddress mined")

	// Subtract the fee from the amount; verbose reply.
	var vr struct {
		TxID      string `json:"txid"`
		FeeReason string `json:"fee_reason"`
	}
	h.call(&vr, "sendtoaddress", stranger.WPKH.Address, "0.02", nil, nil, true, nil, nil, nil, nil, 2, true)
	if vr.FeeReason != "PayTxFee set" {
		t.Errorf("fee_reason %q", vr.FeeReason)
	}
	tx := h.rawTx(vr.TxID)
	var got int64
	for _, o := range tx.TxOut {
		if string(o.PkScript) == string(stranger.WPKH.Script) {
			got = o.Value
		}
	}
	if got >= 2_000_000 || got < 2_000_000-5_000 {
		t.Errorf("subtractfeefromamount: recipient gets %d", got)
	}
	h.checkFee(vr.TxID, 2, inputValue)
	remember(vr.TxID)
	h.check("subtractfeefromamount")

	// sendmany with 50 outputs, spending unconfirmed change too.
	amounts := map[string]any{}
	for i := range 50 {
		k := testenv.NewKey(fmt.Sprintf("spend chain sendmany %d", i))
		amounts[k.WPKH.Address] = 0.001
	}
	var manyID string
	h.call(&manyID, "sendmany", "", amounts, nil, nil, nil, nil, nil, nil, 1.5)
	mt := h.rawTx(manyID)
	if len(mt.TxOut) < 50 || len(mt.TxOut) > 51 {
		t.Errorf("sendmany made %d outputs", len(mt.TxOut))
	}
	remember(manyID)
	h.check("sendmany")
	b.Generate(1)
	for _, id := range []string{manyID, vr.TxID} {
		if b.Confirmations(id) != 1 {
			t.Errorf("%s not mined", id)
		}
	}
	h.check("sendmany mined")

	// Core's errors.
	for _, c := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{"bcrt1qnotanaddress", 0.1}, -5, "Invalid Bitcoin address: bcrt1qnotanaddress"},
		{[]any{stranger.WPKH.Address, 0}, -6, "Transaction amount too small"},
		{[]any{stranger.WPKH.Address, -1}, -3, "Amount out of range"},
		{[]any{stranger.WPKH.Address, 1000}, -6, "Insufficient funds"},
		{[]any{stranger.WPKH.Address, 0.1, nil, nil, nil, nil, 6, nil, nil, 1}, -8,
			"Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate."},
		{[]any{stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, "economical", nil, 1}, -8,
			"Cannot specify both estimate_mode and fee_rate"},
		{[]any{stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 0.5}, -6,
			"Fee rate (0.500 sat/vB) is lower than the minimum fee rate setting (1.000 sat/vB)"},
	} {
		_, err := wc.Call("sendtoaddress", c.params...)
		var re *testenv.RPCError
		if !errors.As(err, &re) || re.Code != c.code || re.Message != c.msg {
			t.Errorf("sendtoaddress %v: %v, want %d %q", c.params, err, c.code, c.msg)
		}
	}
	_, err := wc.Call("sendmany", "x", map[string]any{stranger.WPKH.Address: 0.1})
	var re *testenv.RPCError
	if !errors.As(err, &re) || re.Code != -8 || re.Message != `Dummy value must be set to ""` {
		t.Errorf("sendmany dummy: %v", err)
	}

	// A wallet without private keys cannot send; a locked one needs the
	// passphrase.
	watch := createWallet(t, d, "watch", true)
	_, err = watch.Call("sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 1)
	if !errors.As(err, &re) || re.Code != -4 || re.Message != "Error: Private keys are disabled for this wallet" {
		t.Errorf("watch-only sendtoaddress: %v", err)
	}
	locked := createWallet(t, d, "locked", false, false, "secret")
	_, err = locked.Call("sendtoaddress", stranger.WPKH.Address, 0.1, nil, nil, nil, nil, nil, nil, nil, 1)
	if !errors.As(err, &re) || re.Code != -13 {
		t.Errorf("locked sendtoaddress: %v", err)
	}
	var ids []string
	_ = json.Unmarshal(b.MustCall("getrawmempool"), &ids)
	sort.Strings(ids)
	if len(ids) != 0 {
		t.Errorf("btcd's mempool holds %v after mining", ids)
	}
}
