package walletdb

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/pgstore"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/wallet"
)

// sharedNode is one node of a shared-wallet test: its own connection to
// the database and its own wallet manager.
type sharedNode struct {
	db *pgstore.DB
	m  *wallet.Manager
}

func newSharedNode(t *testing.T, dsn string, keypool int) sharedNode {
	t.Helper()
	db, err := pgstore.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: dir, Net: &chaincfg.RegressionNetParams, Keypool: keypool,
		Opener: PGOpener{DB: db, Root: filepath.Join(dir, "wallets"), Namespace: "regtest", Shared: true}})
	t.Cleanup(func() {
		m.Close()
		db.Close()
	})
	return sharedNode{db: db, m: m}
}

// TestSharedWalletTwoNodes serves one wallet from two nodes: 64 callers
// spread over both get every address once, each node's state follows the
// other's writes at its next call (Sync), an import on one is owned on the
// other, and imports wait for each other's exclusive-operation lock.
func TestSharedWalletTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a := newSharedNode(t, dsn, 20)
	b := newSharedNode(t, dsn, 20)
	wa, _, err := a.m.Create(ctx, "shop", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The creating node gave up the wallet's open lock when it
	// published it: the other node opens it too.
	wb, _, err := b.m.Load(ctx, "shop", nil)
	if err != nil {
		t.Fatal(err)
	}

	const callers, each = 64, 12
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		w := wa
		if c%2 == 1 {
			w = wb
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				internal := i%3 == 2
				if err := w.Sync(ctx, false); err != nil {
					errs <- err
					return
				}
				addr, err := w.NewAddress(ctx, internal, "", nil)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[addr]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != callers*each {
		t.Fatalf("%d distinct addresses of %d handed out", len(seen), callers*each)
	}
	// Every address handed out by either node is the wallet's on both,
	// once each node synced.
	for _, w := range []*wallet.Wallet{wa, wb} {
		if err := w.Sync(ctx, true); err != nil {
			t.Fatal(err)
		}
		for addr := range seen {
			spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
			if err != nil {
				t.Fatal(err)
			}
			if !w.IsMine(spk) {
				t.Fatalf("%s does not own %s handed out by the other node", w.Name(), addr)
			}
		}
	}

	// An import on one node is owned by the other at its next call.
	desc := descriptor.AddChecksum("wpkh(tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK/0/*)")
	imp := func(w *wallet.Wallet, lo, hi int64) {
		t.Helper()
		res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true, Desc: desc, Timestamp: 1,
			HasRange: true, RangeStart: lo, RangeEnd: hi}}, nil)
		if err != nil || len(res) != 1 || !res[0].Success {
			t.Fatalf("import: %v %+v", err, res)
		}
	}
	imp(wa, 0, 5)
	probe := importedScript(t, wa, desc, 3)
	if wb.IsMine(probe) {
		t.Fatal("owned before the other node's change was read")
	}
	if err := wb.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !wb.IsMine(probe) {
		t.Fatal("an import on the other node is not seen after Sync")
	}

	// Imports on both nodes at once run one after the other, the second
	// on the state the first left: a range of 0..40 on one node and
	// 0..60 on the other end as 0..60 on both (the smaller one, when it
	// comes second, is refused as Core refuses a shrinking range; it never
	// overwrites the larger).
	var iw sync.WaitGroup
	for i, w := range []*wallet.Wallet{wa, wb} {
		iw.Add(1)
		go func() {
			defer iw.Done()
			res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true, Desc: desc, Timestamp: 1,
				HasRange: true, RangeStart: 0, RangeEnd: int64(40 + 20*i)}}, nil)
			if err != nil || len(res) != 1 {
				t.Errorf("import: %v %+v", err, res)
				return
			}
			if !res[0].Success && (i == 1 || !strings.Contains(res[0].Err.Error(), "new range must include current range = [0,60]")) {
				t.Errorf("import %d: %v", i, res[0].Err)
			}
		}()
	}
	iw.Wait()
	far := importedScript(t, wa, desc, 55)
	for _, w := range []*wallet.Wallet{wa, wb} {
		if err := w.Sync(ctx, true); err != nil {
			t.Fatal(err)
		}
		if !w.IsMine(far) {
			t.Fatalf("%s: index 55 of the larger import is not owned", w.Name())
		}
	}
}

// importedScript derives the script of desc at index i.
func importedScript(t *testing.T, _ *wallet.Wallet, desc string, i uint32) []byte {
	t.Helper()
	d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := d.Expand(i, nil)
	if err != nil || len(outs) != 1 {
		t.Fatal(err)
	}
	return outs[0].ScriptPubKey
}

