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
		return tx.exec("write delivery cursor", `INSERT INTO event_deliveries (wallet_id, target, cursor, time)
			VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, target) DO UPDATE SET cursor = excluded.cursor,
			time = excluded.time WHERE excluded.cursor > event_deliveries.cursor`, target, cursor, now)
	})
}
