-- Schema version 10: what each event carries, and retention.

-- detail is the wallet's own encoding of what the event reports of its
-- transaction (the wallet's outputs with their addresses, labels and
-- descriptors, the net amount, the fee of a send); the store keeps it as
-- given. Events written before this version have none.
ALTER TABLE wallet_events ADD COLUMN detail BLOB;

-- event_depth is the highest confirmation depth the event log reported for
-- the transaction since it last entered a block (0: none). It lives with
-- the transaction, not only in the log, so that events removed by
-- -eventretention are never reported a second time.
ALTER TABLE wallet_txs ADD COLUMN event_depth INTEGER NOT NULL DEFAULT 0;

UPDATE wallet_txs SET event_depth = coalesce((SELECT max(e.depth) FROM wallet_events e
	WHERE e.txid = wallet_txs.txid AND e.kind = 'confirmed' AND NOT EXISTS (SELECT 1 FROM wallet_events r
		WHERE r.txid = e.txid AND r.kind = 'reorged' AND r.cursor > e.cursor)), 0)
	WHERE block_height IS NOT NULL;
