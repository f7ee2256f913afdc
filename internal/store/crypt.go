package store

import (
	"context"
	"database/sql"
)

// MasterKey is the wrapped master key of an encrypted wallet: the key
// derivation's name, parameters and salt, and the master key sealed under
// the derived key. The store keeps it as opaque data.
type MasterKey struct {
	// KDF names the key derivation function ("argon2id").
	KDF string
	// TimeCost, MemoryKiB and Threads are the derivation's parameters.
	TimeCost  uint32
	MemoryKiB uint32
	Threads   uint8
	// Salt is the derivation's random salt.
	Salt []byte
	// Wrapped is the master key sealed under the derived key.
	Wrapped []byte
}

// loadMasterKey reads the master key row, nil when the wallet is not
// encrypted.
func loadMasterKey(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (*MasterKey, error) {
	var mk MasterKey
	err := q.QueryRowContext(ctx, `SELECT kdf, time_cost, memory_kib, threads, salt, wrapped
		FROM master_key WHERE id = 1`).Scan(&mk.KDF, &mk.TimeCost, &mk.MemoryKiB, &mk.Threads, &mk.Salt, &mk.Wrapped)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(ErrDatabase, "read master key", err)
	}
	return &mk, nil
}

// MasterKey returns the wallet's master key record as this transaction sees
// it, nil when the wallet is not encrypted.
func (t *Tx) MasterKey() (*MasterKey, error) { return loadMasterKey(t.ctx, t.tx) }

// PutMasterKey stores (or replaces) the wallet's master key record.
func (t *Tx) PutMasterKey(mk MasterKey) error {
	return t.exec("write master key", `INSERT INTO master_key (id, kdf, time_cost, memory_kib, threads,
		salt, wrapped) VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET kdf = excluded.kdf,
		time_cost = excluded.time_cost, memory_kib = excluded.memory_kib, threads = excluded.threads,
		salt = excluded.salt, wrapped = excluded.wrapped`,
		mk.KDF, mk.TimeCost, mk.MemoryKiB, mk.Threads, mk.Salt, mk.Wrapped)
}

// Secrets returns every private key record as this transaction sees it.
func (t *Tx) Secrets() ([]Secret, error) { return readSecrets(t.ctx, t.tx) }

// readSecrets reads every private key record.
func readSecrets(ctx context.Context, tx *sql.Tx) ([]Secret, error) {
	var out []Secret
	err := queryRows(ctx, tx, "read secrets", "SELECT descriptor_id, key_id, secret FROM descriptor_secrets",
		func(rows *sql.Rows) error {
			var sec Secret
			var id []byte
			if err := rows.Scan(&id, &sec.KeyID, &sec.Secret); err != nil {
				return err
			}
			copy(sec.DescriptorID[:], id)
			out = append(out, sec)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MarkRewrite records, in this transaction, that the file must be rebuilt
// (Rewrite) before it can be trusted to hold no overwritten secret. Call it
// in the transaction that overwrites a secret: if the process dies before
// Rewrite finishes, the next Open finishes it.
func (t *Tx) MarkRewrite() error {
	return t.exec("mark rewrite", `INSERT INTO rewrite_pending (id) VALUES (1) ON CONFLICT (id) DO NOTHING`)
}

// rewritePending reports whether a rewrite was marked and not finished.
func (s *Store) rewritePending(ctx context.Context) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM rewrite_pending").Scan(&n); err != nil {
		return false, storeErr(ErrDatabase, "read rewrite marker", err)
	}
	return n > 0, nil
}

// Checkpoint copies the write-ahead log into the database file and
// empties the log (truncating it to zero bytes).
func (s *Store) Checkpoint(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	return s.checkpoint(ctx)
}

func (s *Store) checkpoint(ctx context.Context) error {
	var busy, logFrames, done int
	if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return storeErr(ErrDatabase, "checkpoint", err)
	}
	if busy != 0 {
		return storeErr(ErrDatabase, "checkpoint did not complete", nil)
	}
	return nil
}

// Rewrite rebuilds the database file from its live content (VACUUM) and
// empties the write-ahead log, so that no page freed or overwritten before
// (a private key replaced by its sealed form, a master key wrapped under an
// old passphrase) survives anywhere in the wallet's files. It then clears
// the marker of MarkRewrite.
func (s *Store) Rewrite(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	return s.rewrite(ctx)
}

func (s *Store) rewrite(ctx context.Context) error {
	if err := s.checkpoint(ctx); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM"); err != nil {
		return storeErr(ErrDatabase, "vacuum", err)
	}
	if err := s.checkpoint(ctx); err != nil {
		return err
	}
	// Only a file that is clean loses its marker.
	if _, err := s.db.ExecContext(ctx, "DELETE FROM rewrite_pending"); err != nil {
		return storeErr(ErrDatabase, "clear rewrite marker", err)
	}
	return s.checkpoint(ctx)
}
