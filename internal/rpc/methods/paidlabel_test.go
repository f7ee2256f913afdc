package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
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

	var mu sync.Mutex
	heights := map[string]int32{}
	var paid []blockPayment
	known := func() (map[string]int32, []blockPayment) {
		mu.Lock()
		defer mu.Unlock()
		hs := make(map[string]int32, len(heights))
		for k, v := range heights {
			hs[k] = v
		}
		return hs, append([]blockPayment(nil), paid...)
	}

	var done atomic.Bool
	var readers sync.WaitGroup
	check := func(reader int) {
		defer readers.Done()
		for i := 0; !done.Load() && i < 100_000; i++ {
			var err error
			switch (i + reader) % 4 {
			case 0:
				err = checkLabelSince(n, t, known)
			case 1:
				err = checkLabelList(n, t)
			default:
				err = checkLabelTx(n, t, known)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}
	readers.Add(3)
	for i := range 3 {
		go check(i)
	}

	var recent []wallet.BlockRef
	for h := int32(1); h <= blocks; h++ {
		// Each block pays the next address, beyond those already used.
		spk, err := address.Decode(addrs[h], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		tx := wire.NewMsgTx(2)
		var prev chainhash.Hash
		binary.BigEndian.PutUint32(prev[:], uint32(h))
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
		tx.AddTxOut(wire.NewTxOut(10_000+int64(h), spk))
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
		recent = append(recent, wallet.BlockRef{Height: h, Hash: hash})
		mu.Lock()
		heights[hash.String()] = h
		paid = append(paid, blockPayment{txid: tx.TxHash().String(), height: h, amount: 10_000 + int64(h)})
		mu.Unlock()
		info := wallet.BlockInfo{Height: h, Hash: hash, Time: 1700000000 + int64(h), Recent: append([]wallet.BlockRef(nil), recent...)}
		if err := w.FollowerBlock(ctx, info, []*wire.MsgTx{tx}, []int{1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, recent); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	readers.Wait()
	if err := checkLabelSince(n, t, known); err != nil {
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
	spk, err := address.Decode(addrs[2], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&chainhash.Hash{1}, 0), nil, nil))
	tx.AddTxOut(wire.NewTxOut(50_000, spk))
	var recent []wallet.BlockRef
	for h := int32(1); h <= 6; h++ {
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
		recent = append(recent, wallet.BlockRef{Height: h, Hash: hash})
		info := wallet.BlockInfo{Height: h, Hash: hash, Time: 1700000000 + int64(h), Recent: append([]wallet.BlockRef(nil), recent...)}
		var txs []*wire.MsgTx
		var idx []int
		if h == 1 {
			txs, idx = []*wire.MsgTx{tx}, []int{1}
		}
		if err := w.FollowerBlock(ctx, info, txs, idx); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, recent); err != nil {
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
