-- Schema version 17: an event may store its detail once for the event
-- after it.

-- A payment's confirmed event written in the same statement as its
-- received event (same transaction, block, time and detail) stores the
-- single byte X'00' as its detail and is read with the detail of the
-- nearest event before it that has one of its own. Nothing is rewritten:
-- the version tells a program that does not read such events not to open
-- the file.
SELECT 1;
