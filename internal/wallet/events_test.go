package wallet_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestEventLog follows a wallet through a mempool payment, its block, a
// payment first seen in a block, tips reaching depth 6, a rollback and a
// reload: the log holds exactly the expected events in order, with
// increasing cursors, and after the reload depths already reported are not
// reported again.
func TestEventLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	w, spk := lockWallet(t, m)
	pay := func(seed byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{seed}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		return tx
	}
	a, b := pay(1), pay(2)
	name := map[[32]byte]string{a.TxHash(): "a", b.TxHash(): "b"}
	blk := func(h int32, fork byte) wallet.BlockInfo {
		return wallet.BlockInfo{Height: h, Hash: chainhash.Hash{byte(h), fork}, Time: 1700000000 + int64(h)}
	}
	tip := func(h int32, fork byte) []wallet.BlockRef {
		return []wallet.BlockRef{{Height: h, Hash: blk(h, fork).Hash}}
	}
	var cursor int64
	check := func(step string, want ...string) {
		t.Helper()
		evs, err := w.Events(ctx, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			if e.Cursor <= cursor {
				t.Errorf("%s: cursor %d after %d", step, e.Cursor, cursor)
			}
			cursor = e.Cursor
			s := e.Kind + " " + name[e.TxID]
			if e.Kind == wallet.EventConfirmed {
				s += fmt.Sprintf(" %d", e.Depth)
			}
			if e.Height >= 0 {
				if e.BlockHash != blk(e.Height, e.BlockHash[1]).Hash {
					t.Errorf("%s: event at %d with block %x", step, e.Height, e.BlockHash)
				}
				s += fmt.Sprintf(" @%d", e.Height)
			}
			got = append(got, s)
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: events %q, want %q", step, got, want)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	must(w.MempoolTxs(ctx, []*wire.MsgTx{a}))
	check("mempool", "received a")
	must(w.MempoolTxs(ctx, []*wire.MsgTx{a}))
	check("mempool again")
	must(w.BlockConnected(ctx, blk(100, 0), []*wire.MsgTx{a}, nil))
	must(w.Checkpoint(ctx, tip(100, 0)))
	check("mined", "confirmed a 1 @100")
	must(w.BlockConnected(ctx, blk(100, 0), []*wire.MsgTx{a}, nil))
	check("block again")
	must(w.BlockConnected(ctx, blk(101, 0), []*wire.MsgTx{b}, nil))
	check("first seen in a block", "received b @101", "confirmed b 1 @101")
	must(w.Checkpoint(ctx, tip(104, 0)))
	check("depth 5 and 4")
	must(w.Checkpoint(ctx, tip(105, 0)))
	check("depth 6 of a", "confirmed a 6 @100")
	must(w.Checkpoint(ctx, tip(106, 0)))
	check("depth 6 of b", "confirmed b 6 @101")
	must(w.Checkpoint(ctx, tip(110, 0)))
	check("deeper")
	must(w.Rollback(ctx, 100))
	check("reorg", "reorged b @101")

	// A reload keeps the log and what it reported.
	must(m.Close())
	m = newManager(dir)
	defer m.Close()
	var err error
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	must(w.Checkpoint(ctx, tip(110, 1)))
	check("after reload")
	must(w.BlockConnected(ctx, blk(102, 1), []*wire.MsgTx{b}, nil))
	check("b mined again", "confirmed b 1 @102")
	must(w.Checkpoint(ctx, tip(107, 1)))
	check("b at depth 6 again", "confirmed b 6 @102")
	evs, err := w.Events(ctx, 0, 3)
	if err != nil || len(evs) != 3 || evs[0].Kind != wallet.EventReceived || evs[2].Cursor <= evs[1].Cursor {
		t.Errorf("limit 3 from the start: %+v %v", evs, err)
	}
}

// TestEventLogDepths: with depth 3 alone configured, a payment first seen
// in a block gives received only, and confirmed once its block is 3 deep.
func TestEventLogDepths(t *testing.T) {
	ctx := context.Background()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10, EventDepths: []int32{3}})
	defer m.Close()
	w, spk := lockWallet(t, m)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{7}}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, spk))
	kinds := func() string {
		evs, err := w.Events(ctx, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, e := range evs {
			s = append(s, fmt.Sprintf("%s %d", e.Kind, e.Depth))
		}
		return strings.Join(s, "; ")
	}
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 50, Hash: chainhash.Hash{50}}, []*wire.MsgTx{tx}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 51, Hash: [32]byte{51}}}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); got != "received 0" {
		t.Errorf("at depth 2: %s", got)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 52, Hash: [32]byte{52}}}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); got != "received 0; confirmed 3" {
		t.Errorf("at depth 3: %s", got)
	}
}

