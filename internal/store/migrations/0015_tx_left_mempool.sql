-- Schema version 15: which unconfirmed transactions left the mempool, as
-- the node that reads the backend's mempool saw it.

-- A wallet several nodes serve has one node reading the mempool; the
-- others learn from this mark that an unconfirmed transaction was
-- replaced, evicted or never relayed. It is cleared when the transaction
-- is seen in the mempool again.
ALTER TABLE wallet_tx_marks ADD COLUMN left_mempool INTEGER NOT NULL DEFAULT 0 CHECK (left_mempool IN (0, 1));
