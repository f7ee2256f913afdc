-- Schema version 8: where each webhook stands in the event log.

-- event_deliveries holds, per delivery target (a webhook's URL), the cursor
-- of the last event the target acknowledged, so that delivery resumes
-- after it when the node restarts; time is when it was acknowledged, in
-- UNIX seconds. A target with no row has acknowledged nothing.
CREATE TABLE event_deliveries (
	target TEXT PRIMARY KEY,
	cursor INTEGER NOT NULL CHECK (cursor >= 0),
	time INTEGER NOT NULL
);
