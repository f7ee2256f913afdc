-- Schema version 1: many wallets in one database, each table keyed by the
-- wallet. It holds what the SQLite store's versions 1 to 7 hold, in
-- PostgreSQL's types.

-- wallets names each wallet: namespace separates the networks (and the
-- nodes that want their own set), name is the wallet's name. A wallet is
-- 'creating' until its creator publishes it: a crash leaves a row in that
-- state, which the next recovery removes. event_cursor is the last cursor
-- handed out by the wallet's event log.
CREATE TABLE wallets (
	id           BIGSERIAL PRIMARY KEY,
	namespace    TEXT NOT NULL,
	name         TEXT NOT NULL,
	state        TEXT NOT NULL CHECK (state IN ('creating', 'ready')),
	event_cursor BIGINT NOT NULL DEFAULT 0,
	UNIQUE (namespace, name)
);

-- meta holds the wallet's scalar settings as key/value pairs.
CREATE TABLE meta (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	key       TEXT NOT NULL,
	value     BYTEA NOT NULL,
	PRIMARY KEY (wallet_id, key)
);

-- descriptors holds every descriptor in its public form; id is SHA-256 of
-- the public string, seq the order of first import, range_end exclusive.
CREATE TABLE descriptors (
	wallet_id   BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	id          BYTEA NOT NULL CHECK (length(id) = 32),
	seq         BIGINT NOT NULL,
	descriptor  TEXT NOT NULL,
	ranged      BOOLEAN NOT NULL,
	range_start BIGINT NOT NULL CHECK (range_start >= 0),
	range_end   BIGINT NOT NULL CHECK (range_end >= range_start),
	next_index  BIGINT NOT NULL CHECK (next_index >= 0),
	timestamp   BIGINT NOT NULL,
	cache       BYTEA,
	PRIMARY KEY (wallet_id, id),
	UNIQUE (wallet_id, seq)
);

-- descriptor_secrets holds private key material apart from the public
-- descriptors; in an encrypted wallet every secret is sealed under the
-- master key, so no plain key is stored.
CREATE TABLE descriptor_secrets (
	wallet_id     BIGINT NOT NULL,
	descriptor_id BYTEA NOT NULL,
	key_id        BYTEA NOT NULL,
	secret        BYTEA NOT NULL,
	PRIMARY KEY (wallet_id, descriptor_id, key_id),
	FOREIGN KEY (wallet_id, descriptor_id) REFERENCES descriptors (wallet_id, id) ON DELETE CASCADE
);

-- script_chunks holds the scriptPubKey digests of consecutive indexes of a
-- descriptor.
CREATE TABLE script_chunks (
	wallet_id     BIGINT NOT NULL,
	descriptor_id BYTEA NOT NULL,
	chunk         BIGINT NOT NULL,
	first_index   BIGINT NOT NULL,
	data          BYTEA NOT NULL,
	PRIMARY KEY (wallet_id, descriptor_id, chunk),
	FOREIGN KEY (wallet_id, descriptor_id) REFERENCES descriptors (wallet_id, id) ON DELETE CASCADE
);

-- active_descriptors names the descriptor handing out addresses for each
-- output type and side.
CREATE TABLE active_descriptors (
	wallet_id     BIGINT NOT NULL,
	output_type   TEXT NOT NULL,
	internal      BOOLEAN NOT NULL,
	descriptor_id BYTEA NOT NULL,
	PRIMARY KEY (wallet_id, output_type, internal),
	FOREIGN KEY (wallet_id, descriptor_id) REFERENCES descriptors (wallet_id, id) ON DELETE CASCADE
);

-- address_book holds labels and purposes; a NULL label is a change entry.
CREATE TABLE address_book (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	script    BYTEA NOT NULL,
	label     TEXT,
	purpose   TEXT NOT NULL,
	PRIMARY KEY (wallet_id, script)
);

-- master_key holds the master key of an encrypted wallet, wrapped under a
-- key derived from the passphrase.
CREATE TABLE master_key (
	wallet_id  BIGINT PRIMARY KEY REFERENCES wallets (id) ON DELETE CASCADE,
	kdf        TEXT NOT NULL,
	time_cost  BIGINT NOT NULL CHECK (time_cost > 0),
	memory_kib BIGINT NOT NULL CHECK (memory_kib > 0),
	threads    INTEGER NOT NULL CHECK (threads > 0),
	salt       BYTEA NOT NULL,
	wrapped    BYTEA NOT NULL
);

-- rewrite_pending has a wallet's row while dead row versions may still
-- hold a secret it overwrote; the row goes once the secret tables have
-- been rewritten.
CREATE TABLE rewrite_pending (
	wallet_id BIGINT PRIMARY KEY REFERENCES wallets (id) ON DELETE CASCADE
);

-- wallet_txs holds the wallet's transactions: seq is the order of first
-- sight; a confirmed one has its block, an unconfirmed one NULLs.
-- time_smart zero means time_received.
CREATE TABLE wallet_txs (
	wallet_id     BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	txid          BYTEA NOT NULL CHECK (length(txid) = 32),
	seq           BIGINT NOT NULL,
	raw           BYTEA NOT NULL,
	time_received BIGINT NOT NULL,
	time_smart    BIGINT NOT NULL DEFAULT 0,
	block_hash    BYTEA CHECK (block_hash IS NULL OR length(block_hash) = 32),
	block_height  INTEGER,
	block_time    BIGINT,
	block_index   INTEGER,
	PRIMARY KEY (wallet_id, txid),
	UNIQUE (wallet_id, seq)
);

-- chain_blocks holds the last blocks the wallet processed.
CREATE TABLE chain_blocks (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	height    INTEGER NOT NULL CHECK (height >= 0),
	hash      BYTEA NOT NULL CHECK (length(hash) = 32),
	PRIMARY KEY (wallet_id, height)
);

-- rescan records a running rescan, to resume at load.
CREATE TABLE rescan (
	wallet_id   BIGINT PRIMARY KEY REFERENCES wallets (id) ON DELETE CASCADE,
	next_height INTEGER NOT NULL,
	stop_height INTEGER NOT NULL
);

-- locked_coins holds the persistently locked outputs.
CREATE TABLE locked_coins (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	txid      BYTEA NOT NULL CHECK (length(txid) = 32),
	vout      BIGINT NOT NULL CHECK (vout >= 0),
	PRIMARY KEY (wallet_id, txid, vout)
);

-- used_scripts holds the scripts marked used (avoid_reuse).
CREATE TABLE used_scripts (
	wallet_id BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	script    BYTEA NOT NULL,
	PRIMARY KEY (wallet_id, script)
);

-- wallet_events is each wallet's outbox of payment events; cursor grows
-- per wallet and is never reused (wallets.event_cursor).
CREATE TABLE wallet_events (
	wallet_id    BIGINT NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	cursor       BIGINT NOT NULL,
	kind         TEXT NOT NULL,
	txid         BYTEA NOT NULL CHECK (length(txid) = 32),
	depth        INTEGER NOT NULL DEFAULT 0 CHECK (depth >= 0),
	block_height INTEGER,
	block_hash   BYTEA CHECK (block_hash IS NULL OR length(block_hash) = 32),
	time         BIGINT NOT NULL,
	PRIMARY KEY (wallet_id, cursor)
);

CREATE INDEX wallet_events_txid ON wallet_events (wallet_id, txid, cursor);
