package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/descwallet/descwallet/internal/storetest"
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

// eventLog is storetest's view of a wallet file's event log.
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

// TestEventRetention runs the retention rules every store shares.
func TestEventRetention(t *testing.T) {
	storetest.EventRetention(t, func(t *testing.T) storetest.EventLog {
		s, err := Create(context.Background(), filepath.Join(t.TempDir(), "wallet.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return eventLog{s}
	})
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

// TestAppendEvents: events appended together (up to eventBatch a
// statement, then the rest) get consecutive cursors in order, with their
// columns and details, blocks and no blocks alike, whatever the size of
// the batch.
func TestAppendEvents(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var in []Event
	for i := range 3*eventBatch + 5 {
		e := Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: int64(100 + i),
			Detail: []byte(fmt.Sprintf(`{"amount":%d}`, i))}
		switch i % 6 {
		case 1, 3:
			e.Kind, e.Depth, e.Height, e.BlockHash = "confirmed", 1, int32(500+i), [32]byte{0xbb, byte(i)}
		case 2, 4:
			// The event before's transaction, block, time and detail:
			// one statement names them once.
			e = in[i-1]
			e.Kind, e.Depth = "confirmed", int32(i)
		case 5:
			// The same but for its detail (then none, then none again).
			e = in[i-1]
			e.Kind, e.Detail = "reorged", []byte(`{"amount":-1}`)
			if i > 6 {
				e.Detail = nil
			}
		}
		in = append(in, e)
	}
	in = append(in, in[len(in)-1]) // no detail, as the one before
	err = s.Update(ctx, func(tx *Tx) error {
		// Batches of 1, 3, eventBatch+1 and the rest.
		for _, part := range [][]Event{in[:1], in[1:4], in[4 : 5+eventBatch], in[5+eventBatch : 6+2*eventBatch], in[6+2*eventBatch:]} {
			if err := tx.AppendEvents(part); err != nil {
				return err
			}
		}
		return nil
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

// TestContinuedEventDetail: an event that continues the one before it
// (received then confirmed, same transaction, block, time and detail)
// stores its detail once, and reads it back whole wherever a read starts,
// also after retention removed the event it continues (that one's detail
// moves to it first), and after a chain of three.
func TestContinuedEventDetail(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev := func(kind string, depth int32, id byte, detail string) Event {
		return Event{Kind: kind, TxID: [32]byte{id}, Depth: depth, Height: 700, BlockHash: [32]byte{0xbb},
			Time: 1700000000, Detail: []byte(detail)}
	}
	in := []Event{
		ev("received", 0, 2, `{"amount":2}`), ev("confirmed", 1, 2, `{"amount":2}`), ev("confirmed", 6, 2, `{"amount":2}`), // cursors 1-3
		ev("received", 0, 1, `{"amount":1}`), ev("confirmed", 1, 1, `{"amount":1}`), // 4, 5
		ev("received", 0, 3, `{"amount":3}`), // 6
	}
	err = s.Update(ctx, func(tx *Tx) error {
		for _, part := range [][]Event{in[:3], in[3:5], in[5:]} {
			if err := tx.AppendEvents(part); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stored []int
	rows, err := s.db.QueryContext(ctx, "SELECT length(detail) FROM wallet_events ORDER BY cursor")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		rows.Scan(&n)
		stored = append(stored, n)
	}
	rows.Close()
	if fmt.Sprint(stored) != "[12 1 1 12 1 12]" {
		t.Fatalf("stored detail lengths %v, want the continued events' one byte", stored)
	}
	check := func(after int64, from int) {
		t.Helper()
		out, _, err := s.Events(ctx, after, 100)
		if err != nil {
			t.Fatalf("after %d: %v", after, err)
		}
		if len(out) != len(in)-from {
			t.Fatalf("after %d: %d events", after, len(out))
		}
		for i, e := range out {
			want := in[from+i]
			want.Cursor = int64(from + i + 1)
			if fmt.Sprint(e) != fmt.Sprint(want) {
				t.Errorf("after %d, event %d: %+v, want %+v", after, e.Cursor, e, want)
			}
		}
		// One at a time: each read starts at a continued event.
		for c := after; c < int64(len(in)); c++ {
			one, _, err := s.Events(ctx, c, 1)
			if err != nil || len(one) != 1 || string(one[0].Detail) != string(in[c].Detail) {
				t.Fatalf("event %d alone: %+v, %v", c+1, one, err)
			}
		}
	}
	check(0, 0)
	check(1, 1)
	check(2, 2)
	check(4, 4)
	// Retention removes event 1, then 2, then 4: the events that
	// continued them keep their detail.
	for _, cut := range []int64{1, 2, 4} {
		err := s.Update(ctx, func(tx *Tx) error {
			_, _, err := tx.PruneEvents(int64(len(in))-cut, 0, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		check(cut, int(cut))
	}
}
