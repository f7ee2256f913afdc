package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// DeliveryCursor returns the cursor of the last event the delivery target
// acknowledged; 0 when it has acknowledged none.
func (s *Store) DeliveryCursor(ctx context.Context, target string) (int64, error) {
	if s.isClosed() {
		return 0, storeErr(ErrDatabase, "database is closed", nil)
	}
	var cursor int64
	err := s.db.pool.QueryRow(ctx, "SELECT cursor FROM event_deliveries WHERE wallet_id = $1 AND target = $2",
		s.id, target).Scan(&cursor)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, storeErr(ErrDatabase, "read delivery cursor", err)
	}
	return cursor, nil
}

// SetDeliveryCursor records that the target acknowledged the events up to
// cursor at time now. The cursor never moves back.
func (s *Store) SetDeliveryCursor(ctx context.Context, target string, cursor, now int64) error {
	return s.Update(ctx, func(tx *Tx) error {
		return tx.run("write delivery cursor", `INSERT INTO event_deliveries (wallet_id, target, cursor, time)
			VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, target) DO UPDATE SET cursor = excluded.cursor,
			time = excluded.time WHERE excluded.cursor > event_deliveries.cursor`, target, cursor, now)
	})
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
	err := s.view(ctx, func(tx pgx.Tx) error {
		return queryRows(ctx, tx, "read delivery cursors", `SELECT target, cursor, time FROM event_deliveries
			WHERE wallet_id = $1 ORDER BY target`, func(rows pgx.Rows) error {
			var d Delivery
			if err := rows.Scan(&d.Target, &d.Cursor, &d.Time); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		}, s.id)
	})
	return out, err
}

// PutDelivery sets a delivery target's position, for a copy of another
// wallet.
func (t *Tx) PutDelivery(d Delivery) error {
	return t.run("write delivery cursor", `INSERT INTO event_deliveries (wallet_id, target, cursor, time)
		VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, target) DO UPDATE SET cursor = excluded.cursor,
		time = excluded.time`, d.Target, d.Cursor, d.Time)
}
