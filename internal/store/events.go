package store

import (
	"context"
	"database/sql"
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
}

// AppendEvent adds an event in the write transaction and returns its
// cursor.
func (t *Tx) AppendEvent(e Event) (int64, error) {
	var height, hash any
	if e.Height >= 0 {
		height, hash = e.Height, e.BlockHash[:]
	}
	res, err := t.tx.ExecContext(t.ctx, `INSERT INTO wallet_events (kind, txid, depth, block_height,
		block_hash, time) VALUES (?, ?, ?, ?, ?, ?)`, e.Kind, e.TxID[:], e.Depth, height, hash, e.Time)
	if err != nil {
		return 0, storeErr(ErrDatabase, "write event", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, storeErr(ErrDatabase, "write event", err)
	}
	return id, nil
}

// Events returns at most limit events whose cursor is above after, in
// cursor order.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]Event, error) {
	var out []Event
	err := s.view(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT cursor, kind, txid, depth, block_height, block_hash, time
			FROM wallet_events WHERE cursor > ? ORDER BY cursor LIMIT ?`, after, limit)
		if err != nil {
			return storeErr(ErrDatabase, "read events", err)
		}
		for rows.Next() {
			var e Event
			var id, hash []byte
			var height sql.NullInt64
			if err := rows.Scan(&e.Cursor, &e.Kind, &id, &e.Depth, &height, &hash, &e.Time); err != nil {
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
		return nil
	})
	return out, err
}
