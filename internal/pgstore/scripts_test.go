package pgstore

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"
)

// chunkOf builds a chunk's data from digests as the Go side names them.
func chunkOf(digests ...uint64) []byte {
	b := make([]byte, 8*len(digests))
	for i, d := range digests {
		binary.LittleEndian.PutUint64(b[i*8:], d)
	}
	return b
}

// lookup returns the sorted refs of digests.
func lookup(t *testing.T, s *Store, digests ...uint64) []ScriptRef {
	t.Helper()
	refs, err := s.LookupScripts(context.Background(), digests)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(refs, func(a, b ScriptRef) int {
		switch {
		case a.Digest != b.Digest:
			if a.Digest < b.Digest {
				return -1
			}
			return 1
		case a.DescriptorSeq != b.DescriptorSeq:
			return int(a.DescriptorSeq - b.DescriptorSeq)
		}
		return int(a.FirstIndex - b.FirstIndex)
	})
	return refs
}

// TestScriptIndex checks that chunks feed the script index in their
// transaction: lookups find each digest with its descriptor and place
// (digests with the high bit set, shared by two descriptors, absent ones),
// a replaced chunk's old digests go, a descriptor's deleted chunks take
// their rows, a rolled-back transaction leaves none, another wallet's rows
// are not seen, and removing a wallet removes its rows.
func TestScriptIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	s, err := db.Create(ctx, "regtest", "a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.Create(ctx, "regtest", "b")
	if err != nil {
		t.Fatal(err)
	}
	const high = uint64(0xff00000000000081)
	d1 := Descriptor{ID: [32]byte{1}, Public: "one", Ranged: true, RangeEnd: 8}
	d2 := Descriptor{ID: [32]byte{2}, Public: "two", Ranged: true, RangeEnd: 8}
	err = s.Update(ctx, func(tx *Tx) error {
		for _, d := range []*Descriptor{&d1, &d2} {
			seq, err := tx.PutDescriptor(*d)
			if err != nil {
				return err
			}
			d.Seq = seq
		}
		if err := tx.PutChunk(Chunk{DescriptorID: d1.ID, Chunk: 0, FirstIndex: 0, Data: chunkOf(10, 11, high, 13)}); err != nil {
			return err
		}
		if err := tx.PutChunk(Chunk{DescriptorID: d1.ID, Chunk: 4, FirstIndex: 4, Data: chunkOf(14, 15)}); err != nil {
			return err
		}
		return tx.PutChunk(Chunk{DescriptorID: d2.ID, Chunk: 0, FirstIndex: 0, Data: chunkOf(20, high)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Update(ctx, func(tx *Tx) error {
		d := Descriptor{ID: [32]byte{9}, Public: "nine"}
		if _, err := tx.PutDescriptor(d); err != nil {
			return err
		}
		return tx.PutChunk(Chunk{DescriptorID: d.ID, Data: chunkOf(10, 99)})
	}); err != nil {
		t.Fatal(err)
	}
	got := lookup(t, s, 10, 15, high, 99, 1234)
	want := []ScriptRef{{Digest: 10, DescriptorSeq: d1.Seq, FirstIndex: 0, Pos: 0},
		{Digest: 15, DescriptorSeq: d1.Seq, FirstIndex: 4, Pos: 1},
		{Digest: high, DescriptorSeq: d1.Seq, FirstIndex: 0, Pos: 2},
		{Digest: high, DescriptorSeq: d2.Seq, FirstIndex: 0, Pos: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("lookup:\n got %+v\nwant %+v", got, want)
	}

	// Replacing chunk 0 of d1 drops its old digests; deleting d2's
	// chunks drops its rows; a failed transaction keeps nothing.
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutChunk(Chunk{DescriptorID: d1.ID, Chunk: 0, FirstIndex: 0, Data: chunkOf(30, 31)}); err != nil {
			return err
		}
		return tx.DeleteChunks(d2.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	errRollback := context.Canceled
	if err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutChunk(Chunk{DescriptorID: d1.ID, Chunk: 8, FirstIndex: 8, Data: chunkOf(40)}); err != nil {
			return err
		}
		return errRollback
	}); err != errRollback {
		t.Fatalf("rolled back update: %v", err)
	}
	got = lookup(t, s, 10, 11, high, 13, 14, 20, 30, 31, 40)
	want = []ScriptRef{{Digest: 14, DescriptorSeq: d1.Seq, FirstIndex: 4, Pos: 0},
		{Digest: 30, DescriptorSeq: d1.Seq, FirstIndex: 0, Pos: 0},
		{Digest: 31, DescriptorSeq: d1.Seq, FirstIndex: 0, Pos: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("after replace and delete:\n got %+v\nwant %+v", got, want)
	}
	if n, err := s.ScriptCount(ctx); err != nil || n != 4 {
		t.Fatalf("script count %d (%v), want 4", n, err)
	}

	// The wallet's Load leaves the chunks out when asked to.
	if snap, err := s.LoadIndexed(ctx); err != nil || len(snap.Chunks) != 0 || len(snap.Descriptors) != 2 {
		t.Fatalf("LoadIndexed: %v, %+v", err, snap)
	}
	if snap, err := s.Load(ctx); err != nil || len(snap.Chunks) != 2 {
		t.Fatalf("Load: %v, %+v", err, snap)
	}

	if err := s.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.pool.QueryRow(ctx, "SELECT count(*) FROM script_index WHERE wallet_id = $1", s.id).Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left after removal: %d (%v)", left, err)
	}
	if got := lookup(t, other, 10, 99); len(got) != 2 {
		t.Fatalf("other wallet's rows: %+v", got)
	}
}

// TestScriptIndexMigration applies migration 10 to a database whose chunks
// were written before it: every stored digest gets its row.
func TestScriptIndexMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	s, err := db.Create(ctx, "regtest", "old")
	if err != nil {
		t.Fatal(err)
	}
	d := Descriptor{ID: [32]byte{7}, Public: "seven", Ranged: true, RangeEnd: 3}
	if err := s.Update(ctx, func(tx *Tx) error {
		seq, err := tx.PutDescriptor(d)
		d.Seq = seq
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Back to version 9 (the later migrations undone too), with a chunk
	// written the way version 9 did.
	for _, q := range []string{"ALTER TABLE wallet_tx_marks DROP COLUMN mempool_replaced", "ALTER TABLE wallet_tx_marks DROP COLUMN left_mempool",
		"DROP TRIGGER script_index_drop_wallet ON wallets", "DROP FUNCTION script_index_drop_wallet",
		"DROP TABLE script_index", "DELETE FROM descwallet_schema_version WHERE version >= 10"} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const high = uint64(0x8000000000000001)
	if _, err := db.pool.Exec(ctx, `INSERT INTO script_chunks (wallet_id, descriptor_id, chunk, first_index, data)
		VALUES ($1, $2, 1, 1, $3)`, s.id, d.ID[:], chunkOf(5, high, 7)); err != nil {
		t.Fatal(err)
	}
	if err := db.migrate(ctx); err != nil {
		t.Fatal(err)
	}
	got := lookup(t, s, 5, 7, high)
	want := []ScriptRef{{Digest: 5, DescriptorSeq: d.Seq, FirstIndex: 1, Pos: 0},
		{Digest: 7, DescriptorSeq: d.Seq, FirstIndex: 1, Pos: 2},
		{Digest: high, DescriptorSeq: d.Seq, FirstIndex: 1, Pos: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("after migration:\n got %+v\nwant %+v", got, want)
	}
}
