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

// TestTxNotify checks when the transaction hook runs (Core's walletnotify
// moments): a new mempool transaction, the same one mined, a transaction
// first seen in a block, and each transaction a rollback unconfirms. A
// mempool sighting of a known transaction, a block delivered again and a
// transaction of no interest run nothing.
func TestTxNotify(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []wallet.TxNotice
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10,
		TxNotify: func(n wallet.TxNotice) {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}})
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
	steps := []struct {
		name string
		do   func() error
		want []wallet.TxNotice
	}{
		{"mempool", func() error { return w.MempoolTxs(ctx, []*wire.MsgTx{a, other}) }, []wallet.TxNotice{unconf(a)}},
		{"mempool again", func() error { return w.MempoolTxs(ctx, []*wire.MsgTx{a}) }, nil},
		{"mined", func() error { return w.BlockConnected(ctx, blk1, []*wire.MsgTx{a}, nil) }, []wallet.TxNotice{in(a, blk1)}},
		{"block again", func() error { return w.BlockConnected(ctx, blk1, []*wire.MsgTx{a}, nil) }, nil},
		{"first seen in a block", func() error { return w.BlockConnected(ctx, blk2, []*wire.MsgTx{other, b}, nil) },
			[]wallet.TxNotice{in(b, blk2)}},
		{"rollback of one block", func() error { return w.Rollback(ctx, 100) }, []wallet.TxNotice{unconf(b)}},
		{"rollback of the rest", func() error { return w.Rollback(ctx, 99) }, []wallet.TxNotice{unconf(a)}},
	}
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
