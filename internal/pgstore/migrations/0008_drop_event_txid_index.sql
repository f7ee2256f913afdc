-- Schema version 8: the event log's index by transaction goes, as the
-- SQLite store's version 13: nothing reads the log by transaction since
-- wallet_txs.event_depth (version 4) holds the depths reported, and every
-- append paid for a write into a random place of it.
DROP INDEX IF EXISTS wallet_events_txid;
