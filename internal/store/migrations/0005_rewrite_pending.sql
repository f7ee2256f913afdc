-- Schema version 5: a pending rewrite.

-- rewrite_pending has its one row while the file may still hold a secret
-- that was overwritten (a private key before encryption, a master key
-- wrapped under an old passphrase) in a free page, in the unused space of a
-- page or in the write-ahead log. The row is written in the transaction
-- that overwrites the secret and deleted once the file has been rebuilt;
-- opening a file that has it finishes the rebuild first.
CREATE TABLE rewrite_pending (
	id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1)
);
