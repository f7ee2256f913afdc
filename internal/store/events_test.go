package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
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

// TestAppendEvents: events appended in one write transaction, in calls
// of any size, get consecutive cursors in order and read back with their
// fields and details (blocks and none, details equal to the event
// before's, other and none), stored as packs of at most maxPackEvents.
func TestAppendEvents(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	var in []Event
	for i := range 2*maxPackEvents + 7 {
		e := Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: int64(100 + i),
			Detail: []byte(fmt.Sprintf(`{"amount":%d}`, i))}
		switch i % 6 {
		case 1, 3:
			e.Kind, e.Depth, e.Height, e.BlockHash = "confirmed", 1, int32(500+i), [32]byte{0xbb, byte(i)}
		case 2, 4:
			// The event before's transaction, block, time and detail.
			e = in[i-1]
			e.Kind, e.Depth = "confirmed", int32(i)
		case 5:
			// The same but for its detail (then none, then empty).
			e = in[i-1]
			e.Kind, e.Detail = "reorged", []byte(`{"amount":-1}`)
			if i > 6 {
				e.Detail = nil
			}
			if i > 12 {
				e.Detail = []byte{}
			}
		}
		in = append(in, e)
	}
	in = append(in, in[len(in)-1]) // the same as the one before
	// One event, then three, then more than a pack, then the rest.
	parts := [][]Event{in[:1], in[1:4], in[4 : 6+maxPackEvents], in[6+maxPackEvents:]}
	err := s.Update(ctx, func(tx *Tx) error {
		for _, part := range parts {
			if err := tx.AppendEvents(part); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var packs, biggest int
	if err := s.db.QueryRow("SELECT count(*), max(last - cursor + 1) FROM wallet_event_packs").Scan(&packs, &biggest); err != nil ||
		packs != (len(in)+maxPackEvents-1)/maxPackEvents || biggest != maxPackEvents {
		t.Fatalf("%d packs, the biggest of %d events, %v", packs, biggest, err)
	}
	for _, limit := range []int{1000, 7} {
		for after := int64(0); after <= int64(len(in)); after += 5 {
			out, _, err := s.Events(ctx, after, limit)
			if err != nil || len(out) != min(limit, len(in)-int(after)) {
				t.Fatalf("after %d: %d events, %v", after, len(out), err)
			}
			for i, e := range out {
				want := in[int(after)+i]
				want.Cursor = after + int64(i) + 1
				if e.Height < 0 {
					want.BlockHash = [32]byte{}
				}
				if fmt.Sprintf("%+v %t", e, e.Detail == nil) != fmt.Sprintf("%+v %t", want, want.Detail == nil) {
					t.Errorf("after %d: event %+v, want %+v", after, e, want)
				}
			}
		}
	}
	// A transaction that fails leaves no event and takes no cursor.
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.AppendEvent(Event{Kind: "received", Height: -1, Time: 1}); err != nil {
			return err
		}
		return errors.New("no")
	})
	if err == nil {
		t.Fatal("the failing transaction committed")
	}
	err = s.Update(ctx, func(tx *Tx) error {
		c, err := tx.AppendEvent(Event{Kind: "received", Height: -1, Time: 1})
		if c != int64(len(in))+1 {
			t.Errorf("cursor %d after a rollback, want %d", c, len(in)+1)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// A depth below zero or a kind too long is refused.
	for _, e := range []Event{{Kind: "confirmed", Depth: -1}, {Kind: strings.Repeat("k", maxEventKind+1)}} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.AppendEvents([]Event{e}) }); err == nil {
			t.Errorf("event %+v appended", e)
		}
	}
}

