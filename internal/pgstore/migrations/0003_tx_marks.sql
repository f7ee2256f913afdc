-- Schema version 3: what the wallet records of a transaction beyond its
-- block (abandonment, fee-bump links), as the SQLite store's version 9.

-- wallet_tx_marks holds, per wallet and transaction, Core's abandoned
-- state and the fee-bump links bumpfee writes (replaced_by_txid on the
-- original, replaces_txid on the replacement); a transaction with none of
-- these has no row.
CREATE TABLE wallet_tx_marks (
	wallet_id   BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	txid        BYTEA NOT NULL CHECK (length(txid) = 32),
	abandoned   BOOLEAN NOT NULL DEFAULT FALSE,
	replaced_by BYTEA CHECK (replaced_by IS NULL OR length(replaced_by) = 32),
	replaces    BYTEA CHECK (replaces IS NULL OR length(replaces) = 32),
	PRIMARY KEY (wallet_id, txid)
);