// sharedPair opens one wallet on two nodes sharing a fresh database and
// returns it as each node serves it, with a receive script of the wallet.
func sharedPair(t *testing.T) (wa, wb *wallet.Wallet, spk []byte) {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a := newSharedNode(t, dsn, 5)
	b := newSharedNode(t, dsn, 5)
	wa, _, err := a.m.Create(ctx, "shop", wallet.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if wb, _, err = b.m.Load(ctx, "shop", nil); err != nil {
		t.Fatal(err)
	}
	addr, err := wa.NewAddress(ctx, false, "bech32", nil)
	if err != nil {
		t.Fatal(err)
	}
	if spk, err = address.Decode(addr, &chaincfg.RegressionNetParams); err != nil {
		t.Fatal(err)
	}
	return wa, wb, spk
}

// TestSharedWalletChainSync: a block one node processed for a shared
// wallet is seen by the other node's next Sync (transactions, balances,
// chain position) without reloading its keys, and a reorg the first node
// rolls back is undone on the second as well.
func TestSharedWalletChainSync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wa, wb, spk := sharedPair(t)
	// Both nodes are up to date before the block.
	for _, w := range []*wallet.Wallet{wa, wb} {
		if err := w.Sync(ctx, true); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 9, Hash: [32]byte{9}}}); err != nil {
			t.Fatal(err)
		}
	}
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{1}, Index: 0}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(70_000, spk))
	blk := wallet.BlockInfo{Height: 10, Hash: chainhash.Hash{10}, Time: 1_700_000_000}
	if err := wa.BlockConnected(ctx, blk, []*wire.MsgTx{tx}, []int{1}); err != nil {
		t.Fatal(err)
	}
	recent := []wallet.BlockRef{{Height: 9, Hash: [32]byte{9}}, {Height: 10, Hash: [32]byte{10}}}
	if err := wa.Checkpoint(ctx, recent); err != nil {
		t.Fatal(err)
	}
	if bal, _ := wb.Balances(ctx); bal.Trusted != 0 {
		t.Fatalf("the other node counts the payment before its Sync: %+v", bal)
	}
	if err := wb.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	ba, err := wa.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := wb.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ba != bb || bb.Trusted != 70_000 {
		t.Fatalf("balances: writer %+v, other node %+v", ba, bb)
	}
	la, _ := wa.ListTransactions(ctx, nil, 10, 0)
	lb, _ := wb.ListTransactions(ctx, nil, 10, 0)
	if len(la) != 1 || len(lb) != 1 || la[0].Info.Confirmations != 1 || lb[0].Info.Confirmations != 1 {
		t.Fatalf("transactions: writer %+v, other node %+v", la, lb)
	}
	if last, ok := wb.LastProcessedBlock(); !ok || last.Height != 10 {
		t.Fatalf("other node's last processed block %+v %v", last, ok)
	}
	// The writer's own writes do not make it reload.
	if err := wa.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	// A reorg on the first node is undone on the second.
	if err := wa.Rollback(ctx, 9); err != nil {
		t.Fatal(err)
	}
	if err := wb.Sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	lb, _ = wb.ListTransactions(ctx, nil, 10, 0)
	if len(lb) != 1 || lb[0].Info.Confirmations != 0 {
		t.Fatalf("after the reorg, other node: %+v", lb)
	}
	if last, _ := wb.LastProcessedBlock(); last.Height != 9 {
		t.Fatalf("after the reorg, other node's last processed block %+v", last)
	}
}

// TestSharedWalletLocks: a persistent coin lock one node takes is seen by
// the other at its next Sync, and so is its release (the other node kept
// the released lock before); a node's own non-persistent lock stays its
// own, whatever the other node does.
func TestSharedWalletLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wa, wb, spk := sharedPair(t)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{1}, Index: 0}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(70_000, spk))
	tx.AddTxOut(wire.NewTxOut(30_000, spk))
	blk := wallet.BlockInfo{Height: 10, Hash: chainhash.Hash{10}, Time: 1_700_000_000}
	if err := wa.BlockConnected(ctx, blk, []*wire.MsgTx{tx}, []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := wa.Checkpoint(ctx, []wallet.BlockRef{{Height: 10, Hash: [32]byte{10}}}); err != nil {
		t.Fatal(err)
	}
	sync := func() {
		t.Helper()
		for _, w := range []*wallet.Wallet{wa, wb} {
			if err := w.Sync(ctx, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	sync()
	shared := wire.OutPoint{Hash: tx.TxHash(), Index: 0}
	own := wire.OutPoint{Hash: tx.TxHash(), Index: 1}
	if err := wb.LockCoins(ctx, false, false, []wire.OutPoint{own}); err != nil {
		t.Fatal(err)
	}
	if err := wa.LockCoins(ctx, false, true, []wire.OutPoint{shared}); err != nil {
		t.Fatal(err)
	}
	sync()
	if !wb.IsLockedCoin(shared) || !wb.IsLockedCoin(own) || wa.IsLockedCoin(own) {
		t.Fatalf("after a persistent lock on one node: other node shared %v own %v, first node own %v",
			wb.IsLockedCoin(shared), wb.IsLockedCoin(own), wa.IsLockedCoin(own))
	}
	if err := wa.LockCoins(ctx, true, false, []wire.OutPoint{shared}); err != nil {
		t.Fatal(err)
	}
	sync()
	if wb.IsLockedCoin(shared) {
		t.Fatal("the other node keeps a persistent lock the first node released")
	}
	if !wb.IsLockedCoin(own) {
		t.Fatal("the other node lost its own non-persistent lock")
	}
	// The other node locks it persistently in turn and releases it: the
	// first node follows both.
	if err := wb.LockCoins(ctx, false, true, []wire.OutPoint{shared}); err != nil {
		t.Fatal(err)
	}
	sync()
	if !wa.IsLockedCoin(shared) {
		t.Fatal("the first node does not see the other node's persistent lock")
	}
	if err := wb.LockCoins(ctx, true, false, []wire.OutPoint{shared}); err != nil {
		t.Fatal(err)
	}
	sync()
	if wa.IsLockedCoin(shared) {
		t.Fatal("the first node keeps the other node's released lock")
	}
}
