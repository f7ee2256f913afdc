package wallet_test

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// noticeStep is one step of a transaction-hook test: what it does and the
// notices it gives.
type noticeStep struct {
	name string
	do   func() error
	want []wallet.TxNotice
}

// noticeManager returns a manager whose transaction hook records the
// notices, and run, which runs steps and checks the notices each gives.
func noticeManager(t *testing.T) (*wallet.Manager, func([]noticeStep)) {
	var mu sync.Mutex
	var got []wallet.TxNotice
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10,
		TxNotify: func(n wallet.TxNotice) {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}})
	run := func(steps []noticeStep) {
		t.Helper()
		for _, s := range steps {
			mu.Lock()
			got = nil
			mu.Unlock()
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			mu.Lock()
			if !reflect.DeepEqual(got, s.want) {
				t.Errorf("%s: notices %+v, want %+v", s.name, got, s.want)
			}
			mu.Unlock()
		}
	}
	return m, run
}

// TestTxNotify checks when the transaction hook runs (Core's walletnotify
// moments): a new mempool transaction, the same one mined, a transaction
// first seen in a block, and each transaction a rollback unconfirms. A
// mempool sighting of a known transaction, a block delivered again and a
// transaction of no interest run nothing.
func TestTxNotify(t *testing.T) {
	ctx := context.Background()
	m, run := noticeManager(t)
	w, spk := lockWallet(t, m)
	pay := func(seed byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{seed}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		return tx
	}
	a, b := pay(1), pay(2)
	other := wire.NewMsgTx(2)
	other.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{3}}, nil, nil))
	other.AddTxOut(wire.NewTxOut(1000, []byte{0x51}))
	blk1 := wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xb0}, Time: 1700000100}
	blk2 := wallet.BlockInfo{Height: 101, Hash: chainhash.Hash{0xb1}, Time: 1700000200}
	unconf := func(tx *wire.MsgTx) wallet.TxNotice {
		return wallet.TxNotice{Wallet: "w", TxID: tx.TxHash(), Height: -1}
	}
	in := func(tx *wire.MsgTx, blk wallet.BlockInfo) wallet.TxNotice {
		return wallet.TxNotice{Wallet: "w", TxID: tx.TxHash(), Height: blk.Height, BlockHash: blk.Hash}
	}
	steps := []noticeStep{
		{"mempool", func() error { return w.MempoolTxs(ctx, []*wire.MsgTx{a, other}) }, []wallet.TxNotice{unconf(a)}},
		{"mempool again", func() error { return w.MempoolTxs(ctx, []*wire.MsgTx{a}) }, nil},
		{"mined", func() error { return w.BlockConnected(ctx, blk1, []*wire.MsgTx{a}, nil) }, []wallet.TxNotice{in(a, blk1)}},
		{"block again", func() error { return w.BlockConnected(ctx, blk1, []*wire.MsgTx{a}, nil) }, nil},
		{"first seen in a block", func() error { return w.BlockConnected(ctx, blk2, []*wire.MsgTx{other, b}, nil) },
			[]wallet.TxNotice{in(b, blk2)}},
		{"rollback of one block", func() error { return w.Rollback(ctx, 100) }, []wallet.TxNotice{unconf(b)}},
		{"rollback of the rest", func() error { return w.Rollback(ctx, 99) }, []wallet.TxNotice{unconf(a)}},
	}
	run(steps)
}

// TestTxNotifyConflicts checks the hook for conflicts as Core runs
// walletnotify: a payment its sender replaces in the mempool runs nothing
// (Core only refreshes a replaced transaction's state and changes
// mempool_conflicts without a sync), nor does its replacement's block; a
// payment still in the mempool when a block spends its input elsewhere
// runs it once, unconfirmed (Core's removal for the reason CONFLICT syncs
// it again).
func TestTxNotifyConflicts(t *testing.T) {
	ctx := context.Background()
	m, run := noticeManager(t)
	defer m.Close()
	w, spk := lockWallet(t, m)
	other := []byte{0x51}
	spend := func(seed byte, script []byte) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{seed}}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, script))
		return tx
	}
	replaced, repl := spend(4, spk), spend(4, other)
	conflicted, double := spend(5, spk), spend(5, other)
	unconf := func(tx *wire.MsgTx) wallet.TxNotice {
		return wallet.TxNotice{Wallet: "w", TxID: tx.TxHash(), Height: -1}
	}
	only := func(ids ...*wire.MsgTx) func(chainhash.Hash) bool {
		return func(id chainhash.Hash) bool {
			for _, tx := range ids {
				if tx.TxHash() == id {
					return true
				}
			}
			return false
		}
	}
	steps := []noticeStep{
		{"payments", func() error { return w.FollowerMempool(ctx, []*wire.MsgTx{replaced, conflicted}) },
			[]wallet.TxNotice{unconf(replaced), unconf(conflicted)}},
		{"replaced in the mempool", func() error { return w.FollowerMempool(ctx, []*wire.MsgTx{repl}) }, nil},
		{"mempool read", func() error {
			_, err := w.MempoolLeft(ctx, only(repl, conflicted))
			return err
		}, nil},
		{"replacement mined", func() error {
			return w.FollowerBlock(ctx, wallet.BlockInfo{Height: 100, Hash: chainhash.Hash{0xe0}}, []*wire.MsgTx{repl}, nil)
		}, nil},
		{"double-spent in a block", func() error {
			return w.FollowerBlock(ctx, wallet.BlockInfo{Height: 101, Hash: chainhash.Hash{0xe1}}, []*wire.MsgTx{double}, nil)
		}, []wallet.TxNotice{unconf(conflicted)}},
	}
	run(steps)
}