// TestEventPackEncoding: every field of every event comes back from its
// pack, with the fields equal to the event before's stored once; a body
// cut short, with bytes after it, with unknown flags, or read as holding
// another number of events is refused.
func TestEventPackEncoding(t *testing.T) {
	a := Event{Kind: "received", TxID: [32]byte{1}, Height: 7, BlockHash: [32]byte{2}, Time: -5, Detail: []byte("d")}
	b := a
	b.Kind, b.Depth = "confirmed", 1
	c := Event{Kind: "replaced", TxID: [32]byte{3}, Height: -1, Time: 1 << 40, Detail: []byte{}}
	d := c
	d.Detail = nil
	evs := []Event{a, b, c, d, d}
	body, err := appendEventPack(nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	full, err := appendEventPack(nil, evs[:1])
	if err != nil {
		t.Fatal(err)
	}
	// b repeats a but for kind and depth: flags, kind, depth only.
	withB, _ := appendEventPack(nil, evs[:2])
	if n := len(withB) - len(full); n != 1+1+len("confirmed")+1 {
		t.Errorf("a continued event takes %d bytes", n)
	}
	out, err := decodeEventPack(body, 10, len(evs))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range out {
		want := evs[i]
		want.Cursor = int64(10 + i)
		if fmt.Sprintf("%+v %t", e, e.Detail == nil) != fmt.Sprintf("%+v %t", want, want.Detail == nil) {
			t.Errorf("event %d: %+v, want %+v", i, e, want)
		}
	}
	for _, bad := range []struct {
		what string
		body []byte
		n    int
	}{
		{"short", body[:len(body)-1], len(evs)},
		{"trailing", append(append([]byte{}, body...), 0), len(evs)},
		{"fewer", body, len(evs) - 1},
		{"more", body, len(evs) + 1},
		{"none", nil, 0},
		{"too many", body, maxPackEvents + 1},
		{"first continues", append([]byte{packSameTx}, body[1:]...), len(evs)},
		{"unknown flag", append([]byte{0x40}, body[1:]...), len(evs)},
	} {
		if _, err := decodeEventPack(bad.body, 1, bad.n); err == nil {
			t.Errorf("%s: decoded", bad.what)
		}
	}
}

// FuzzDecodeEventPack: a pack body read from the database never panics,
// and what decodes encodes to a body that decodes the same.
func FuzzDecodeEventPack(f *testing.F) {
	body, _ := appendEventPack(nil, []Event{
		{Kind: "received", TxID: [32]byte{1}, Height: 7, BlockHash: [32]byte{2}, Time: 5, Detail: []byte("{}")},
		{Kind: "confirmed", Depth: 1, TxID: [32]byte{1}, Height: 7, BlockHash: [32]byte{2}, Time: 5, Detail: []byte("{}")},
		{Kind: "reorged", TxID: [32]byte{1}, Height: -1, Time: 6},
	})
	f.Add(body, 3)
	f.Add([]byte{0, 0, 0}, 1)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		evs, err := decodeEventPack(body, 1, n)
		if err != nil {
			return
		}
		again, err := appendEventPack(nil, evs)
		if err != nil {
			t.Fatalf("decoded events do not encode: %v", err)
		}
		evs2, err := decodeEventPack(again, 1, n)
		if err != nil || fmt.Sprint(evs2) != fmt.Sprint(evs) {
			t.Fatalf("re-encoded pack reads %+v, %v; want %+v", evs2, err, evs)
		}
	})
}

