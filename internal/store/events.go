package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Event is one entry of the wallet's event log. Height is -1 when the
// transaction has no block (BlockHash is then zero).
type Event struct {
	// Cursor is the event's position, assigned by AppendEvent: it only
	// grows and is never reused.
	Cursor    int64
	Kind      string
	TxID      [32]byte
	Depth     int32
	Height    int32
	BlockHash [32]byte
	Time      int64
	// Detail is the wallet's encoding of the rest of the event, kept as
	// given (nil for events written before schema version 10).
	Detail []byte
}

// metaEventsPruned is the meta key of the highest cursor retention
// removed: 8 bytes big-endian, absent when none was.
const metaEventsPruned = "events_pruned_through"

// queryAppendPack writes one pack of events (eventpack.go).
const queryAppendPack = "INSERT INTO wallet_event_packs (cursor, last, time, body) VALUES (?, ?, ?, ?)"

// AppendEvent adds an event in the write transaction and returns its
// cursor.
func (t *Tx) AppendEvent(e Event) (int64, error) {
	if err := t.AppendEvents([]Event{e}); err != nil {
		return 0, err
	}
	return t.pending[len(t.pending)-1].Cursor, nil
}

// AppendEvents adds the events in order in the write transaction, with
// consecutive cursors after the highest: all the events a transaction
// appends are written together when it commits, as packs.
func (t *Tx) AppendEvents(evs []Event) error {
	if t.nextEvent == 0 {
		next, err := t.readNextEvent()
		if err != nil {
			return err
		}
		t.nextEvent = next
	}
	for _, e := range evs {
		if e.Depth < 0 || len(e.Kind) > maxEventKind {
			return storeErr(ErrDatabase, fmt.Sprintf("write event: depth %d, kind of %d bytes", e.Depth, len(e.Kind)), nil)
		}
		e.Cursor = t.nextEvent
		t.nextEvent++
		if t.pending == nil {
			t.pending = make([]Event, 0, max(len(evs), 4))
		}
		t.pending = append(t.pending, e)
	}
	return nil
}

// readNextEvent is the cursor after the highest of the log: the store's
// when its last commit left it known, else read from both tables.
func (t *Tx) readNextEvent() (int64, error) {
	if t.s.nextEvent > 0 {
		return t.s.nextEvent, nil
	}
	last, err := lastEvent(t.ctx, t.tx)
	if err != nil {
		return 0, err
	}
	return last + 1, nil
}

// lastEvent is the highest cursor the log holds (0 when empty): only
// pruning removes events, and it keeps the newest, so the next cursor
// follows it and none is handed out twice.
func lastEvent(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var last int64
	err := q.QueryRowContext(ctx, `SELECT max(coalesce((SELECT max(cursor) FROM wallet_events), 0),
		coalesce((SELECT last FROM wallet_event_packs ORDER BY cursor DESC LIMIT 1), 0))`).Scan(&last)
	if err != nil {
		return 0, storeErr(ErrDatabase, "read events", err)
	}
	return last, nil
}

// flushEvents writes the pending events as packs of at most
// maxPackEvents.
func (t *Tx) flushEvents() error {
	evs := t.pending
	t.pending = nil
	size := 0
	for _, e := range evs[:min(len(evs), maxPackEvents)] {
		size += packEventSize + len(e.Kind) + len(e.Detail)
	}
	buf := make([]byte, 0, size)
	for len(evs) > 0 {
		n := min(len(evs), maxPackEvents)
		var err error
		if buf, err = t.putPack(buf, evs[:n]); err != nil {
			return storeErr(ErrDatabase, "write event", err)
		}
		evs = evs[n:]
	}
	return nil
}

// putPack writes evs, at most maxPackEvents with consecutive cursors, as
// one row of wallet_event_packs, its body encoded in buf's storage, which
// it returns for the next.
func (t *Tx) putPack(buf []byte, evs []Event) ([]byte, error) {
	body, err := appendEventPack(buf[:0], evs)
	if err != nil {
		return buf, err
	}
	latest := evs[0].Time
	for _, e := range evs[1:] {
		latest = max(latest, e.Time)
	}
	_, err = t.execPrepared(queryAppendPack, evs[0].Cursor, evs[len(evs)-1].Cursor, latest, body)
	return body, err
}

