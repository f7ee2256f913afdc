package store

import (
	"context"
	"errors"
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
		if err := tx.PutTxMarks(a, TxMarks{ReplacedBy: b, MempoolReplaced: [32]byte{5}}); err != nil {
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
	if want := map[[32]byte]TxMarks{a: {ReplacedBy: b, MempoolReplaced: [32]byte{5}}, b: {Abandoned: true, Replaces: a, ConflictHash: [32]byte{9}, ConflictHeight: 7}}; !reflect.DeepEqual(snap.Marks, want) {
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

// TestSetRecentBlocksChanges: the recorded blocks are always the list last
// given, whatever moved (a window sliding by one block, a reorg replacing
// blocks inside it, a gap, a shorter or empty list, a transaction rolled
// back, the database reopened), and a window sliding by one block changes
// two rows, not all of them.
func TestSetRecentBlocksChanges(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	s, err := Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	window := func(from, to int32, fork byte) []BlockRef {
		var out []BlockRef
		for h := from; h <= to; h++ {
			out = append(out, BlockRef{Height: h, Hash: [32]byte{byte(h), byte(h >> 8), fork}})
		}
		return out
	}
	changes := func() int64 {
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT total_changes()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var want []BlockRef
	set := func(step string, blocks []BlockRef, maxChanges int64) {
		t.Helper()
		before := changes()
		if err := s.Update(ctx, func(tx *Tx) error { return tx.SetRecentBlocks(blocks) }); err != nil {
			t.Fatal(err)
		}
		if n := changes() - before; maxChanges >= 0 && n > maxChanges {
			t.Errorf("%s: %d rows changed, want at most %d", step, n, maxChanges)
		}
		want = blocks
		checkRecent(t, s, step, want)
	}
	set("first", window(1, 100, 0), -1)
	set("slide", window(2, 101, 0), 2)
	set("slide again", window(3, 102, 0), 2)
	set("same", window(3, 102, 0), 0)
	reorg := append(window(3, 99, 0), window(100, 103, 1)...)
	set("reorg inside", reorg, 5)
	set("gap", append(window(3, 50, 0), window(60, 103, 1)[40:]...), -1)
	set("shorter", window(90, 95, 0), -1)
	set("empty", nil, -1)
	set("again", window(10, 20, 0), -1)

	// A rolled back transaction leaves the recorded blocks and what the
	// store knows of them as they were.
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetRecentBlocks(window(11, 25, 0)); err != nil {
			return err
		}
		if err := tx.SetRecentBlocks(window(12, 26, 0)); err != nil {
			return err
		}
		return errors.New("rolled back")
	})
	if err == nil {
		t.Fatal("rolled back transaction succeeded")
	}
	checkRecent(t, s, "rolled back", want)
	set("after the rollback", window(11, 21, 0), 2)
	// Two in one transaction: the second starts from the first.
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.SetRecentBlocks(window(12, 22, 0)); err != nil {
			return err
		}
		return tx.SetRecentBlocks(window(13, 23, 2))
	})
	if err != nil {
		t.Fatal(err)
	}
	want = window(13, 23, 2)
	checkRecent(t, s, "two in one transaction", want)

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	checkRecent(t, s, "reopened", want)
	set("after reopening", window(14, 24, 2), -1)
	set("slide after reopening", window(15, 25, 2), 2)
}

func checkRecent(t *testing.T, s *Store, step string, want []BlockRef) {
	t.Helper()
	snap, err := s.LoadChain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snap.Recent, want) && (len(snap.Recent) > 0 || len(want) > 0) {
		t.Errorf("%s: recorded %d blocks %v, want %d %v", step, len(snap.Recent), snap.Recent, len(want), want)
	}
}
