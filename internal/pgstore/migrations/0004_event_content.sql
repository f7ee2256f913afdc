-- Schema version 4: what each event carries, and retention, as the SQLite
-- store's version 10.

-- detail is the wallet's own encoding of what the event reports of its
-- transaction, kept as given (NULL for events written before).
ALTER TABLE wallet_events ADD COLUMN detail BYTEA;

-- event_depth is the highest confirmation depth the event log reported for
-- the transaction since it last entered a block (0: none), kept with the
-- transaction so that events removed by -eventretention are not reported
-- again.
ALTER TABLE wallet_txs ADD COLUMN event_depth INTEGER NOT NULL DEFAULT 0;

UPDATE wallet_txs t SET event_depth = coalesce((SELECT max(e.depth) FROM wallet_events e
	WHERE e.wallet_id = t.wallet_id AND e.txid = t.txid AND e.kind = 'confirmed' AND NOT EXISTS (
		SELECT 1 FROM wallet_events r WHERE r.wallet_id = e.wallet_id AND r.txid = e.txid AND r.kind = 'reorged'
			AND r.cursor > e.cursor)), 0)
	WHERE block_height IS NOT NULL;
