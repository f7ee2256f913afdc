-- Schema version 16: the foreign mempool transaction a transaction's
-- `replaced` event named.

-- A payment whose sender replaces it in the mempool with a transaction the
-- wallet does not record gets one `replaced` event naming that
-- transaction. The conflict itself is kept in memory only (Core's
-- mempool_conflicts, rebuilt from the mempool at start); this column
-- remembers what the event log already reported, so that a restart that
-- reads the same mempool again does not report it a second time. NULL for
-- none.
ALTER TABLE wallet_tx_marks ADD COLUMN mempool_replaced BLOB CHECK (mempool_replaced IS NULL OR length(mempool_replaced) = 32);
