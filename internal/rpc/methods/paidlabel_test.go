package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
)

// TestPaidAddressLabelWithBlock pays addresses of the wallet's receiving
// descriptor that were never handed out, one a block, while clients read
// gettransaction, listtransactions and listsinceblock for the label "". As
// Core, the wallet gives such an address the label "" when a transaction
// pays it, under the same lock as it records the transaction: no reply
// lists the payment without that label (its entries would lack "label",
// and a send to such an address of the wallet's own would pass for change
// and be left out of the listings).
func TestPaidAddressLabelWithBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const blocks = 100
	// A notice listener that yields, as the -walletnotify dispatcher may,
	// lets the readers run while a block is being recorded.
	n, w, addrs := newPaidWallet(t, blocks+1, func(wallet.TxNotice) { runtime.Gosched() })
	feed := newBlockFeed(w)
	stop := readWhile(t, 3, func(reader, i int) error {
		switch (i + reader) % 4 {
		case 0:
			return checkLabelSince(n, t, feed.known)
		case 1:
			return checkLabelList(n, t)
		default:
			return checkLabelTx(n, t, feed.known)
		}
	})
	for h := int32(1); h <= blocks; h++ {
		// Each block pays the next address, beyond those already used.
		if err := feed.connect(ctx, feedBlock(h, 0), feedTx(uint32(h), 0, payTo(t, addrs[h], 10_000+int64(h)))); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if err := checkLabelSince(n, t, feed.known); err != nil {
		t.Fatal(err)
	}
}

// checkLabelSince checks one listsinceblock reply for the label "": every
// payment in a block at or below lastblock is listed, with that label.
func checkLabelSince(n *walletNode, t testing.TB, known knownBlocks) error {
	r := n.call(t, "/wallet/w", "listsinceblock", json.RawMessage(`["", 1, false, true, false, ""]`))
	hs, paid := known()
	if r.Error != nil {
		return fmt.Errorf("listsinceblock: %s", r.Error.Message)
	}
	var res struct {
		Transactions []struct {
			TxID  string  `json:"txid"`
			Label *string `json:"label"`
		} `json:"transactions"`
		LastBlock string `json:"lastblock"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	last := hs[res.LastBlock] // 0 before any block
	listed := map[string]bool{}
	for _, e := range res.Transactions {
		if e.Label == nil || *e.Label != "" {
			return fmt.Errorf("listsinceblock for the label \"\": %s listed with label %v", e.TxID, e.Label)
		}
		listed[e.TxID] = true
	}
	for _, p := range paid {
		if p.height <= last && !listed[p.txid] {
			return fmt.Errorf("listsinceblock for the label \"\": lastblock at %d, payment of block %d not listed", last, p.height)
		}
	}
	return nil
}

// checkLabelList checks one listtransactions reply: every receive entry
// carries the label "" its address got when it was paid.
func checkLabelList(n *walletNode, t testing.TB) error {
	r := n.call(t, "/wallet/w", "listtransactions", json.RawMessage(`["*", 3]`))
	if r.Error != nil {
		return fmt.Errorf("listtransactions: %s", r.Error.Message)
	}
	var res []struct {
		TxID  string  `json:"txid"`
		Label *string `json:"label"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	for _, e := range res {
		if e.Label == nil || *e.Label != "" {
			return fmt.Errorf("listtransactions: %s listed with label %v", e.TxID, e.Label)
		}
	}
	return nil
}

// checkLabelTx checks one gettransaction reply of the latest payment: its
// receive entry carries the label "".
func checkLabelTx(n *walletNode, t testing.TB, known knownBlocks) error {
	_, paid := known()
	if len(paid) == 0 {
		return nil
	}
	params, _ := json.Marshal([]any{paid[len(paid)-1].txid})
	r := n.call(t, "/wallet/w", "gettransaction", params)
	if r.Error != nil {
		return nil // not recorded yet
	}
	var res struct {
		Details []struct {
			Category string  `json:"category"`
			Label    *string `json:"label"`
		} `json:"details"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	for _, e := range res.Details {
		if e.Label == nil || *e.Label != "" {
			return fmt.Errorf("gettransaction: %s entry with label %v: %s", e.Category, e.Label, r.Result)
		}
	}
	return nil
}

// TestPaidAddressLabelInEvents pays an address of the wallet's receiving
// descriptor that was never handed out: the address gets the label "" with
// the payment, and the payment's first events already show it, as its
// later ones and gettransaction do.
func TestPaidAddressLabelInEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, w, addrs := newPaidWallet(t, 3, nil)
	feed := newBlockFeed(w)
	for h := int32(1); h <= 6; h++ {
		var txs []*wire.MsgTx
		if h == 1 {
			txs = append(txs, feedTx(1, 0, payTo(t, addrs[2], 50_000)))
		}
		if err := feed.connect(ctx, feedBlock(h, 0), txs...); err != nil {
			t.Fatal(err)
		}
	}
	r := n.call(t, "/wallet/w", "listwalletevents", nil)
	if r.Error != nil {
		t.Fatalf("listwalletevents: %+v", r.Error)
	}
	var events []struct {
		Kind    string `json:"kind"`
		Depth   int32  `json:"depth"`
		Outputs []struct {
			Address string  `json:"address"`
			Label   *string `json:"label"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(r.Result, &events); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s/%d", e.Kind, e.Depth))
		if len(e.Outputs) != 1 || e.Outputs[0].Address != addrs[2] || e.Outputs[0].Label == nil || *e.Outputs[0].Label != "" {
			t.Errorf("%s event at depth %d: outputs %+v, want the address with the label \"\"", e.Kind, e.Depth, e.Outputs)
		}
	}
	if fmt.Sprint(kinds) != "[received/0 confirmed/1 confirmed/6]" {
		t.Fatalf("events %v: %s", kinds, r.Result)
	}
}