// packRow is the events of a row of wallet_event_packs.
func packRow(first, last int64, body []byte) ([]Event, error) {
	if last-first >= maxPackEvents {
		return nil, storeErr(ErrDatabase, fmt.Sprintf("read events: pack %d..%d", first, last), nil)
	}
	evs, err := decodeEventPack(body, first, int(last-first+1))
	if err != nil {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	return evs, nil
}

// sameDetail is the detail stored in wallet_events (schema versions 17
// to 18) for an event that continued the one before it in the same
// statement: its detail is that event's, stored once. A detail the
// wallet writes is JSON and never this byte.
var sameDetail = []byte{0}

// continuedDetail returns the detail of the event that the event at
// cursor, stored with sameDetail, continues: the nearest event before it
// with a detail of its own, which has its transaction (PruneEvents never
// removes it alone).
func continuedDetail(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, cursor int64, txid [32]byte) ([]byte, error) {
	var id, detail []byte
	err := q.QueryRowContext(ctx, `SELECT txid, detail FROM wallet_events WHERE cursor < ?
		AND (detail IS NULL OR detail != X'00') ORDER BY cursor DESC LIMIT 1`, cursor).Scan(&id, &detail)
	if err != nil && err != sql.ErrNoRows {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	if err == sql.ErrNoRows || !bytes.Equal(id, txid[:]) {
		return nil, storeErr(ErrDatabase, fmt.Sprintf("read events: the event before event %d is missing", cursor), nil)
	}
	return detail, nil
}

// Events returns at most limit events whose cursor is above after, in
// cursor order (none when limit is not above 0), and the highest cursor
// retention removed (0 when none), read together.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]Event, int64, error) {
	var out []Event
	var pruned int64
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		if pruned, err = eventsPruned(ctx, tx); err != nil || limit <= 0 {
			return err
		}
		old, err := oldEvents(ctx, tx, after, limit)
		if err != nil {
			return err
		}
		packed, err := packedEvents(ctx, tx, after, limit)
		if err != nil {
			return err
		}
		// Events written before schema version 18 have the lower
		// cursors; a restored log (PutEvent) may have put some anywhere.
		out = append(old, packed...)
		slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.Cursor, b.Cursor) })
		if len(out) > limit {
			out = out[:limit]
		}
		return nil
	})
	return out, pruned, err
}

