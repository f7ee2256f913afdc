-- Schema version 4: the time a wallet transaction is listed with.

-- time_smart is the transaction's "time" in the listings, fixed when the
-- wallet first records it: the block's time for a transaction found by a
-- rescan, the block's time bounded by the time received and by the latest
-- earlier transaction's time for one found in a newly connected block. Zero
-- (rows written before this version) means time_received.
ALTER TABLE wallet_txs ADD COLUMN time_smart INTEGER NOT NULL DEFAULT 0;
