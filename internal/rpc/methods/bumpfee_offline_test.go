package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
)

// bumpNode is an offline node with a wallet holding one confirmed coin
// of 1 BTC and a payment of 0.1 BTC from it at 2 sat/vB.
type bumpNode struct {
	n    *walletNode
	w    *wallet.Wallet
	orig string
}

// rpcErr is a reply's error.
type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (b *bumpNode) call(t *testing.T, method, params string) (json.RawMessage, *rpcErr) {
	t.Helper()
	body := b.n.rawCallPath("/wallet/w", method, json.RawMessage(params))
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("%s %s: %s", method, params, body)
	}
	return r.Result, r.Error
}

// newBumpWallet makes a node serving the wallet "w" and returns it with a
// receive script of the wallet.
func newBumpWallet(t *testing.T) (*bumpNode, []byte) {
	t.Helper()
	n := newSpendNode(t, t.TempDir())
	t.Cleanup(func() { n.mgr.Close() })
	n.rawCallPath("/", "createwallet", json.RawMessage(`["w"]`))
	w, ok := n.mgr.Get("w")
	if !ok {
		t.Fatal("no wallet")
	}
	b := &bumpNode{n: n, w: w}
	res, _ := b.call(t, "getnewaddress", `[]`)
	var a string
	json.Unmarshal(res, &a)
	spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return b, spk
}

func newBumpNode(t *testing.T) *bumpNode {
	ctx := context.Background()
	b, spk := newBumpWallet(t)
	w := b.w
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0x42}}, nil, nil))
	fund.AddTxOut(wire.NewTxOut(100_000_000, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 200, Hash: chainhash.Hash{0xb1}, Time: 1700000000},
		[]*wire.MsgTx{fund}, []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 200, Hash: [32]byte{0xb1}}}); err != nil {
		t.Fatal(err)
	}
	res, e := b.call(t, "sendtoaddress", `["bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd", 0.1, null, null, null, null, null, null, null, 2]`)
	if e != nil {
		t.Fatalf("sendtoaddress: %+v", e)
	}
	json.Unmarshal(res, &b.orig)
	return b
}

// txFee returns a wallet transaction's fee and vsize.
func (b *bumpNode) txFee(t *testing.T, txid string) (int64, int) {
	t.Helper()
	h, _ := chainhash.NewHashFromStr(txid)
	tx, ok := b.w.WalletTx(context.Background(), *h)
	if !ok {
		t.Fatalf("%s not in the wallet", txid)
	}
	var in, out int64
	for _, i := range tx.TxIn {
		prev, _ := b.w.WalletTx(context.Background(), i.PreviousOutPoint.Hash)
		in += prev.TxOut[i.PreviousOutPoint.Index].Value
	}
	for _, o := range tx.TxOut {
		out += o.Value
	}
	return in - out, txVSize(tx)
}

