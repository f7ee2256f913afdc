-- Schema version 9: what the wallet records of a transaction beyond its
-- block: abandonment and fee-bump links.

-- wallet_tx_marks holds, per wallet transaction (txid in internal byte
-- order), Core's abandoned state (abandontransaction: its inputs are
-- spendable again; cleared when the transaction is seen in the mempool or
-- in a block) and the fee-bump links bumpfee writes (Core's mapValue
-- replaced_by_txid on the original, replaces_txid on the replacement).
-- A transaction with none of these has no row.
CREATE TABLE wallet_tx_marks (
	txid BLOB PRIMARY KEY NOT NULL CHECK (length(txid) = 32),
	abandoned INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1)),
	replaced_by BLOB CHECK (replaced_by IS NULL OR length(replaced_by) = 32),
	replaces BLOB CHECK (replaces IS NULL OR length(replaces) = 32)
) WITHOUT ROWID;
