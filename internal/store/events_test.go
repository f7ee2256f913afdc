package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// TestEventDepthMigration: a version 7 file (before migrations 8 to 10), whose reported depths live
// only in the event log, gets them per transaction (a reorged transaction
// none, one confirmed again after its reorg its new depth).
func TestEventDepthMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:7] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("migration %d: %v", m.version, err)
		}
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range []any{10, 11, nil} {
		exec(`INSERT INTO wallet_txs (txid, seq, raw, time_received, block_hash, block_height) VALUES (?, ?, x'00', 1, ?, ?)`,
			[]byte(fmt.Sprintf("%032d", i)), i+1, map[bool]any{true: []byte(fmt.Sprintf("%032d", 50+i)), false: nil}[h != nil], h)
	}
	ev := func(tx int, kind string, depth int) {
		exec(`INSERT INTO wallet_events (kind, txid, depth, time) VALUES (?, ?, ?, 1)`, kind, []byte(fmt.Sprintf("%032d", tx)), depth)
	}
	ev(0, "received", 0)
	ev(0, "confirmed", 1)
	ev(0, "confirmed", 6)
	ev(1, "confirmed", 1)
	ev(1, "confirmed", 6)
	ev(1, "reorged", 0)
	ev(1, "confirmed", 1)
	ev(2, "confirmed", 1)
	ev(2, "reorged", 0)
	exec("PRAGMA user_version = 7")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.LoadChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for _, tx := range snap.Txs {
		got = append(got, tx.EventDepth)
	}
	if fmt.Sprint(got) != "[6 1 0]" {
		t.Errorf("event depths %v, want [6 1 0]", got)
	}
	evs, pruned, err := s.Events(ctx, 0, 100)
	if err != nil || len(evs) != 9 || pruned != 0 || evs[0].Detail != nil {
		t.Errorf("old events: %d, pruned %d, %v", len(evs), pruned, err)
	}
}