// TestBumpFeeOffline checks bumpfee's arithmetic and refusals on an
// offline node: the default bump pays the original rate plus 5 sat/vB
// (Core's WALLET_INCREMENTAL_RELAY_FEE) plus 1 sat/kvB, at least the
// wallet's minimum rate (the fallback fee offline), keeps the
// recipient and the inputs, and the wallet records both links; then the
// replaced one cannot be bumped, an explicit rate below the original fee
// plus the incremental fee is refused with Core's message, outputs
// replace the recipients, and original_change_index is checked.
func TestBumpFeeOffline(t *testing.T) {
	b := newBumpNode(t)
	oldFee, oldSize := b.txFee(t, b.orig)
	// The fee is set on the estimated size; a signature shorter than the
	// estimate's (one byte in about a hundred with low-R grinding) makes
	// the actual transaction up to a virtual byte smaller.
	if oldFee < int64(2*oldSize) || oldFee > int64(2*(oldSize+1)) {
		t.Fatalf("original pays %d for %d vB", oldFee, oldSize)
	}
	res, e := b.call(t, "bumpfee", fmt.Sprintf(`[%q]`, b.orig))
	if e != nil {
		t.Fatalf("bumpfee: %+v", e)
	}
	var r struct {
		TxID    string      `json:"txid"`
		OrigFee json.Number `json:"origfee"`
		Fee     json.Number `json:"fee"`
	}
	json.Unmarshal(res, &r)
	newFee, newSize := b.txFee(t, r.TxID)
	// The original's rate plus the increments, raised to the wallet's
	// minimum: here -fallbackfee, 10 sat/vB.
	rate := max(int64(oldFee)*1000/int64(oldSize)+1+walletIncrementalRelayFee, 10_000)
	if sats(r.OrigFee) != oldFee || sats(r.Fee) != newFee || newFee < (rate*int64(newSize)+999)/1000 ||
		newFee > (rate*int64(newSize)+999)/1000+200 {
		t.Fatalf("bump fees %s -> %s (wallet %d -> %d, %d vB at %d sat/kvB)", r.OrigFee, r.Fee, oldFee, newFee, newSize, rate)
	}
	h, _ := chainhash.NewHashFromStr(r.TxID)
	bt, _ := b.w.WalletTx(context.Background(), *h)
	oh, _ := chainhash.NewHashFromStr(b.orig)
	ot, _ := b.w.WalletTx(context.Background(), *oh)
	if bt.TxIn[0].PreviousOutPoint != ot.TxIn[0].PreviousOutPoint || bt.TxIn[0].Sequence != maxBIP125Sequence {
		t.Errorf("replacement inputs %v", bt.TxIn)
	}
	var og, bg walletTxView
	res, _ = b.call(t, "gettransaction", fmt.Sprintf(`[%q]`, b.orig))
	json.Unmarshal(res, &og)
	res, _ = b.call(t, "gettransaction", fmt.Sprintf(`[%q]`, r.TxID))
	json.Unmarshal(res, &bg)
	if og.ReplacedBy != r.TxID || bg.Replaces != b.orig || len(og.WalletConflicts) != 1 || og.WalletConflicts[0] != r.TxID {
		t.Errorf("links: original %+v, replacement %+v", og, bg)
	}
	for _, c := range []struct {
		params string
		code   int
		msg    string
	}{
		{fmt.Sprintf(`[%q]`, b.orig), -4, "Cannot bump transaction " + b.orig + " which was already bumped by transaction " + r.TxID},
		{fmt.Sprintf(`[%q, {"fee_rate": 3}]`, r.TxID), -8, "Insufficient total fee 0.00000"},
		{fmt.Sprintf(`[%q, {"original_change_index": 5}]`, r.TxID), -8, "Change position is out of range"},
		{fmt.Sprintf(`[%q, {"original_change_index": 0, "outputs": [{"bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd": 0.1}]}]`, r.TxID), -8,
			"The options 'outputs' and 'original_change_index' are incompatible. You can only either specify a new set of outputs, or designate a change output to be recycled."},
		{`["` + strings.Repeat("0", 64) + `"]`, -5, "Invalid or non-wallet transaction id"},
	} {
		_, e := b.call(t, "bumpfee", c.params)
		if e == nil || e.Code != c.code || !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("bumpfee %s: %+v, want %d %q", c.params, e, c.code, c.msg)
		}
	}
	// New outputs: the whole value less the fee to one address, no
	// change (the output is the only recipient and takes no fee).
	res, e = b.call(t, "psbtbumpfee", fmt.Sprintf(`[%q, {"outputs": [{"bcrt1qlexe6kn6t95ln7w2mhlksuprrtreyy7j36jyvd": 0.5}], "fee_rate": 50}]`, r.TxID))
	if e != nil {
		t.Fatalf("psbtbumpfee with outputs: %+v", e)
	}
	var pr struct {
		PSBT string `json:"psbt"`
	}
	json.Unmarshal(res, &pr)
	dec, e := b.call(t, "decodepsbt", fmt.Sprintf(`[%q]`, pr.PSBT))
	if e != nil {
		t.Fatal(e)
	}
	var d struct {
		Tx struct {
			Vout []struct {
				Value json.Number `json:"value"`
			} `json:"vout"`
		} `json:"tx"`
		Fee json.Number `json:"fee"`
	}
	json.Unmarshal(dec, &d)
	found := false
	for _, o := range d.Tx.Vout {
		found = found || sats(o.Value) == 50_000_000
	}
	if !found || len(d.Tx.Vout) != 2 {
		t.Errorf("psbtbumpfee outputs %+v", d.Tx.Vout)
	}
}
