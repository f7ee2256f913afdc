package store

import (
	"context"
	"database/sql"
	"fmt"
)

// PutEvent adds an event with the cursor it carries, for a copy of
// another wallet's log (a restore keeps the cursors its clients hold);
// AppendEvent continues after the highest cursor. It is stored as one row
// of wallet_events; a cursor the log holds already is refused.
func (t *Tx) PutEvent(e Event) error {
	if err := t.flushEvents(); err != nil {
		return err
	}
	t.nextEvent, t.s.nextEvent = 0, 0
	// A cursor a pack holds is taken, as one of wallet_events is (its
	// key refuses it).
	var last int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT last FROM wallet_event_packs WHERE cursor <= ? ORDER BY cursor DESC LIMIT 1",
		e.Cursor).Scan(&last)
	switch {
	case err == sql.ErrNoRows:
	case err != nil:
		return storeErr(ErrDatabase, "write event", err)
	case last >= e.Cursor:
		return storeErr(ErrDatabase, fmt.Sprintf("write event: the log holds cursor %d already", e.Cursor), nil)
	}
	var height, hash any
	if e.Height >= 0 {
		height, hash = e.Height, e.BlockHash[:]
	}
	return t.exec("write event", `INSERT INTO wallet_events (cursor, kind, txid, depth, block_height,
		block_hash, time, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.Cursor, e.Kind, e.TxID[:], e.Depth, height, hash,
		e.Time, e.Detail)
}

// Delivery is where one delivery target stands in the event log.
type Delivery struct {
	Target string
	Cursor int64
	Time   int64
}

// Deliveries returns every delivery target's position, for a copy of the
// wallet.
func (s *Store) Deliveries(ctx context.Context) ([]Delivery, error) {
	var out []Delivery
	err := s.view(ctx, func(tx *sql.Tx) error {
		return queryRows(ctx, tx, "read delivery cursors", "SELECT target, cursor, time FROM event_deliveries ORDER BY target",
			func(rows *sql.Rows) error {
				var d Delivery
				if err := rows.Scan(&d.Target, &d.Cursor, &d.Time); err != nil {
					return err
				}
				out = append(out, d)
				return nil
			})
	})
	return out, err
}

// PutDelivery sets a delivery target's position, for a copy of another
// wallet.
func (t *Tx) PutDelivery(d Delivery) error {
	return t.exec("write delivery cursor", `INSERT INTO event_deliveries (target, cursor, time) VALUES (?, ?, ?)
		ON CONFLICT (target) DO UPDATE SET cursor = excluded.cursor, time = excluded.time`, d.Target, d.Cursor, d.Time)
}
