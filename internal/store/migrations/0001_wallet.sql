-- Schema version 1: one wallet per database file.

-- meta holds the wallet's scalar settings (flags, creation time, format
-- version) as key/value pairs.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY NOT NULL,
	value BLOB NOT NULL
) WITHOUT ROWID;

-- descriptors holds every descriptor in its public form. id is SHA-256 of
-- the public string; seq keeps the order of first import. Non-ranged
-- descriptors have ranged = 0 and range columns of 0. range_end is exclusive.
CREATE TABLE descriptors (
	id          BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 32),
	seq         INTEGER NOT NULL UNIQUE,
	descriptor  TEXT NOT NULL,
	ranged      INTEGER NOT NULL CHECK (ranged IN (0, 1)),
	range_start INTEGER NOT NULL CHECK (range_start >= 0),
	range_end   INTEGER NOT NULL CHECK (range_end >= range_start),
	next_index  INTEGER NOT NULL CHECK (next_index >= 0),
	timestamp   INTEGER NOT NULL,
	cache       BLOB
);

-- descriptor_secrets holds private key material, apart from the public
-- descriptors so that encryption can wrap it alone. key_id names the key
-- inside its descriptor (its public key serialization).
CREATE TABLE descriptor_secrets (
	descriptor_id BLOB NOT NULL REFERENCES descriptors (id) ON DELETE CASCADE,
	key_id        BLOB NOT NULL,
	secret        BLOB NOT NULL,
	PRIMARY KEY (descriptor_id, key_id)
) WITHOUT ROWID;

-- script_chunks holds the scriptPubKey index of a descriptor in blocks of
-- consecutive derivation indexes: data is the concatenation of a fixed-size
-- digest per script, first_index the index of the first one.
CREATE TABLE script_chunks (
	descriptor_id BLOB NOT NULL REFERENCES descriptors (id) ON DELETE CASCADE,
	chunk         INTEGER NOT NULL,
	first_index   INTEGER NOT NULL,
	data          BLOB NOT NULL,
	PRIMARY KEY (descriptor_id, chunk)
) WITHOUT ROWID;

-- active_descriptors names the descriptor that hands out addresses for each
-- output type, on the receive (internal = 0) and change (internal = 1) side.
CREATE TABLE active_descriptors (
	output_type   TEXT NOT NULL,
	internal      INTEGER NOT NULL CHECK (internal IN (0, 1)),
	descriptor_id BLOB NOT NULL REFERENCES descriptors (id) ON DELETE CASCADE,
	PRIMARY KEY (output_type, internal)
) WITHOUT ROWID;

-- address_book holds labels and purposes of scriptPubKeys. A NULL label is a
-- change entry.
CREATE TABLE address_book (
	script  BLOB PRIMARY KEY NOT NULL,
	label   TEXT,
	purpose TEXT NOT NULL
) WITHOUT ROWID;
