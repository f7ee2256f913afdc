-- Schema version 2: where each event delivery target (a webhook) stands in
-- each wallet's event log, as the SQLite store's version 8.

-- event_deliveries holds, per wallet and target, the cursor of the last
-- event the target acknowledged and when (UNIX seconds); a target with no
-- row has acknowledged nothing.
CREATE TABLE event_deliveries (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	target    TEXT NOT NULL,
	cursor    BIGINT NOT NULL CHECK (cursor >= 0),
	time      BIGINT NOT NULL,
	PRIMARY KEY (wallet_id, target)
);
