package store

import (
	"context"
	"database/sql"
	"errors"
)

// DeliveryCursor returns the cursor of the last event the delivery target
// acknowledged; 0 when it has acknowledged none.
func (s *Store) DeliveryCursor(ctx context.Context, target string) (int64, error) {
	var cursor int64
	err := s.view(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT cursor FROM event_deliveries WHERE target = ?`, target).Scan(&cursor)
		if errors.Is(err, sql.ErrNoRows) {
			cursor = 0
			return nil
		}
		if err != nil {
			return storeErr(ErrDatabase, "read delivery cursor", err)
		}
		return nil
	})
	return cursor, err
}

// SetDeliveryCursor records, durably, that the target acknowledged the
// events up to cursor at time now. The cursor never moves back: a lower
// value than the one stored leaves it as it is.
func (s *Store) SetDeliveryCursor(ctx context.Context, target string, cursor, now int64) error {
	return s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO event_deliveries (target, cursor, time) VALUES (?, ?, ?)
			ON CONFLICT (target) DO UPDATE SET cursor = excluded.cursor, time = excluded.time
			WHERE excluded.cursor > event_deliveries.cursor`, target, cursor, now)
		if err != nil {
			return storeErr(ErrDatabase, "write delivery cursor", err)
		}
		return nil
	})
}