// TestEventContent: each event carries the wallet's outputs with address,
// label and descriptors, the net amount and, when the wallet's coins are
// spent, the fee; a transaction spending them is sent, not received, also
// when it spends an output of a transaction first seen in the same block.
func TestEventContent(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	shop, change := "shop", "raw(0014"+strings.Repeat("22", 20)+")"
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{
		{HasDesc: true, Desc: descriptor.AddChecksum("raw(0014" + strings.Repeat("11", 20) + ")"),
			HasLabel: true, Label: &shop, Timestamp: 1700000000},
		{HasDesc: true, Desc: descriptor.AddChecksum(change), Timestamp: 1700000000},
	}, nil)
	if err != nil || !res[0].Success || !res[1].Success {
		t.Fatalf("import: %v %+v", err, res)
	}
	spkShop := append([]byte{0, 20}, bytes.Repeat([]byte{0x11}, 20)...)
	spkChange := append([]byte{0, 20}, bytes.Repeat([]byte{0x22}, 20)...)
	other := append([]byte{0, 20}, bytes.Repeat([]byte{0x33}, 20)...)

	pay := wire.NewMsgTx(2)
	pay.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}}, nil, nil))
	pay.AddTxOut(wire.NewTxOut(5000, other))
	pay.AddTxOut(wire.NewTxOut(100000, spkShop))
	// spend pays 60000 away, 39000 back as change, 1000 of fee.
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: pay.TxHash(), Index: 1}, nil, nil))
	spend.AddTxOut(wire.NewTxOut(39000, spkChange))
	spend.AddTxOut(wire.NewTxOut(60000, other))
	// away spends the change entirely to someone else: nothing comes back.
	away := wire.NewMsgTx(2)
	away.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: spend.TxHash(), Index: 0}, nil, nil))
	away.AddTxOut(wire.NewTxOut(38500, other))

	blk := wallet.BlockInfo{Height: 200, Hash: chainhash.Hash{200}, Time: 1700000200}
	if err := w.BlockConnected(ctx, blk, []*wire.MsgTx{pay, spend, away}, []int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	evs, err := w.Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	shopDesc := descriptor.AddChecksum("raw(0014" + strings.Repeat("11", 20) + ")")
	changeDesc := descriptor.AddChecksum(change)
	type out struct {
		vout   uint32
		amount int64
		label  string
		desc   string
	}
	want := []struct {
		kind   string
		txid   chainhash.Hash
		depth  int32
		amount int64
		fee    int64 // 1: none
		outs   []out
	}{
		{wallet.EventReceived, pay.TxHash(), 0, 100000, 1, []out{{1, 100000, "shop", shopDesc}}},
		{wallet.EventConfirmed, pay.TxHash(), 1, 100000, 1, []out{{1, 100000, "shop", shopDesc}}},
		{wallet.EventSent, spend.TxHash(), 0, -60000, -1000, []out{{0, 39000, "", changeDesc}}},
		{wallet.EventConfirmed, spend.TxHash(), 1, -60000, -1000, []out{{0, 39000, "", changeDesc}}},
		{wallet.EventSent, away.TxHash(), 0, -38500, -500, nil},
		{wallet.EventConfirmed, away.TxHash(), 1, -38500, -500, nil},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, e := range evs {
		wt := want[i]
		fee := int64(1)
		if e.Fee != nil {
			fee = *e.Fee
		}
		if e.Kind != wt.kind || e.TxID != wt.txid || e.Depth != wt.depth || e.Amount != wt.amount || fee != wt.fee ||
			e.Height != 200 || e.BlockHash != blk.Hash || len(e.Outputs) != len(wt.outs) {
			t.Errorf("event %d: %+v, want %+v", i, e, wt)
			continue
		}
		for j, o := range e.Outputs {
			wo := wt.outs[j]
			label := ""
			if o.Label != nil {
				label = *o.Label
			}
			if o.Vout != wo.vout || o.Amount != wo.amount || label != wo.label ||
				len(o.ParentDescs) != 1 || o.ParentDescs[0] != wo.desc || !strings.HasPrefix(o.Address, "bcrt1q") {
				t.Errorf("event %d output %d: %+v, want %+v", i, j, o, wo)
			}
		}
	}
}

// TestEventRetention: pruning removes the oldest events, a cursor before
// them gets ErrEventsPruned, one at or after them reads on, and after a
// reload the depths reported of pruned events are not reported again.
func TestEventRetention(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(dir)
	w, spk := lockWallet(t, m)
	for i := 0; i < 4; i++ {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{byte(i + 1)}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: int32(10 + i), Hash: chainhash.Hash{byte(10 + i)}},
			[]*wire.MsgTx{tx}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 20, Hash: [32]byte{20}}}); err != nil {
		t.Fatal(err)
	}
	all, err := w.Events(ctx, 0, 100)
	if err != nil || len(all) != 12 {
		t.Fatalf("%d events (want 12: received, confirmed 1 and 6 of four payments), %v", len(all), err)
	}
	n, err := w.PruneEvents(ctx, wallet.EventRetention{Count: 5}, 0, nil)
	if err != nil || n != 7 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	last := all[len(all)-1].Cursor
	_, err = w.Events(ctx, last-6, 100)
	wantLockErr(t, err, wallet.ErrEventsPruned, fmt.Sprintf("Cursor %d is older than the event log keeps: events "+
		"through cursor %d were removed (-eventretention); resume after %d or later", last-6, last-5, last-5))
	if evs, err := w.Events(ctx, last-5, 100); err != nil || len(evs) != 5 || evs[0].Cursor != last-4 {
		t.Errorf("from the first kept: %d events, %v", len(evs), err)
	}
	// Nothing is older than a day.
	if n, err := w.PruneEvents(ctx, wallet.EventRetention{Age: 86400}, time.Now().Unix(), nil); err != nil || n != 0 {
		t.Errorf("age a day: pruned %d, %v", n, err)
	}
	// An hour later everything is older than a minute: all but the
	// newest event go.
	if n, err := w.PruneEvents(ctx, wallet.EventRetention{Age: 60}, time.Now().Unix()+3600, nil); err != nil || n != 4 {
		t.Errorf("an hour later, age a minute: pruned %d, %v", n, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = newManager(dir)
	defer m.Close()
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 21, Hash: [32]byte{21}}}); err != nil {
		t.Fatal(err)
	}
	if evs, err := w.Events(ctx, last, 100); err != nil || len(evs) != 0 {
		t.Errorf("after a reload: %+v %v", evs, err)
	}
}

