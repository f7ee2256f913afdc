package pgstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// connect opens a fresh database of the shared test server.
func connect(t *testing.T) (*DB, string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	db, err := Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db, dsn
}

// TestMigrations checks that a new database gets every migration once and
// that connecting again (a second node) applies none twice.
func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := connect(t)
	if v, err := db.Version(ctx); err != nil || v != SchemaVersion() || v == 0 {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion())
	}
	db2, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var rows int
	if err := db2.pool.QueryRow(ctx, "SELECT count(*) FROM descwallet_schema_version").Scan(&rows); err != nil || rows != SchemaVersion() {
		t.Fatalf("schema version rows %d (%v)", rows, err)
	}
	// A database written by a newer program is refused.
	if _, err := db.pool.Exec(ctx, "INSERT INTO descwallet_schema_version (version) VALUES ($1)", SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Connect(ctx, dsn); !errors.Is(err, ErrSchema) {
		t.Fatalf("connect to a newer schema: %v", err)
	}
}

// TestRoundTrip writes every kind of record of two wallets in one database
// and reads each wallet back from a second connection: nothing of one
// wallet shows in the other.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := connect(t)
	label := "lbl"
	write := func(s *Store, salt byte) *Snapshot {
		t.Helper()
		want := &Snapshot{Meta: map[string][]byte{"flags": {salt}, "empty": {}}}
		d := Descriptor{ID: [32]byte{salt, 1}, Public: "wpkh(xpub)#c", Ranged: true, RangeStart: 0, RangeEnd: 10,
			NextIndex: 3, Timestamp: 1234, Cache: []byte{salt}}
		d2 := Descriptor{ID: [32]byte{salt, 2}, Public: "pkh(02aa)#c", Timestamp: 5}
		err := s.Update(ctx, func(tx *Tx) error {
			for k, v := range want.Meta {
				if err := tx.PutMeta(k, v); err != nil {
					return err
				}
			}
			for _, x := range []*Descriptor{&d, &d2} {
				seq, err := tx.PutDescriptor(*x)
				if err != nil {
					return err
				}
				x.Seq = seq
			}
			// Updating keeps the sequence number.
			d.NextIndex, d.RangeEnd = 4, 11
			if seq, err := tx.PutDescriptor(d); err != nil || seq != d.Seq {
				t.Errorf("update seq %d, %v", seq, err)
			}
			if err := tx.SetNextIndex(d.ID, 5, 12); err != nil {
				return err
			}
			d.NextIndex, d.RangeEnd = 5, 12
			if err := tx.PutSecret(Secret{DescriptorID: d2.ID, KeyID: []byte("k"), Secret: []byte("old")}); err != nil {
				return err
			}
			if err := tx.PutSecret(Secret{DescriptorID: d2.ID, KeyID: []byte("k"), Secret: []byte{salt, 9}}); err != nil {
				return err
			}
			if err := tx.PutChunk(Chunk{DescriptorID: d.ID, Chunk: 0, FirstIndex: 0, Data: []byte{salt, 3}}); err != nil {
				return err
			}
			if err := tx.PutChunk(Chunk{DescriptorID: d2.ID, Chunk: 0, Data: []byte{4}}); err != nil {
				return err
			}
			if err := tx.DeleteChunks(d2.ID); err != nil {
				return err
			}
			if err := tx.SetActive(Active{OutputType: "bech32", Internal: true, DescriptorID: d2.ID}); err != nil {
				return err
			}
			if err := tx.SetActive(Active{OutputType: "bech32", Internal: true, DescriptorID: d.ID}); err != nil {
				return err
			}
			if err := tx.SetActive(Active{OutputType: "legacy", DescriptorID: d.ID}); err != nil {
				return err
			}
			if err := tx.ClearActive("legacy", false); err != nil {
				return err
			}
			for _, l := range []Label{{Script: []byte{salt, 1}, Label: &label, Purpose: "receive"},
				{Script: []byte{salt, 2}, Purpose: "receive"}, {Script: []byte{salt, 3}, Purpose: "send"}} {
				if err := tx.PutLabel(l); err != nil {
					return err
				}
			}
			if err := tx.DeleteLabel([]byte{salt, 3}); err != nil {
				return err
			}
			for _, op := range []Outpoint{{TxID: [32]byte{salt}, Vout: 1}, {TxID: [32]byte{salt}, Vout: 4294967295}} {
				if err := tx.PutLockedCoin(op); err != nil {
					return err
				}
				if err := tx.PutLockedCoin(op); err != nil {
					return err
				}
			}
			if err := tx.DeleteLockedCoin(Outpoint{TxID: [32]byte{salt}, Vout: 1}); err != nil {
				return err
			}
			if err := tx.PutUsedScript([]byte{salt, 7}); err != nil {
				return err
			}
			if err := tx.PutUsedScript([]byte{salt, 7}); err != nil {
				return err
			}
			if mk, err := tx.MasterKey(); err != nil || mk != nil {
				t.Errorf("master key before any: %v %v", mk, err)
			}
			mk := MasterKey{KDF: "argon2id", TimeCost: 3, MemoryKiB: 65536, Threads: 4, Salt: []byte{salt}, Wrapped: []byte("w")}
			if err := tx.PutMasterKey(mk); err != nil {
				return err
			}
			want.MasterKey = &mk
			secs, err := tx.Secrets()
			if err != nil || len(secs) != 1 || !bytes.Equal(secs[0].Secret, []byte{salt, 9}) {
				t.Errorf("secrets in the transaction: %+v %v", secs, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want.Descriptors = []Descriptor{d, d2}
		want.Secrets = []Secret{{DescriptorID: d2.ID, KeyID: []byte("k"), Secret: []byte{salt, 9}}}
		want.Chunks = []Chunk{{DescriptorID: d.ID, Chunk: 0, FirstIndex: 0, Data: []byte{salt, 3}}}
		want.Active = []Active{{OutputType: "bech32", Internal: true, DescriptorID: d.ID}}
		want.Labels = []Label{{Script: []byte{salt, 1}, Label: &label, Purpose: "receive"}, {Script: []byte{salt, 2}, Purpose: "receive"}}
		want.LockedCoins = []Outpoint{{TxID: [32]byte{salt}, Vout: 4294967295}}
		want.UsedScripts = [][]byte{{salt, 7}}
		return want
	}
	var wants []*Snapshot
	for i, name := range []string{"a", "b/c"} {
		s, err := db.Create(ctx, "regtest", name)
		if err != nil {
			t.Fatal(err)
		}
		wants = append(wants, write(s, byte(i+1)))
		if err := s.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db2, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	for i, name := range []string{"a", "b/c"} {
		s, err := db2.Open(ctx, "regtest", name)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(snap, wants[i]) {
			t.Errorf("wallet %s:\n got %+v\nwant %+v", name, snap, wants[i])
		}
		s.Close()
	}
	if names, err := db2.List(ctx, "regtest"); err != nil || !reflect.DeepEqual(names, []string{"a", "b/c"}) {
		t.Errorf("List: %v %v", names, err)
	}
	if names, err := db2.List(ctx, "main"); err != nil || len(names) != 0 {
		t.Errorf("List of another namespace: %v %v", names, err)
	}
}

// TestChainRoundTrip writes transactions, chain state, a rescan record and
// events, reads them back, and checks rollback, deletion and cursors.
func TestChainRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	s, err := db.Create(ctx, "regtest", "w")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	txA := WalletTx{TxID: [32]byte{1}, Raw: []byte{0xaa}, TimeReceived: 100, TimeSmart: 90, Height: 5,
		BlockHash: [32]byte{5}, BlockTime: 1000, BlockIndex: 2}
	txB := WalletTx{TxID: [32]byte{2}, Raw: []byte{0xbb}, TimeReceived: 101, Height: 9,
		BlockHash: [32]byte{9}, BlockTime: 1009}
	txC := WalletTx{TxID: [32]byte{3}, Raw: []byte{0xcc}, TimeReceived: 102, Height: -1}
	recent := []BlockRef{{Height: 8, Hash: [32]byte{8}}, {Height: 9, Hash: [32]byte{9}}}
	var cursors []int64
	err = s.Update(ctx, func(tx *Tx) error {
		for _, w := range []*WalletTx{&txA, &txB, &txC} {
			seq, err := tx.PutWalletTx(*w)
			if err != nil {
				return err
			}
			w.Seq = seq
		}
		again := txA
		again.TimeReceived, again.TimeSmart = 999, 999
		if seq, err := tx.PutWalletTx(again); err != nil || seq != txA.Seq {
			t.Errorf("second put: seq %d (want %d), %v", seq, txA.Seq, err)
		}
		if err := tx.SetRecentBlocks([]BlockRef{{Height: 1, Hash: [32]byte{1}}}); err != nil {
			return err
		}
		if err := tx.SetRecentBlocks(recent); err != nil {
			return err
		}
		if err := tx.SetRescan(&RescanState{Next: 3, Stop: 9}); err != nil {
			return err
		}
		if err := tx.SetEventDepth(txA.TxID, 6); err != nil {
			return err
		}
		for _, e := range []Event{{Kind: "received", TxID: txA.TxID, Height: -1, Time: 1},
			{Kind: "confirmed", TxID: txA.TxID, Depth: 1, Height: 5, BlockHash: [32]byte{5}, Time: 2},
			{Kind: "confirmed", TxID: txA.TxID, Depth: 6, Height: 5, BlockHash: [32]byte{5}, Time: 3},
			{Kind: "confirmed", TxID: txB.TxID, Depth: 1, Height: 9, BlockHash: [32]byte{9}, Time: 4},
			{Kind: "reorged", TxID: txB.TxID, Height: -1, Time: 5}} {
			c, err := tx.AppendEvent(e)
			if err != nil {
				return err
			}
			cursors = append(cursors, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cursors, []int64{1, 2, 3, 4, 5}) {
		t.Errorf("cursors %v", cursors)
	}
	snap, err := s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deepA := txA
	deepA.EventDepth = 6
	want := &ChainSnapshot{Txs: []WalletTx{deepA, txB, txC}, Recent: recent, Rescan: &RescanState{Next: 3, Stop: 9}}
	if !reflect.DeepEqual(snap, want) {
		t.Fatalf("loaded %+v\nwant %+v", snap, want)
	}
	evs, _, err := s.Events(ctx, 2, 2)
	if err != nil || len(evs) != 2 || evs[0].Cursor != 3 || evs[1].Cursor != 4 || evs[1].Height != 9 || evs[1].BlockHash != [32]byte{9} {
		t.Errorf("events after 2: %+v %v", evs, err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.UnconfirmAbove(6); err != nil {
			return err
		}
		if err := tx.DeleteWalletTx(txC.TxID); err != nil {
			return err
		}
		if err := tx.DeleteWalletTx([32]byte{0xff}); err != nil {
			return err
		}
		if err := tx.PutEvent(Event{Cursor: 10, Kind: "received", TxID: txA.TxID, Height: -1}); err != nil {
			return err
		}
		if c, err := tx.AppendEvent(Event{Kind: "received", TxID: txA.TxID, Height: -1}); err != nil || c != 11 {
			t.Errorf("append after a put cursor 10: %d %v", c, err)
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
	if !reflect.DeepEqual(snap.Txs, []WalletTx{deepA, unconf}) || snap.Rescan != nil {
		t.Errorf("after rollback: %+v", snap)
	}
	// A failed transaction leaves nothing.
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutWalletTx(txC); err != nil {
			return err
		}
		return boom
	}); err != boom {
		t.Fatalf("failed update: %v", err)
	}
	if snap, _ := s.LoadChain(ctx); len(snap.Txs) != 2 {
		t.Errorf("failed update left %d transactions", len(snap.Txs))
	}
}

// TestCreateOpenLock checks the lifecycle of a wallet: invisible until
// Publish, removed by Close before it, locked while open (against this
// process and another connection), recovered after a crash of its creator.
func TestCreateOpenLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dsn := connect(t)
	other, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	s, err := db.Create(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.Exists(ctx, "n", "w"); ok {
		t.Fatal("wallet visible before Publish")
	}
	if _, err := db.Open(ctx, "n", "w"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open before Publish: %v", err)
	}
	if _, err := other.Create(ctx, "n", "w"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Create elsewhere while the first runs: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	db.pool.QueryRow(ctx, "SELECT count(*) FROM wallets").Scan(&n)
	if n != 0 {
		t.Fatalf("Close before Publish left %d wallets", n)
	}

	s, err = db.Create(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create(ctx, "n", "w"); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over a wallet: %v", err)
	}
	if _, err := db.Open(ctx, "n", "w"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open in this process: %v", err)
	}
	if _, err := other.Open(ctx, "n", "w"); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open from another connection: %v", err)
	}
	s.Close()
	if err := s.Update(ctx, func(tx *Tx) error { return nil }); !errors.Is(err, ErrDatabase) {
		t.Fatalf("Update after Close: %v", err)
	}
	s2, err := other.Open(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s2.Load(ctx)
	if err != nil || string(snap.Meta["k"]) != "v" {
		t.Fatalf("load elsewhere: %v %v", snap, err)
	}
	s2.Close()
	if _, err := db.Open(ctx, "n", "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open of a missing wallet: %v", err)
	}

	// A creator that dies (its session ends) leaves a 'creating' row,
	// which Recover removes and which does not block a new Create.
	crashed, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crashed.Create(ctx, "n", "half"); err != nil {
		t.Fatal(err)
	}
	if _, err := crashed.Create(ctx, "n", "half2"); err != nil {
		t.Fatal(err)
	}
	if removed, err := db.Recover(ctx, "n"); err != nil || len(removed) != 0 {
		t.Fatalf("Recover while the creator lives: %v %v", removed, err)
	}
	crashed.Close()
	// The server ends the dead session's locks a moment later.
	s, err = db.Create(ctx, "n", "half2")
	for deadline := time.Now().Add(10 * time.Second); errors.Is(err, ErrLocked) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		s, err = db.Create(ctx, "n", "half2")
	}
	if err != nil {
		t.Fatalf("Create over a remnant: %v", err)
	} else {
		s.Close()
	}
	if removed, err := db.Recover(ctx, "n"); err != nil || !reflect.DeepEqual(removed, []string{"half"}) {
		t.Fatalf("Recover: %v %v", removed, err)
	}
	if names, _ := db.List(ctx, "n"); !reflect.DeepEqual(names, []string{"w"}) {
		t.Fatalf("List after recovery: %v", names)
	}
}

// TestRewrite checks that a marked rewrite is finished by the next Open
// after its writer died, and that afterwards no table file of the cluster
// holds the overwritten secret. It does not run in parallel: a snapshot
// of another session may keep a dead row version alive (see the package
// documentation).
func TestRewrite(t *testing.T) {
	ctx := context.Background()
	db, dsn := connect(t)
	plain := []byte("PLAINTEXT-SECRET-pgstore-0123456789")
	s, err := db.Create(ctx, "n", "enc")
	if err != nil {
		t.Fatal(err)
	}
	id := [32]byte{7}
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutDescriptor(Descriptor{ID: id, Public: "pkh(02aa)#x"}); err != nil {
			return err
		}
		return tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: plain})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Publish(ctx)
	sealed := bytes.Repeat([]byte{0xEE}, 48)
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.MarkRewrite(); err != nil {
			return err
		}
		return tx.PutSecret(Secret{DescriptorID: id, KeyID: []byte("k"), Secret: sealed})
	})
	if err != nil {
		t.Fatal(err)
	}
	// The writer dies before its rewrite.
	db.Close()
	db2, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	s2, err := db2.Open(ctx, "n", "enc")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if p, err := s2.rewritePending(ctx); err != nil || p {
		t.Fatalf("rewrite pending after Open: %v %v", p, err)
	}
	snap, err := s2.Load(ctx)
	if err != nil || len(snap.Secrets) != 1 || !bytes.Equal(snap.Secrets[0].Secret, sealed) {
		t.Fatalf("secrets: %+v %v", snap, err)
	}
	// The table's files on disk hold no copy of the old secret. A
	// snapshot the server itself holds for a moment (autovacuum's
	// analyze) can keep the dead version through one rebuild, so a
	// rebuild is tried again a few times before the test fails.
	for try := 0; ; try++ {
		var file string
		if err := db2.pool.QueryRow(ctx, "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('descriptor_secrets')").Scan(&file); err != nil {
			t.Fatal(err)
		}
		if _, err := db2.pool.Exec(ctx, "CHECKPOINT"); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, sealed) {
			t.Fatalf("the table file %s does not hold the live secret: the search finds nothing", file)
		}
		if !bytes.Contains(data, plain) {
			break
		}
		if try == 3 {
			t.Fatal("the table file still holds the overwritten secret")
		}
		time.Sleep(200 * time.Millisecond)
		if err := s2.Rewrite(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeliveryCursor: a target without a row stands at 0; a stored cursor
// survives a reopen, moves only forward, and is per wallet and target.
func TestDeliveryCursor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	var stores []*Store
	for _, name := range []string{"a", "b"} {
		s, err := db.Create(ctx, "n", name)
		if err != nil {
			t.Fatal(err)
		}
		s.Publish(ctx)
		stores = append(stores, s)
	}
	get := func(s *Store, target string) int64 {
		t.Helper()
		c, err := s.DeliveryCursor(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := get(stores[0], "http://127.0.0.1:1/a"); c != 0 {
		t.Fatalf("new target at %d", c)
	}
	for _, c := range []int64{5, 9, 7} {
		if err := stores[0].SetDeliveryCursor(ctx, "http://127.0.0.1:1/a", c, 1700000000); err != nil {
			t.Fatal(err)
		}
	}
	if err := stores[1].SetDeliveryCursor(ctx, "http://127.0.0.1:1/a", 2, 1700000000); err != nil {
		t.Fatal(err)
	}
	stores[0].Close()
	s, err := db.Open(ctx, "n", "a")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer stores[1].Close()
	if a, b, c := get(s, "http://127.0.0.1:1/a"), get(stores[1], "http://127.0.0.1:1/a"), get(s, "http://127.0.0.1:1/b"); a != 9 || b != 2 || c != 0 {
		t.Fatalf("after reopen: a at %d (want 9), other wallet at %d (want 2), other target at %d (want 0)", a, b, c)
	}
}

// TestLockSessionLost kills the session that holds a node's open locks:
// the node takes them again, except the lock another node took meanwhile,
// whose Store then refuses to write.
func TestLockSessionLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, dsn := connect(t)
	b, err := Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var stores []*Store
	for _, name := range []string{"kept", "taken"} {
		s, err := a.Create(ctx, "n", name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Publish(ctx); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	a.lockMu.Lock()
	pid := a.lockConn.PgConn().PID()
	a.lockMu.Unlock()
	if _, err := b.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	// The other node takes one wallet while the first node's locks are
	// gone.
	var taken *Store
	for deadline := time.Now().Add(10 * time.Second); ; {
		taken, err = b.Open(ctx, "n", "taken")
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	a.checkLocks(ctx)
	put := func(s *Store) error {
		return s.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) })
	}
	if err := put(stores[0]); err != nil {
		t.Fatalf("write to the wallet whose lock was taken again: %v", err)
	}
	if err := put(stores[1]); !errors.Is(err, ErrLocked) {
		t.Fatalf("write to the wallet whose lock the other node took: %v", err)
	}
	if _, err := b.Open(ctx, "n", "kept"); !errors.Is(err, ErrLocked) {
		t.Fatalf("the other node opens the wallet locked again: %v", err)
	}
	if err := put(taken); err != nil {
		t.Fatalf("the new holder writes: %v", err)
	}
}

// TestLockOfDeadPredecessor checks that a node started again after a crash
// waits for the wallet locks its dead run's session still holds, until
// the server ends that session, and that other nodes are still refused at
// once.
func TestLockOfDeadPredecessor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maker, dsn := connect(t)
	s, err := maker.Create(ctx, "n", "w")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	id := s.id
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The dead run's lock session: named after node "a", holding the
	// wallet's lock until the server notices its client is gone.
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = ownerPrefix + "a"
	dead, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close(ctx)
	if _, err := dead.Exec(ctx, "SELECT pg_advisory_lock($1)", lockClass|id); err != nil {
		t.Fatal(err)
	}

	for _, owner := range []string{"", "b"} {
		other, err := ConnectAs(ctx, dsn, owner)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := other.Open(ctx, "n", "w"); !errors.Is(err, ErrLocked) {
			t.Fatalf("node %q opens a wallet another node holds: %v", owner, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("node %q waited %v to be refused a wallet another node holds", owner, d)
		}
		other.Close()
	}

	again, err := ConnectAs(ctx, dsn, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	const gone = 300 * time.Millisecond
	time.AfterFunc(gone, func() { dead.Close(ctx) })
	start := time.Now()
	w, err := again.Open(ctx, "n", "w")
	if err != nil {
		t.Fatalf("node a started again is refused its wallet: %v", err)
	}
	defer w.Close()
	if d := time.Since(start); d < gone {
		t.Fatalf("opened after %v while the dead run's session held the lock", d)
	}
	if err := w.Update(ctx, func(tx *Tx) error { return tx.PutMeta("k", []byte("v")) }); err != nil {
		t.Fatalf("write after the wait: %v", err)
	}
	if _, err := maker.Open(ctx, "n", "w"); !errors.Is(err, ErrLocked) {
		t.Fatalf("another node opens the wallet node a took: %v", err)
	}
}

// TestTxMarks checks the transaction marks: written, read back with the
// chain, replaced, removed when zero and with their transaction.
func TestTxMarks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	s, err := db.Create(ctx, "regtest", "marks")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
		return tx.PutTxMarks(b, TxMarks{Replaces: a, ConflictHash: [32]byte{9}, ConflictHeight: 7})
	})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[[32]byte]TxMarks{a: {ReplacedBy: b, MempoolReplaced: [32]byte{5}}, b: {Replaces: a, ConflictHash: [32]byte{9}, ConflictHeight: 7}}; !reflect.DeepEqual(snap.Marks, want) {
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

// eventLog is storetest's view of one wallet's event log.
type eventLog struct{ s *Store }

func (l eventLog) Append(tm int64, detail []byte) (int64, error) {
	var c int64
	err := l.s.Update(context.Background(), func(tx *Tx) error {
		var err error
		c, err = tx.AppendEvent(Event{Kind: "received", Height: -1, Time: tm, Detail: detail})
		return err
	})
	return c, err
}

func (l eventLog) Prune(keep, before int64, held []string) (through, removed int64, err error) {
	err = l.s.Update(context.Background(), func(tx *Tx) error {
		var err error
		through, removed, err = tx.PruneEvents(keep, before, held)
		return err
	})
	return through, removed, err
}

func (l eventLog) Events(after int64) ([]int64, [][]byte, int64, error) {
	evs, pruned, err := l.s.Events(context.Background(), after, 100)
	var cs []int64
	var ds [][]byte
	for _, e := range evs {
		cs, ds = append(cs, e.Cursor), append(ds, e.Detail)
	}
	return cs, ds, pruned, err
}

func (l eventLog) Ack(target string, cursor int64) error {
	return l.s.SetDeliveryCursor(context.Background(), target, cursor, 1700000000)
}

// TestEventRetention runs the retention rules every store shares, each
// wallet beside a neighbour in the same database that holds ten events of
// its own and has acknowledged all but the last to every target: pruning
// one wallet's log leaves the other's whole, and a cursor acknowledged in
// one wallet does not count for another.
func TestEventRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := connect(t)
	storetest.EventRetention(t, func(t *testing.T) storetest.EventLog {
		var logs []eventLog
		for _, name := range []string{t.Name(), t.Name() + " neighbour"} {
			s, err := db.Create(ctx, "regtest", name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			logs = append(logs, eventLog{s})
		}
		n := logs[1]
		for i := range 10 {
			if _, err := n.Append(int64(100+i), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, target := range []string{"http://127.0.0.1:1/a", "http://127.0.0.1:1/b"} {
			if err := n.Ack(target, 9); err != nil {
				t.Fatal(err)
			}
		}
		// Cleanups run last first: this one before the stores close.
		t.Cleanup(func() {
			if cs, _, pruned, err := n.Events(0); err != nil || pruned != 0 || len(cs) != 10 {
				t.Errorf("the neighbour: %d events, pruned %d, %v", len(cs), pruned, err)
			}
		})
		return logs[0]
	})
}
