-- Schema version 14: the event log's cursor is a plain rowid.

-- AUTOINCREMENT made every append read and rewrite the log's row of
-- sqlite_sequence, one more page written at every commit that appends.
-- The cursor stays increasing and never reused without it: SQLite gives a
-- new row the highest rowid plus one, only pruning removes events, and it
-- always keeps the newest one (an append that rolls back leaves no event,
-- so the cursor it took was never seen). The table is copied as it is.
CREATE TABLE wallet_events_new (
	cursor INTEGER PRIMARY KEY,
	kind TEXT NOT NULL,
	txid BLOB NOT NULL CHECK (length(txid) = 32),
	depth INTEGER NOT NULL DEFAULT 0 CHECK (depth >= 0),
	block_height INTEGER,
	block_hash BLOB CHECK (block_hash IS NULL OR length(block_hash) = 32),
	time INTEGER NOT NULL,
	detail BLOB
);
INSERT INTO wallet_events_new (cursor, kind, txid, depth, block_height, block_hash, time, detail)
	SELECT cursor, kind, txid, depth, block_height, block_hash, time, detail FROM wallet_events;
DROP TABLE wallet_events;
ALTER TABLE wallet_events_new RENAME TO wallet_events;
DELETE FROM sqlite_sequence WHERE name = 'wallet_events';
