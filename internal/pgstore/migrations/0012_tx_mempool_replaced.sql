-- Schema version 12: the foreign mempool transaction a transaction's
-- `replaced` event named, as the SQLite store's version 16 (NULL for
-- none): a restart that reads the same mempool again does not report the
-- replacement a second time.
ALTER TABLE wallet_tx_marks ADD COLUMN mempool_replaced BYTEA CHECK (mempool_replaced IS NULL OR length(mempool_replaced) = 32);
