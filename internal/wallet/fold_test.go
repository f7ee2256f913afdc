package wallet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// crashCopy copies wallet "w"'s database files under dir as a kill leaves
// them (what was committed) to a new data directory, and returns it.
func crashCopy(t *testing.T, dir string) string {
	t.Helper()
	next := t.TempDir()
	from := filepath.Join(dir, "regtest", "wallets", "w")
	to := filepath.Join(next, "regtest", "wallets", "w")
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{wallet.DatabaseFile, wallet.DatabaseFile + "-wal"} {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return next
}

// TestFollowerBlockLookupFailureKeepsPosition checks that a follower block
// carrying its checkpoint, delivered while a lookup of the wallet's
// database script index fails (one of its payments then goes unseen),
// fails without writing the block's position: the block is delivered
// again, after a crash too, and the payment missed is recorded then.
func TestFollowerBlockLookupFailureKeepsPosition(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	newMgr := func(dir string) *wallet.Manager {
		return wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(dir, "regtest"),
			Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10, EventDepths: []int32{1, 6}})
	}
	m := newMgr(dir)
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	spk := func(b string) []byte {
		s := []byte{0x00, 0x14}
		for range 20 {
			s = append(s, b[0])
		}
		return s
	}
	spkA, spkB := spk("\x11"), spk("\x22")
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{
		{HasDesc: true, Desc: descriptor.AddChecksum("raw(00141111111111111111111111111111111111111111)"), Timestamp: 1700000000},
		{HasDesc: true, Desc: descriptor.AddChecksum("raw(00142222222222222222222222222222222222222222)"), Timestamp: 1700000000},
	}, nil)
	if err != nil || !res[0].Success || !res[1].Success {
		t.Fatalf("import: %v %+v", err, res)
	}
	hash := func(h int32) chainhash.Hash { return chainhash.Hash{byte(h), 0xbb} }
	pay := func(prev byte, spk []byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{prev}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		return tx
	}
	a, b := pay(1, spkA), pay(2, spkB)
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 100, Hash: hash(100)}}); err != nil {
		t.Fatal(err)
	}
	wallet.FailScriptLookups(w, spkB)
	blk := wallet.BlockInfo{Height: 101, Hash: hash(101), Time: 1700000101,
		Recent: []wallet.BlockRef{{Height: 100, Hash: hash(100)}, {Height: 101, Hash: hash(101)}}}
	if err := w.FollowerBlock(ctx, blk, []*wire.MsgTx{a, b}, nil); err == nil {
		t.Fatal("follower block with a failed script lookup: no error")
	}

	dir = crashCopy(t, dir)
	m.Close()
	m = newMgr(dir)
	defer func() { m.Close() }()
	w, _, err = m.Load(ctx, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tip, ok := w.LastProcessedBlock(); !ok || tip.Height != 100 {
		t.Fatalf("after a crash: last processed block %d (%v), want 100: the failed block is not delivered again", tip.Height, ok)
	}
	if err := w.FollowerBlock(ctx, blk, []*wire.MsgTx{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tx := range []*wire.MsgTx{a, b} {
		if _, err := w.Transaction(ctx, tx.TxHash()); err != nil {
			t.Errorf("payment %s after the block's delivery: %v", tx.TxHash(), err)
		}
	}

	// A block without its checkpoint: the position it moves in memory
	// is not written at a clean close either.
	c, d := pay(3, spkA), pay(4, spkB)
	wallet.FailScriptLookups(w, spkB)
	blk = wallet.BlockInfo{Height: 102, Hash: hash(102), Time: 1700000102}
	if err := w.FollowerBlock(ctx, blk, []*wire.MsgTx{c, d}, nil); err == nil {
		t.Fatal("block with a failed script lookup: no error")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = newMgr(dir)
	if w, _, err = m.Load(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	if tip, ok := w.LastProcessedBlock(); !ok || tip.Height != 101 {
		t.Fatalf("after a close: last processed block %d (%v), want 101", tip.Height, ok)
	}
}

// TestCloseLockOrder checks that closing a wallet (unloadwallet, node
// shutdown) does not hold the wallet's lock while it waits for the chain
// lock: a Checkpoint, Rollback or block delivery holds the chain lock and
// takes the wallet's lock for reading to describe transactions in their
// events, so the two would wait for each other for good.
func TestCloseLockOrder(t *testing.T) {
	m := newManager(t.TempDir())
	w, _ := lockWallet(t, m)
	release := wallet.HoldChainLock(w)
	done := make(chan error, 1)
	go func() { done <- m.Close() }()
	time.Sleep(100 * time.Millisecond)
	readable := wallet.WalletReadable(w)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !readable {
		t.Fatal("close holds the wallet's lock while it waits for the chain lock")
	}
}

// TestRollbackLockOrder checks that a rollback (a reorg) describing the
// transactions of the dropped blocks in its events does not take the
// wallet's lock inside its store transaction: setwalletflag and a close
// hold the wallet's lock while they write the store, so the two would
// wait for each other for good.
func TestRollbackLockOrder(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	fundInBlock(t, w, 9, wallet.BlockInfo{Height: 101, Hash: chainhash.Hash{0xb1}, Time: 1700000101}, spk, 1000)
	release := wallet.HoldWalletLock(w)
	rolled := make(chan error, 1)
	go func() { rolled <- w.Rollback(ctx, 100) }()
	time.Sleep(100 * time.Millisecond)
	wrote := make(chan error, 1)
	go func() { wrote <- wallet.WriteSetting(ctx, w) }()
	var err error
	select {
	case err = <-wrote:
	case <-time.After(2 * time.Second):
		release()
		<-rolled
		t.Fatal("a store write waits for a rollback that waits for the wallet's lock")
	}
	release()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-rolled; err != nil {
		t.Fatal(err)
	}
}

// TestFollowerBlockEventOrder checks the order of the events a follower
// block carrying its checkpoint writes when it also conflicts a mempool
// transaction: the block's own (received, confirmed), then the
// transitions' (conflicted), then the depths its tip reaches, as the block
// then its checkpoint wrote them when they were two store transactions.
func TestFollowerBlockEventOrder(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	hash := func(h int32) chainhash.Hash { return chainhash.Hash{byte(h), 0xdd} }
	block := func(h int32) wallet.BlockInfo {
		return wallet.BlockInfo{Height: h, Hash: hash(h), Time: 1700000000 + int64(h),
			Recent: []wallet.BlockRef{{Height: h, Hash: hash(h)}}}
	}
	names := map[chainhash.Hash]string{}
	pay := func(name string, prev byte, spk []byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{prev}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		names[tx.TxHash()] = name
		return tx
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 100, Hash: hash(100)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.FollowerBlock(ctx, block(101), []*wire.MsgTx{pay("a", 1, spk)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.FollowerMempool(ctx, []*wire.MsgTx{pay("u", 2, spk)}); err != nil {
		t.Fatal(err)
	}
	// c spends u's input and pays a stranger.
	txs := []*wire.MsgTx{pay("c", 2, []byte{0x51}), pay("b", 3, spk)}
	if err := w.FollowerBlock(ctx, block(106), txs, nil); err != nil {
		t.Fatal(err)
	}
	evs, err := w.Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%s %s %d @%d", e.Kind, names[e.TxID], e.Depth, e.Height))
	}
	want := []string{"received a 0 @101", "confirmed a 1 @101", "received u 0 @-1",
		"received b 0 @106", "confirmed b 1 @106", "conflicted u 0 @106", "confirmed a 6 @101"}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
	if tip, _ := w.LastProcessedBlock(); tip.Height != 106 {
		t.Fatalf("last processed block %d, want 106", tip.Height)
	}
}