// TestPruneEvents: retention by count and by age removes a prefix of the
// log, records how far, and never goes back.
func TestPruneEvents(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Ten events written at times 100..109, the fifth at 200 (a clock
	// that went back afterwards).
	err = s.Update(ctx, func(tx *Tx) error {
		for i := 0; i < 10; i++ {
			tm := int64(100 + i)
			if i == 4 {
				tm = 200
			}
			if _, err := tx.AppendEvent(Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: tm,
				Detail: []byte(`{"amount":1}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	prune := func(keep, before int64) (int64, int64) {
		t.Helper()
		var through, removed int64
		err := s.Update(ctx, func(tx *Tx) error {
			var err error
			through, removed, err = tx.PruneEvents(keep, before, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return through, removed
	}
	first := func() int64 {
		t.Helper()
		evs, _, err := s.Events(ctx, 0, 100)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events: %v %v", evs, err)
		}
		return evs[0].Cursor
	}
	if th, n := prune(8, 0); th != 2 || n != 2 || first() != 3 {
		t.Errorf("keep 8: through %d removed %d first %d", th, n, first())
	}
	// Older than 103: events 1..3 (cursor 4 is at time 103).
	if th, n := prune(0, 103); th != 3 || n != 1 || first() != 4 {
		t.Errorf("before 103: through %d removed %d first %d", th, n, first())
	}
	// Older than 150: stops at cursor 5, written at 200, keeping the log a
	// suffix.
	if th, n := prune(0, 150); th != 4 || n != 1 || first() != 5 {
		t.Errorf("before 150: through %d removed %d first %d", th, n, first())
	}
	// Both: the count removes more.
	if th, n := prune(3, 150); th != 7 || n != 3 || first() != 8 {
		t.Errorf("keep 3 before 150: through %d removed %d first %d", th, n, first())
	}
	if th, n := prune(5, 0); th != 7 || n != 0 {
		t.Errorf("keep 5 after keep 3: through %d removed %d", th, n)
	}
	evs, pruned, err := s.Events(ctx, 2, 100)
	if err != nil || pruned != 7 || len(evs) != 3 || string(evs[0].Detail) != `{"amount":1}` {
		t.Errorf("after pruning: %+v pruned %d %v", evs, pruned, err)
	}
	// Everything older than 1000: all but the newest event go, and
	// cursors go on.
	if th, n := prune(0, 1000); th != 9 || n != 2 {
		t.Errorf("before 1000: through %d removed %d", th, n)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		c, err := tx.AppendEvent(Event{Kind: "received", Height: -1, Time: 2000})
		if c != 11 {
			t.Errorf("cursor after an emptied log: %d", c)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPruneEventsHeldByDeliveries: retention never removes an event a
// delivery target has not acknowledged; one that acknowledged nothing
// holds the whole log, and targets not named (a webhook no longer
// configured) hold nothing.
func TestPruneEventsHeldByDeliveries(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, func(tx *Tx) error {
		for i := range 10 {
			if _, err := tx.AppendEvent(Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1,
				Time: int64(100 + i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const a, b, gone = "http://127.0.0.1:1/a", "http://127.0.0.1:1/b", "http://127.0.0.1:1/gone"
	prune := func(keep int64, held ...string) (int64, int64) {
		t.Helper()
		var through, removed int64
		err := s.Update(ctx, func(tx *Tx) error {
			var err error
			through, removed, err = tx.PruneEvents(keep, 0, held)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return through, removed
	}
	if err := s.SetDeliveryCursor(ctx, gone, 1, 1700000000); err != nil {
		t.Fatal(err)
	}
	// b never acknowledged: nothing goes.
	if th, n := prune(2, a, b); th != 0 || n != 0 {
		t.Errorf("b acknowledged nothing: through %d removed %d", th, n)
	}
	if err := s.SetDeliveryCursor(ctx, a, 6, 1700000000); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDeliveryCursor(ctx, b, 3, 1700000000); err != nil {
		t.Fatal(err)
	}
	// Up to the lowest acknowledged cursor, b's.
	if th, n := prune(2, a, b); th != 3 || n != 3 {
		t.Errorf("b at 3: through %d removed %d", th, n)
	}
	if err := s.SetDeliveryCursor(ctx, b, 9, 1700000000); err != nil {
		t.Fatal(err)
	}
	// Now a's 6 bounds it, below the count's 8.
	if th, n := prune(2, a, b); th != 6 || n != 3 {
		t.Errorf("a at 6: through %d removed %d", th, n)
	}
	// The retention bound when it is the lower one; the target that is
	// no longer named holds nothing.
	if th, n := prune(3, b); th != 7 || n != 1 {
		t.Errorf("keep 3, b at 9: through %d removed %d", th, n)
	}
	evs, pruned, err := s.Events(ctx, 7, 100)
	if err != nil || pruned != 7 || len(evs) != 3 || evs[0].Cursor != 8 {
		t.Errorf("after pruning: %+v pruned %d %v", evs, pruned, err)
	}
}

// TestEventCursorMigration: a version 13 file whose log was pruned keeps
// its events and cursors through version 14, and the next cursor follows
// the newest, never one that was handed out before.
func TestEventCursorMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wallet.sqlite")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:13] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("migration %d: %v", m.version, err)
		}
	}
	for i := range 5 {
		if _, err := db.Exec(`INSERT INTO wallet_events (kind, txid, depth, time, detail) VALUES ('received', ?, 0, ?, ?)`,
			[]byte(fmt.Sprintf("%032d", i)), 100+i, []byte(fmt.Sprintf(`{"amount":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("DELETE FROM wallet_events WHERE cursor <= 3"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 13"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, _, err := s.Events(ctx, 0, 100)
	if err != nil || len(evs) != 2 || evs[0].Cursor != 4 || evs[1].Cursor != 5 ||
		string(evs[1].Detail) != `{"amount":4}` || evs[1].Time != 104 {
		t.Fatalf("events after the migration: %+v %v", evs, err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		c, err := tx.AppendEvent(Event{Kind: "received", Height: -1, Time: 200})
		if c != 6 {
			t.Errorf("next cursor %d, want 6", c)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var seq int
	if err := s.db.QueryRow("SELECT count(*) FROM sqlite_sequence WHERE name = 'wallet_events'").Scan(&seq); err != nil || seq != 0 {
		t.Errorf("wallet_events still in sqlite_sequence: %d %v", seq, err)
	}
}

// TestAppendEvents: events appended together (two a statement, then the
// odd one) get consecutive cursors in order, with their columns and
// details, blocks and no blocks alike.
func TestAppendEvents(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var in []Event
	for i := range 5 {
		e := Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: int64(100 + i),
			Detail: []byte(fmt.Sprintf(`{"amount":%d}`, i))}
		if i%2 == 1 {
			e.Kind, e.Depth, e.Height, e.BlockHash = "confirmed", 1, int32(500+i), [32]byte{0xbb, byte(i)}
		}
		in = append(in, e)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.AppendEvents(in[:1]); err != nil {
			return err
		}
		return tx.AppendEvents(in[1:])
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := s.Events(ctx, 0, 100)
	if err != nil || len(out) != len(in) {
		t.Fatalf("%d events, %v", len(out), err)
	}
	for i, e := range out {
		want := in[i]
		want.Cursor = int64(i + 1)
		if fmt.Sprint(e) != fmt.Sprint(want) {
			t.Errorf("event %d: %+v, want %+v", i, e, want)
		}
	}
}
