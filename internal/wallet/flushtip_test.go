package wallet_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// TestAdvanceTipWrittenOnUnload: blocks a chain follower recorded in
// memory only (AdvanceTip) are written when the wallet is unloaded, so a
// clean unload or shutdown resumes at the same block.
func TestAdvanceTipWrittenOnUnload(t *testing.T) {
	ctx := context.Background()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10})
	defer m.Close()
	w, _ := lockWallet(t, m)
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 10, Hash: [32]byte{10}}}); err != nil {
		t.Fatal(err)
	}
	done, err := w.AdvanceTip(ctx, []wallet.BlockRef{{Height: 10, Hash: [32]byte{10}}, {Height: 11, Hash: [32]byte{11}}})
	if err != nil || !done {
		t.Fatalf("AdvanceTip: %v %v", done, err)
	}
	if _, err := m.Unload(ctx, "w", nil); err != nil {
		t.Fatal(err)
	}
	w2, _, err := m.Load(ctx, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	last, ok := w2.LastProcessedBlock()
	if !ok || last.Height != 11 || last.Hash != [32]byte{11} {
		t.Fatalf("after reload: %+v %v, want block 11", last, ok)
	}
}

// TestBlockConnectedMovesTip: the transactions of a block extending the
// wallet's position and the position itself are seen together.
func TestBlockConnectedMovesTip(t *testing.T) {
	ctx := context.Background()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(t.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: 10})
	defer m.Close()
	w, spk := lockWallet(t, m)
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 20, Hash: [32]byte{20}}}); err != nil {
		t.Fatal(err)
	}
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, spk))
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 21, Hash: chainhash.Hash{21}}, []*wire.MsgTx{tx}, nil); err != nil {
		t.Fatal(err)
	}
	if last, ok := w.LastProcessedBlock(); !ok || last.Height != 21 || last.Hash != [32]byte{21} {
		t.Fatalf("after the block: %+v %v, want block 21", last, ok)
	}
	// A rescan's older block leaves the position alone.
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 5, Hash: chainhash.Hash{5}, Rescan: true}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if last, _ := w.LastProcessedBlock(); last.Height != 21 {
		t.Fatalf("after a rescan block: %+v", last)
	}
}
