-- Schema version 13: the event log's index by transaction goes.

-- wallet_events_txid served the reading of each transaction's reported
-- confirmation depths at load, which wallet_txs.event_depth replaced in
-- version 10; nothing reads the log by transaction any more. Keeping it
-- cost every append a write into a random place of an index as large as
-- the log.
DROP INDEX IF EXISTS wallet_events_txid;
