package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// TestChainRoundTrip writes transactions, a chain state and a rescan
// record, reopens the database, and reads them back; then checks that a
// rollback unconfirms only the transactions above the fork and that
// clearing the rescan record removes it.
func TestChainRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	txA := WalletTx{TxID: [32]byte{1}, Raw: []byte{0xaa}, TimeReceived: 100, Height: 5,
		BlockHash: [32]byte{5}, BlockTime: 1000, BlockIndex: 2}
	txB := WalletTx{TxID: [32]byte{2}, Raw: []byte{0xbb}, TimeReceived: 101, Height: 9,
		BlockHash: [32]byte{9}, BlockTime: 1009, BlockIndex: 0}
	recent := []BlockRef{{Height: 8, Hash: [32]byte{8}}, {Height: 9, Hash: [32]byte{9}}}
	err = s.Update(ctx, func(tx *Tx) error {
		for _, w := range []*WalletTx{&txA, &txB} {
			seq, err := tx.PutWalletTx(*w)
			if err != nil {
				return err
			}
			w.Seq = seq
		}
		// Delivered again: same sequence, time received kept.
		again := txA
		again.TimeReceived = 999
		if seq, err := tx.PutWalletTx(again); err != nil || seq != txA.Seq {
			t.Errorf("second put: seq %d (want %d), %v", seq, txA.Seq, err)
		}
		if err := tx.SetRecentBlocks(recent); err != nil {
			return err
		}
		return tx.SetRescan(&RescanState{Next: 3, Stop: 9})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &ChainSnapshot{Txs: []WalletTx{txA, txB}, Recent: recent, Rescan: &RescanState{Next: 3, Stop: 9}}
	if !reflect.DeepEqual(snap, want) {
		t.Fatalf("loaded %+v\nwant %+v", snap, want)
	}

	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.UnconfirmAbove(6); err != nil {
			return err
		}
		return tx.SetRescan(nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	snap, err = s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unconf := txB
	unconf.Height, unconf.BlockHash, unconf.BlockTime, unconf.BlockIndex = -1, [32]byte{}, 0, 0
	if !reflect.DeepEqual(snap.Txs, []WalletTx{txA, unconf}) || snap.Rescan != nil {
		t.Errorf("after rollback: %+v", snap)
	}
}

// TestTxMarks checks the transaction marks: written, read back after a
// reopen, replaced, removed when zero and with their transaction.
func TestTxMarks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := [32]byte{1}, [32]byte{2}
	err = s.Update(ctx, func(tx *Tx) error {
		for _, id := range [][32]byte{a, b} {
			if _, err := tx.PutWalletTx(WalletTx{TxID: id, Raw: []byte{id[0]}, Height: -1}); err != nil {
				return err
			}
		}
		if err := tx.PutTxMarks(a, TxMarks{Abandoned: true}); err != nil {
			return err
		}
		if err := tx.PutTxMarks(a, TxMarks{ReplacedBy: b}); err != nil {
			return err
		}
		return tx.PutTxMarks(b, TxMarks{Abandoned: true, Replaces: a, ConflictHash: [32]byte{9}, ConflictHeight: 7})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[[32]byte]TxMarks{a: {ReplacedBy: b}, b: {Abandoned: true, Replaces: a, ConflictHash: [32]byte{9}, ConflictHeight: 7}}; !reflect.DeepEqual(snap.Marks, want) {
		t.Fatalf("marks %+v, want %+v", snap.Marks, want)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutTxMarks(a, TxMarks{}); err != nil {
			return err
		}
		return tx.DeleteWalletTx(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if snap, _ := s.LoadChain(ctx); len(snap.Marks) != 0 {
		t.Errorf("marks left: %+v", snap.Marks)
	}
}
