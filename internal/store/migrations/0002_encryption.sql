-- Schema version 2: wallet encryption.

-- master_key holds the wallet's master key wrapped under a key derived from
-- the passphrase, with the derivation's name and parameters. A wallet is
-- encrypted exactly when this table has its one row; every secret of
-- descriptor_secrets is then sealed under the master key.
CREATE TABLE master_key (
	id         INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
	kdf        TEXT NOT NULL,
	time_cost  INTEGER NOT NULL CHECK (time_cost > 0),
	memory_kib INTEGER NOT NULL CHECK (memory_kib > 0),
	threads    INTEGER NOT NULL CHECK (threads > 0),
	salt       BLOB NOT NULL,
	wrapped    BLOB NOT NULL
);