// oldEvents returns at most limit events of wallet_events (those written
// before schema version 18, and restored ones) above after, in order.
func oldEvents(ctx context.Context, tx *sql.Tx, after int64, limit int) ([]Event, error) {
	var out []Event
	rows, err := tx.QueryContext(ctx, `SELECT cursor, kind, txid, depth, block_height, block_hash, time, detail
		FROM wallet_events WHERE cursor > ? ORDER BY cursor LIMIT ?`, after, limit)
	if err != nil {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	for rows.Next() {
		var e Event
		var id, hash []byte
		var height sql.NullInt64
		if err := rows.Scan(&e.Cursor, &e.Kind, &id, &e.Depth, &height, &hash, &e.Time, &e.Detail); err != nil {
			rows.Close()
			return nil, storeErr(ErrDatabase, "read events", err)
		}
		copy(e.TxID[:], id)
		e.Height = -1
		if height.Valid {
			e.Height = int32(height.Int64)
			copy(e.BlockHash[:], hash)
		}
		out = append(out, e)
	}
	if err := closeRows(rows); err != nil {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	for i := range out {
		e := &out[i]
		if !bytes.Equal(e.Detail, sameDetail) {
			continue
		}
		if i > 0 && out[i-1].Cursor == e.Cursor-1 && out[i-1].TxID == e.TxID {
			e.Detail = out[i-1].Detail // resolved already
			continue
		}
		if e.Detail, err = continuedDetail(ctx, tx, e.Cursor, e.TxID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// packedEvents returns at most limit events of wallet_event_packs above
// after, in order. The pack holding after+1 starts at most maxPackEvents-1
// before it, so the rowid range bounds the search (from the lowest cursor
// when after is so low that the bound would wrap around).
func packedEvents(ctx context.Context, tx *sql.Tx, after int64, limit int) ([]Event, error) {
	var out []Event
	from := int64(math.MinInt64)
	if after >= math.MinInt64+maxPackEvents {
		from = after - maxPackEvents
	}
	rows, err := tx.QueryContext(ctx, `SELECT cursor, last, body FROM wallet_event_packs
		WHERE cursor > ? AND last > ? ORDER BY cursor`, from, after)
	if err != nil {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	for len(out) < limit && rows.Next() {
		var first, last int64
		var body []byte
		if err := rows.Scan(&first, &last, &body); err != nil {
			rows.Close()
			return nil, storeErr(ErrDatabase, "read events", err)
		}
		evs, err := packRow(first, last, body)
		if err != nil {
			rows.Close()
			return nil, err
		}
		for _, e := range evs {
			if e.Cursor > after && len(out) < limit {
				out = append(out, e)
			}
		}
	}
	if err := closeRows(rows); err != nil {
		return nil, storeErr(ErrDatabase, "read events", err)
	}
	return out, nil
}

// eventsPruned reads the highest cursor retention removed.
func eventsPruned(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var v []byte
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", metaEventsPruned).Scan(&v)
	switch {
	case err == sql.ErrNoRows:
		return 0, nil
	case err != nil:
		return 0, storeErr(ErrDatabase, "read event retention", err)
	case len(v) != 8:
		return 0, nil
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// PruneEvents removes the oldest events: all but the newest keep cursors
// when keep is above 0, and those older than the first event written at
// or after before (UNIX seconds) when before is above 0, but never one
// that a delivery target of held has not acknowledged (one with no
// acknowledged cursor holds the whole log). Only a prefix of the log is
// ever removed, so that a cursor is either kept with all that follow it or
// older than everything kept; the newest event always stays, so that a
// copy of the log (backupwallet) goes on after its cursor. A pack holding
// both events removed and kept is written again with the kept ones. It
// returns the highest cursor removed so far (0 when none) and how many
// events this call removed.
func (t *Tx) PruneEvents(keep, before int64, held []string) (through int64, removed int64, err error) {
	if err := t.flushEvents(); err != nil {
		return 0, 0, err
	}
	if through, err = eventsPruned(t.ctx, t.tx); err != nil {
		return 0, 0, err
	}
	last, err := lastEvent(t.ctx, t.tx)
	if err != nil || last == 0 {
		return through, 0, err
	}
	cut := int64(0)
	if keep > 0 {
		// Cursors have no gaps (a cursor is taken again after a
		// rollback; only pruning removes events).
		cut = last - keep
	}
	if before > 0 {
		first, err := t.firstEventSince(before, last+1)
		if err != nil {
			return 0, 0, err
		}
		cut = max(cut, first-1)
	}
	cut = min(cut, last-1)
	for _, target := range held {
		if cut <= through {
			break
		}
		var acked int64
		err := t.tx.QueryRowContext(t.ctx, "SELECT cursor FROM event_deliveries WHERE target = ?", target).Scan(&acked)
		if err != nil && err != sql.ErrNoRows {
			return 0, 0, storeErr(ErrDatabase, "read delivery cursor", err)
		}
		cut = min(cut, acked)
	}
	if cut <= through {
		return through, 0, nil
	}
	// An event of wallet_events continuing one removed gets its own
	// detail first.
	var first int64
	var id, detail []byte
	err = t.tx.QueryRowContext(t.ctx, "SELECT cursor, txid, detail FROM wallet_events WHERE cursor > ? ORDER BY cursor LIMIT 1",
		cut).Scan(&first, &id, &detail)
	switch {
	case err == sql.ErrNoRows:
	case err != nil:
		return 0, 0, storeErr(ErrDatabase, "read events", err)
	case bytes.Equal(detail, sameDetail):
		var txid [32]byte
		copy(txid[:], id)
		own, err := continuedDetail(t.ctx, t.tx, first, txid)
		if err != nil {
			return 0, 0, err
		}
		if _, err := t.tx.ExecContext(t.ctx, "UPDATE wallet_events SET detail = ? WHERE cursor = ?", own, first); err != nil {
			return 0, 0, storeErr(ErrDatabase, "remove events", err)
		}
	}
	var packed int64
	if err := t.tx.QueryRowContext(t.ctx, `SELECT coalesce(sum(min(last, ?1) - cursor + 1), 0)
		FROM wallet_event_packs WHERE cursor <= ?1`, cut).Scan(&packed); err != nil {
		return 0, 0, storeErr(ErrDatabase, "read events", err)
	}
	if err := t.splitPack(cut); err != nil {
		return 0, 0, err
	}
	if _, err := t.tx.ExecContext(t.ctx, "DELETE FROM wallet_event_packs WHERE cursor <= ?", cut); err != nil {
		return 0, 0, storeErr(ErrDatabase, "remove events", err)
	}
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM wallet_events WHERE cursor <= ?", cut)
	if err != nil {
		return 0, 0, storeErr(ErrDatabase, "remove events", err)
	}
	if removed, err = res.RowsAffected(); err != nil {
		return 0, 0, storeErr(ErrDatabase, "remove events", err)
	}
	if err := t.PutMeta(metaEventsPruned, binary.BigEndian.AppendUint64(nil, uint64(cut))); err != nil {
		return 0, 0, err
	}
	return cut, removed + packed, nil
}

// splitPack writes the pack holding the events cut and cut+1, if one does,
// again with the events after cut only, so that retention removes exactly
// the events through cut.
func (t *Tx) splitPack(cut int64) error {
	var first, last int64
	var body []byte
	err := t.tx.QueryRowContext(t.ctx, `SELECT cursor, last, body FROM wallet_event_packs WHERE cursor <= ?1 AND last > ?1
		ORDER BY cursor DESC LIMIT 1`, cut).Scan(&first, &last, &body)
	switch {
	case err == sql.ErrNoRows:
		return nil
	case err != nil:
		return storeErr(ErrDatabase, "read events", err)
	}
	evs, err := packRow(first, last, body)
	if err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.ctx, "DELETE FROM wallet_event_packs WHERE cursor = ?", first); err != nil {
		return storeErr(ErrDatabase, "remove events", err)
	}
	if _, err := t.putPack(nil, evs[cut-first+1:]); err != nil {
		return storeErr(ErrDatabase, "remove events", err)
	}
	return nil
}

// firstEventSince is the cursor of the first event written at or after
// the time since, in either table; none when no event is.
func (t *Tx) firstEventSince(since, none int64) (int64, error) {
	first := none
	err := t.tx.QueryRowContext(t.ctx, "SELECT cursor FROM wallet_events WHERE time >= ? ORDER BY cursor LIMIT 1",
		since).Scan(&first)
	if err != nil && err != sql.ErrNoRows {
		return 0, storeErr(ErrDatabase, "read events", err)
	}
	// A pack's time is its latest event's: the first pack holding one
	// written since then holds the first such event.
	var pFirst, pLast int64
	var body []byte
	err = t.tx.QueryRowContext(t.ctx, `SELECT cursor, last, body FROM wallet_event_packs WHERE time >= ?
		ORDER BY cursor LIMIT 1`, since).Scan(&pFirst, &pLast, &body)
	switch {
	case err == sql.ErrNoRows:
		return first, nil
	case err != nil:
		return 0, storeErr(ErrDatabase, "read events", err)
	case pFirst >= first:
		return first, nil
	}
	evs, err := packRow(pFirst, pLast, body)
	if err != nil {
		return 0, err
	}
	for _, e := range evs {
		if e.Time >= since {
			return e.Cursor, nil
		}
	}
	return 0, storeErr(ErrDatabase, fmt.Sprintf("read events: pack %d..%d has no event as late as its time", pFirst, pLast), nil)
}
