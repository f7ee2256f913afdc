package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
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

// eventBatch is the most events one statement appends: a payment's
// received and confirmed events with a depth reached at the same block's
// checkpoint are three.
const eventBatch = 4

// queryAppendEvents[n-1][mask] appends n events in one statement (the
// driver's cost is mostly per statement and per bound value, not per
// row). Bit i-1 of mask set: event i continues event i-1, with the same
// transaction, block, time and detail (a payment's received and confirmed
// events), and binds only its kind and depth, the rest naming the
// parameters of the event it continues; its detail is stored as
// sameDetail, and read as that of the event it continues.
var queryAppendEvents = func() (qs [eventBatch][]string) {
	for n := 1; n <= eventBatch; n++ {
		qs[n-1] = make([]string, 1<<(n-1))
		for mask := range qs[n-1] {
			var b strings.Builder
			b.WriteString("INSERT INTO wallet_events (kind, txid, depth, block_height, block_hash, time, detail) VALUES ")
			next, full := 1, 0 // the next parameter, the first of the event continued
			for i := range n {
				if i > 0 {
					b.WriteString(", ")
				}
				if i > 0 && mask&(1<<(i-1)) != 0 {
					fmt.Fprintf(&b, "(?%d, ?%d, ?%d, ?%d, ?%d, ?%d, X'00')", next, full+1, next+1, full+3, full+4, full+5)
					next += 2
					continue
				}
				full = next
				fmt.Fprintf(&b, "(?%d, ?%d, ?%d, ?%d, ?%d, ?%d, ?%d)", next, next+1, next+2, next+3, next+4, next+5, next+6)
				next += 7
			}
			qs[n-1][mask] = b.String()
		}
	}
	return qs
}()

// AppendEvent adds an event in the write transaction and returns its
// cursor.
func (t *Tx) AppendEvent(e Event) (int64, error) {
	res, err := t.execPrepared(queryAppendEvents[0][0], eventArgs(make([]any, 0, 7), e)...)
	if err != nil {
		return 0, storeErr(ErrDatabase, "write event", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, storeErr(ErrDatabase, "write event", err)
	}
	return id, nil
}

// sameDetail is the detail stored for an event that continues the one
// before it (queryAppendEvents): its detail is that event's, stored once.
// A detail the wallet writes is JSON and never this byte.
var sameDetail = []byte{0}

// continues tells whether e can name the parameters of prev, the event
// before it in a statement (see queryAppendEvents).
func continues(prev, e *Event) bool {
	return e.TxID == prev.TxID && e.Height == prev.Height && e.BlockHash == prev.BlockHash &&
		e.Time == prev.Time && len(prev.Detail) > 0 && !bytes.Equal(prev.Detail, sameDetail) &&
		bytes.Equal(e.Detail, prev.Detail)
}

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

// AppendEvents adds the events in order in the write transaction, up to
// eventBatch of them in one statement.
func (t *Tx) AppendEvents(evs []Event) error {
	args := make([]any, 0, 7*min(len(evs), eventBatch))
	for len(evs) > 0 {
		n := min(len(evs), eventBatch)
		args = args[:0]
		mask := 0
		for i := range evs[:n] {
			e := &evs[i]
			if i > 0 && continues(&evs[i-1], e) {
				mask |= 1 << (i - 1)
				args = append(args, e.Kind, e.Depth)
				continue
			}
			args = eventArgs(args, *e)
		}
		if _, err := t.execPrepared(queryAppendEvents[n-1][mask], args...); err != nil {
			return storeErr(ErrDatabase, "write event", err)
		}
		evs = evs[n:]
	}
	return nil
}

func eventArgs(args []any, e Event) []any {
	var height, hash any
	if e.Height >= 0 {
		height, hash = e.Height, e.BlockHash[:]
	}
	return append(args, e.Kind, e.TxID[:], e.Depth, height, hash, e.Time, e.Detail)
}

// Events returns at most limit events whose cursor is above after, in
// cursor order, and the highest cursor retention removed (0 when none),
// read together.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]Event, int64, error) {
	var out []Event
	var pruned int64
	err := s.view(ctx, func(tx *sql.Tx) error {
		var err error
		if pruned, err = eventsPruned(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT cursor, kind, txid, depth, block_height, block_hash, time, detail
			FROM wallet_events WHERE cursor > ? ORDER BY cursor LIMIT ?`, after, limit)
		if err != nil {
			return storeErr(ErrDatabase, "read events", err)
		}
		for rows.Next() {
			var e Event
			var id, hash []byte
			var height sql.NullInt64
			if err := rows.Scan(&e.Cursor, &e.Kind, &id, &e.Depth, &height, &hash, &e.Time, &e.Detail); err != nil {
				rows.Close()
				return storeErr(ErrDatabase, "read events", err)
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
			return storeErr(ErrDatabase, "read events", err)
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
				return err
			}
		}
		return nil
	})
	return out, pruned, err
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
// copy of the log (backupwallet) goes on after its cursor. It returns the
// highest cursor removed so far (0 when none) and how many events this call
// removed.
func (t *Tx) PruneEvents(keep, before int64, held []string) (through int64, removed int64, err error) {
	if through, err = eventsPruned(t.ctx, t.tx); err != nil {
		return 0, 0, err
	}
	var last sql.NullInt64
	if err := t.tx.QueryRowContext(t.ctx, "SELECT max(cursor) FROM wallet_events").Scan(&last); err != nil {
		return 0, 0, storeErr(ErrDatabase, "read events", err)
	}
	if !last.Valid {
		return through, 0, nil
	}
	cut := int64(0)
	if keep > 0 {
		// Cursors have no gaps (the rowid of a rolled back insert is
		// taken again by the next; only pruning removes events).
		cut = last.Int64 - keep
	}
	if before > 0 {
		var first sql.NullInt64
		err := t.tx.QueryRowContext(t.ctx, `SELECT cursor FROM wallet_events WHERE time >= ?
			ORDER BY cursor LIMIT 1`, before).Scan(&first)
		switch {
		case err == sql.ErrNoRows:
			cut = last.Int64
		case err != nil:
			return 0, 0, storeErr(ErrDatabase, "read events", err)
		default:
			cut = max(cut, first.Int64-1)
		}
	}
	cut = min(cut, last.Int64-1)
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
	// A continued event that stays gets its own detail when the event it
	// continues goes.
	var first int64
	var id, detail []byte
	err = t.tx.QueryRowContext(t.ctx, "SELECT cursor, txid, detail FROM wallet_events WHERE cursor > ? ORDER BY cursor LIMIT 1",
		cut).Scan(&first, &id, &detail)
	if err != nil {
		return 0, 0, storeErr(ErrDatabase, "read events", err)
	}
	if bytes.Equal(detail, sameDetail) {
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
	return cut, removed, nil
}
