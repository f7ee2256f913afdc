-- Schema version 11: which unconfirmed transactions left the mempool, as
-- the chain leader (the one node reading the backend's mempool) saw it;
-- the SQLite store's version 15. The other nodes take a transaction's
-- mempool state from it when they reload; it is cleared when the
-- transaction is seen in the mempool again.
ALTER TABLE wallet_tx_marks ADD COLUMN left_mempool BOOLEAN NOT NULL DEFAULT FALSE;