// TestContinuedEventDetail: events of wallet_events that continued the
// one before (written by schema version 17: received then confirmed, same
// transaction, block, time and detail, the second with the one byte
// sameDetail) read back whole wherever a read starts, also after
// retention removed the event they continue (its detail moves to them
// first) and after a chain of three; events appended since (packs) follow
// them in cursor order, and retention goes on through both tables.
func TestContinuedEventDetail(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	ev := func(kind string, depth int32, id byte, detail string) Event {
		return Event{Kind: kind, TxID: [32]byte{id}, Depth: depth, Height: 700, BlockHash: [32]byte{0xbb},
			Time: 1700000000, Detail: []byte(detail)}
	}
	in := []Event{
		ev("received", 0, 2, `{"amount":2}`), ev("confirmed", 1, 2, `{"amount":2}`), ev("confirmed", 6, 2, `{"amount":2}`), // cursors 1-3
		ev("received", 0, 1, `{"amount":1}`), ev("confirmed", 1, 1, `{"amount":1}`), // 4, 5
		ev("received", 0, 3, `{"amount":3}`), // 6
	}
	for i, e := range in {
		stored := e.Detail
		if i > 0 && e.TxID == in[i-1].TxID {
			stored = sameDetail
		}
		if _, err := s.db.Exec(`INSERT INTO wallet_events (cursor, kind, txid, depth, block_height, block_hash, time, detail)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, i+1, e.Kind, e.TxID[:], e.Depth, e.Height, e.BlockHash[:], e.Time, stored); err != nil {
			t.Fatal(err)
		}
	}
	// Appended now: packs after the old events.
	added := []Event{ev("received", 0, 4, `{"amount":4}`), ev("confirmed", 1, 4, `{"amount":4}`)}
	err := s.Update(ctx, func(tx *Tx) error {
		c, err := tx.AppendEvent(added[0])
		if c != int64(len(in))+1 {
			t.Errorf("first packed cursor %d", c)
		}
		if err != nil {
			return err
		}
		return tx.AppendEvents(added[1:])
	})
	if err != nil {
		t.Fatal(err)
	}
	in = append(in, added...)
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
			if err != nil || len(one) != 1 || one[0].Cursor != c+1 || string(one[0].Detail) != string(in[c].Detail) {
				t.Fatalf("event %d alone: %+v, %v", c+1, one, err)
			}
		}
	}
	check(0, 0)
	check(1, 1)
	check(2, 2)
	check(4, 4)
	// Retention removes event 1, then 2, then 4: the events that
	// continued them keep their detail; then 6, the last old one, and
	// the packed events stay whole.
	for _, cut := range []int64{1, 2, 4, 6} {
		err := s.Update(ctx, func(tx *Tx) error {
			_, _, err := tx.PruneEvents(int64(len(in))-cut, 0, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		check(cut, int(cut))
	}
	// Keeping one event removes the first of the pack holding both: the
	// other is written again on its own.
	err = s.Update(ctx, func(tx *Tx) error {
		through, removed, err := tx.PruneEvents(1, 0, nil)
		if through != 7 || removed != 1 {
			t.Errorf("pruned through %d, removed %d, want 7 and 1", through, removed)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check(7, 7)
	var packs int
	if err := s.db.QueryRow("SELECT count(*) FROM wallet_event_packs WHERE cursor = 8 AND last = 8").Scan(&packs); err != nil || packs != 1 {
		t.Errorf("the kept event's pack: %d, %v", packs, err)
	}
}

// TestPackRetention: retention removes exactly the events it should when
// they share a pack with events it keeps, by age (events of one pack
// written at different times), by count and up to a delivery target's
// acknowledged cursor, and what stays reads back whole.
func TestPackRetention(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	var in []Event
	for i := range 8 {
		in = append(in, Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: int64(100 * (i + 1)),
			Detail: []byte(fmt.Sprintf(`{"amount":%d}`, i))})
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.AppendEvents(in) }); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDeliveryCursor(ctx, "http://127.0.0.1:9/hook", 5, 1700000000); err != nil {
		t.Fatal(err)
	}
	for _, st := range []struct {
		what                    string
		keep, before            int64
		held                    []string
		wantThrough, wantRemove int64
	}{
		{"older than 250", 0, 250, nil, 2, 2},
		{"keep 5", 5, 0, nil, 3, 1},
		{"keep 1, held at 5", 1, 0, []string{"http://127.0.0.1:9/hook"}, 5, 2},
		{"keep 1", 1, 0, nil, 7, 2},
	} {
		err := s.Update(ctx, func(tx *Tx) error {
			through, removed, err := tx.PruneEvents(st.keep, st.before, st.held)
			if through != st.wantThrough || removed != st.wantRemove {
				t.Errorf("%s: through %d, removed %d; want %d, %d", st.what, through, removed, st.wantThrough, st.wantRemove)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		out, pruned, err := s.Events(ctx, st.wantThrough, 100)
		if err != nil || pruned != st.wantThrough || len(out) != len(in)-int(st.wantThrough) {
			t.Fatalf("%s: %d events, pruned %d, %v", st.what, len(out), pruned, err)
		}
		for i, e := range out {
			want := in[int(st.wantThrough)+i]
			want.Cursor = st.wantThrough + int64(i) + 1
			if fmt.Sprint(e) != fmt.Sprint(want) {
				t.Errorf("%s: %+v, want %+v", st.what, e, want)
			}
		}
	}
}

// tempStore creates a wallet database in a temporary folder, closed when
// the test ends.
func tempStore(t *testing.T) *Store {
	t.Helper()
	s, err := Create(context.Background(), filepath.Join(t.TempDir(), "wallet.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestEventsOddArguments: a read from a cursor so low that the search
// bound of the packs would wrap around returns the whole log, and a limit
// of zero or below returns no event (and the pruned cursor) instead of
// failing or panicking.
func TestEventsOddArguments(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	var in []Event
	for i := range 5 {
		in = append(in, Event{Kind: "received", TxID: [32]byte{byte(i)}, Height: -1, Time: int64(100 + i)})
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.AppendEvents(in) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { _, _, err := tx.PruneEvents(4, 0, nil); return err }); err != nil {
		t.Fatal(err)
	}
	for _, after := range []int64{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + maxPackEvents - 1, -1, 0} {
		out, pruned, err := s.Events(ctx, after, 10)
		if err != nil || len(out) != 4 || out[0].Cursor != 2 || pruned != 1 {
			t.Errorf("after %d: %d events, pruned %d, %v", after, len(out), pruned, err)
		}
	}
	for _, limit := range []int{0, -1, math.MinInt} {
		out, pruned, err := s.Events(ctx, 0, limit)
		if err != nil || len(out) != 0 || pruned != 1 {
			t.Errorf("limit %d: %d events, pruned %d, %v", limit, len(out), pruned, err)
		}
	}
}

// TestPutEventCursorTaken: an event put with its cursor (a copy of a
// log) is refused when a pack holds that cursor, appended in an earlier
// transaction or earlier in the same one, as a row of wallet_events is;
// a free cursor is taken and appends go on after the highest.
func TestPutEventCursorTaken(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	ev := func(c int64) Event { return Event{Cursor: c, Kind: "received", Height: -1, Time: 1} }
	if err := s.Update(ctx, func(tx *Tx) error { return tx.AppendEvents([]Event{ev(0), ev(0), ev(0)}) }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []int64{1, 2, 3} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.PutEvent(ev(c)) }); err == nil {
			t.Errorf("cursor %d of a pack put again", c)
		}
	}
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutEvent(ev(5)); err != nil {
			return err
		}
		if err := tx.PutEvent(ev(5)); err == nil {
			t.Error("cursor 5 of wallet_events put again")
		}
		c, err := tx.AppendEvent(ev(0))
		if err != nil || c != 6 {
			t.Errorf("appended at %d after the put event, %v", c, err)
		}
		if err := tx.PutEvent(ev(6)); err == nil {
			t.Error("cursor 6, appended in the same transaction, put again")
		}
		return nil
	})
	if err == nil {
		err = s.Update(ctx, func(tx *Tx) error { return tx.PutEvent(ev(4)) })
	}
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := s.Events(ctx, 0, 100)
	if err != nil || len(out) != 6 {
		t.Fatalf("%d events, %v", len(out), err)
	}
	for i, e := range out {
		if e.Cursor != int64(i+1) {
			t.Errorf("event %d has cursor %d", i, e.Cursor)
		}
	}
}
