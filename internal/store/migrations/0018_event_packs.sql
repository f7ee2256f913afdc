-- Schema version 18: events are appended in packs.

-- wallet_event_packs holds the events each write transaction appends from
-- now on, one row for all of them (up to 64; more take several rows): the
-- events with cursors cursor..last, encoded in body (see eventpack.go).
-- time is the latest time of its events, for retention by age. Events
-- written before this version stay in wallet_events, read as before; the
-- log is both tables in cursor order, and the next cursor follows the
-- highest of either.
CREATE TABLE wallet_event_packs (
	cursor INTEGER PRIMARY KEY,
	last INTEGER NOT NULL CHECK (last >= cursor),
	time INTEGER NOT NULL,
	body BLOB NOT NULL
);
