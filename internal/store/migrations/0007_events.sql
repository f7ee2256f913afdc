-- Schema version 7: the wallet's event log.

-- wallet_events is the wallet's outbox of payment events, written in the
-- same transaction as the change each reports. cursor is the event's
-- position: AUTOINCREMENT keeps it increasing and never reuses one, even
-- after old events are removed. kind is received, confirmed or reorged;
-- depth is the confirmation depth of a confirmed event (0 otherwise);
-- block_height and block_hash place the transaction (NULL when it is
-- unconfirmed); time is when the event was written, in UNIX seconds.
CREATE TABLE wallet_events (
	cursor INTEGER PRIMARY KEY AUTOINCREMENT,
	kind TEXT NOT NULL,
	txid BLOB NOT NULL CHECK (length(txid) = 32),
	depth INTEGER NOT NULL DEFAULT 0 CHECK (depth >= 0),
	block_height INTEGER,
	block_hash BLOB CHECK (block_hash IS NULL OR length(block_hash) = 32),
	time INTEGER NOT NULL
);

-- The confirmation depths already reported are read per transaction at load.
CREATE INDEX wallet_events_txid ON wallet_events (txid, cursor);
