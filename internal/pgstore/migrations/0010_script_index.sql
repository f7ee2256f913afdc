-- Schema version 10: the wallets' script index in the database, so that a
-- node asks the database whether a script is a wallet's instead of holding
-- every script in memory. Each row is one digest of script_chunks (the
-- first 8 bytes of SHA-256 of the script, read as a big-endian signed
-- integer), with the descriptor (by its seq) and the place of the digest in
-- its chunk; the derivation index is first_index + pos / (scripts per index
-- of the descriptor). A hit is a candidate only: the node derives the
-- script again and compares it in full. The rows follow script_chunks: they
-- are written and removed with their chunk, in the same transaction.
--
-- No foreign key: checking one per row would double the cost of importing
-- a range of millions; a wallet's rows go with the wallet by the trigger
-- below.
CREATE TABLE script_index (
	wallet_id      BIGINT NOT NULL,
	digest         BIGINT NOT NULL,
	descriptor_seq BIGINT NOT NULL,
	first_index    BIGINT NOT NULL,
	pos            INTEGER NOT NULL
);

CREATE INDEX script_index_digest ON script_index (wallet_id, digest);

-- The chunks already stored, one row per digest.
INSERT INTO script_index (wallet_id, digest, descriptor_seq, first_index, pos)
SELECT c.wallet_id,
	('x' || encode(substring(c.data FROM p * 8 + 1 FOR 8), 'hex'))::bit(64)::bigint,
	d.seq, c.first_index, p
FROM script_chunks c
JOIN descriptors d ON d.wallet_id = c.wallet_id AND d.id = c.descriptor_id
CROSS JOIN LATERAL generate_series(0, length(c.data) / 8 - 1) AS p;

CREATE FUNCTION script_index_drop_wallet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM script_index WHERE wallet_id = OLD.id;
	RETURN OLD;
END;
$$;

CREATE TRIGGER script_index_drop_wallet AFTER DELETE ON wallets
	FOR EACH ROW EXECUTE FUNCTION script_index_drop_wallet();