// TestTransitionEvents: a spend replaced in the mempool gives replaced
// (once, though the fee bump is also recorded), conflicted when the
// replacement is mined, and an abandoned spend gives abandoned, each with
// the other transaction as related and the spend's amounts.
func TestTransitionEvents(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	other := append([]byte{0x00, 0x14}, make([]byte, 20)...)
	fund := wire.NewMsgTx(2)
	fund.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{3}}, nil, nil))
	fund.AddTxOut(wire.NewTxOut(10000, spk))
	fund.AddTxOut(wire.NewTxOut(5000, spk))
	spend := func(vout uint32, away, back int64) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: fund.TxHash(), Index: vout}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(away, other))
		if back > 0 {
			tx.AddTxOut(wire.NewTxOut(back, spk))
		}
		return tx
	}
	orig, bump, lone := spend(0, 6000, 3000), spend(0, 6000, 2000), spend(1, 4000, 0)
	name := map[[32]byte]string{fund.TxHash(): "fund", orig.TxHash(): "orig", bump.TxHash(): "bump",
		lone.TxHash(): "lone", {}: "-"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.BlockConnected(ctx, wallet.BlockInfo{Height: 10, Hash: chainhash.Hash{10}}, []*wire.MsgTx{fund}, nil))
	must(w.CommitTx(ctx, orig, wallet.TxComments{}))
	must(w.CommitTx(ctx, bump, wallet.TxComments{}))
	must(w.MarkReplaced(ctx, orig.TxHash(), bump.TxHash()))
	must(w.BlockConnected(ctx, wallet.BlockInfo{Height: 11, Hash: chainhash.Hash{11}}, []*wire.MsgTx{bump}, nil))
	must(w.CommitTx(ctx, lone, wallet.TxComments{}))
	must(w.AbandonTransaction(ctx, lone.TxHash(), func(chainhash.Hash) bool { return false }))

	evs, err := w.Events(ctx, 0, 100)
	must(err)
	var got []string
	for _, e := range evs {
		fee := int64(1)
		if e.Fee != nil {
			fee = *e.Fee
		}
		got = append(got, fmt.Sprintf("%s %s %s @%d %d/%d", e.Kind, name[e.TxID], name[e.Related], e.Height, e.Amount, fee))
	}
	want := []string{"received fund - @10 15000/1", "confirmed fund - @10 15000/1",
		"sent orig - @-1 -6000/-1000", "sent bump - @-1 -6000/-2000", "replaced orig bump @-1 -6000/-1000",
		"confirmed bump - @11 -6000/-2000", "conflicted orig bump @11 -6000/-1000",
		"sent lone - @-1 -4000/-1000", "abandoned lone - @-1 -4000/-1000"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDeeperEventsDescribeAtTheirTime: a confirmed event at a deeper depth
// reports the transaction as the wallet sees it when that event is
// written, not as its received event did: a label set in between shows,
// and so does a coin of the wallet it spends that the wallet learnt of in
// between (its fee); with nothing changed it reports what the received
// event did.
func TestDeeperEventsDescribeAtTheirTime(t *testing.T) {
	ctx := context.Background()
	w, spk := lockWallet(t, newManager(t.TempDir()))
	if err := w.SetLabel(ctx, spk, "shop"); err != nil {
		t.Fatal(err)
	}
	pay := func(prev chainhash.Hash, value int64) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: prev}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(value, spk))
		tx.AddTxOut(wire.NewTxOut(700, append([]byte{0x00, 0x14}, bytes.Repeat([]byte{0x22}, 20)...)))
		return tx
	}
	parent := pay(chainhash.Hash{0xaa}, 9000)    // learnt of late
	labelled := pay(chainhash.Hash{0xbb}, 1000)  // its label changes before depth 6
	unchanged := pay(chainhash.Hash{0xcc}, 2000) // nothing changes
	spending := pay(parent.TxHash(), 3000)       // spends parent's output to the wallet
	block := func(h int32, txs ...*wire.MsgTx) {
		t.Helper()
		if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: h, Hash: chainhash.Hash{byte(h)}}, txs, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: h, Hash: chainhash.Hash{byte(h)}}}); err != nil {
			t.Fatal(err)
		}
	}
	block(10, labelled, unchanged)
	if err := w.SetLabel(ctx, spk, "paid"); err != nil {
		t.Fatal(err)
	}
	block(11, spending)
	block(5, parent) // an older block, delivered late (a rescan's)
	for h := int32(12); h <= 17; h++ {
		block(h)
	}
	evs, err := w.Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		tx    chainhash.Hash
		kind  string
		depth int32
	}
	got := map[key]wallet.EventRecord{}
	for _, e := range evs {
		got[key{e.TxID, e.Kind, e.Depth}] = e
	}
	label := func(k key) string {
		e, ok := got[k]
		if !ok || len(e.Outputs) != 1 || e.Outputs[0].Label == nil {
			t.Fatalf("event %+v: %+v", k, e)
		}
		return *e.Outputs[0].Label
	}
	if l := label(key{labelled.TxHash(), wallet.EventReceived, 0}); l != "shop" {
		t.Errorf("received with label %q", l)
	}
	if l := label(key{labelled.TxHash(), wallet.EventConfirmed, 6}); l != "paid" {
		t.Errorf("confirmed 6 with label %q, want the one set since", l)
	}
	first, deep := got[key{unchanged.TxHash(), wallet.EventReceived, 0}], got[key{unchanged.TxHash(), wallet.EventConfirmed, 6}]
	if fmt.Sprint(first.Amount, first.Fee, len(first.Outputs), deep.Amount, deep.Fee, len(deep.Outputs)) != "2000 <nil> 1 2000 <nil> 1" {
		t.Errorf("unchanged: received %+v, confirmed 6 %+v", first, deep)
	}
	received, confirmed := got[key{spending.TxHash(), wallet.EventReceived, 0}], got[key{spending.TxHash(), wallet.EventConfirmed, 6}]
	if received.Fee != nil || received.Amount != 3000 {
		t.Errorf("spending, received before its parent was known: amount %d fee %v", received.Amount, received.Fee)
	}
	if confirmed.Fee == nil || *confirmed.Fee != -(9000-3000-700) || confirmed.Amount != -(9000-3000)+(9000-3000-700) {
		t.Errorf("spending, confirmed 6 after its parent was learnt: amount %d fee %v", confirmed.Amount, confirmed.Fee)
	}
}
