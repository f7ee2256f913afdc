package store

import (
	"context"
	"database/sql"
)

// DescriptorID is the identity of a descriptor: SHA-256 of its public
// string. It is an alias so that callers can convert records field for
// field from their own types.
type DescriptorID = [32]byte

// Descriptor is one stored descriptor.
type Descriptor struct {
	// ID is SHA-256 of Public.
	ID DescriptorID
	// Seq orders descriptors by first import; assigned by PutDescriptor
	// on insert and kept on update.
	Seq int64
	// Public is the descriptor in public normalised form with checksum.
	Public string
	// Ranged tells whether the descriptor has a wildcard.
	Ranged bool
	// RangeStart and RangeEnd are the derived indexes [start, end).
	RangeStart, RangeEnd int64
	// NextIndex is the next index to hand out.
	NextIndex int64
	// Timestamp is the creation time in UNIX seconds.
	Timestamp int64
	// Cache is the serialised derivation cache (may be nil).
	Cache []byte
}

// Secret is private key material of a descriptor.
type Secret struct {
	DescriptorID DescriptorID
	// KeyID names the key inside its descriptor (its public key).
	KeyID []byte
	// Secret is the private key (encrypted once encryption exists).
	Secret []byte
}

// Chunk is a block of scriptPubKey digests of consecutive indexes of one
// descriptor.
type Chunk struct {
	DescriptorID DescriptorID
	// Chunk numbers the block within its descriptor.
	Chunk int64
	// FirstIndex is the derivation index of the first digest.
	FirstIndex int64
	// Data is the digests, concatenated.
	Data []byte
}

// Active names the descriptor that hands out addresses of one output type
// on one side.
type Active struct {
	OutputType   string
	Internal     bool
	DescriptorID DescriptorID
}

// Label is an address book entry. A nil Label is a change entry.
type Label struct {
	Script  []byte
	Label   *string
	Purpose string
}

// Snapshot is the whole content of a wallet database.
type Snapshot struct {
	Meta        map[string][]byte
	Descriptors []Descriptor // ordered by Seq
	Secrets     []Secret
	Chunks      []Chunk // ordered by descriptor, then chunk
	Active      []Active
	Labels      []Label
	// LockedCoins are the persistently locked outputs.
	LockedCoins []Outpoint
	// UsedScripts are the scripts marked used (avoid_reuse).
	UsedScripts [][]byte
	// MasterKey is the wrapped master key, nil when the wallet is not
	// encrypted.
	MasterKey *MasterKey
}

// Load reads the whole database.
func (s *Store) Load(ctx context.Context) (*Snapshot, error) {
	snap := &Snapshot{Meta: map[string][]byte{}}
	// A read transaction gives one consistent view of all tables.
	err := s.view(ctx, func(tx *sql.Tx) error {
		err := queryRows(ctx, tx, "read meta", "SELECT key, value FROM meta", func(rows *sql.Rows) error {
			var k string
			var v []byte
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			snap.Meta[k] = v
			return nil
		})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read descriptors", `SELECT id, seq, descriptor, ranged, range_start, range_end,
			next_index, timestamp, cache FROM descriptors ORDER BY seq`, func(rows *sql.Rows) error {
			var d Descriptor
			var id []byte
			if err := rows.Scan(&id, &d.Seq, &d.Public, &d.Ranged, &d.RangeStart, &d.RangeEnd,
				&d.NextIndex, &d.Timestamp, &d.Cache); err != nil {
				return err
			}
			copy(d.ID[:], id)
			snap.Descriptors = append(snap.Descriptors, d)
			return nil
		})
		if err != nil {
			return err
		}
		if snap.Secrets, err = readSecrets(ctx, tx); err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read script chunks", `SELECT descriptor_id, chunk, first_index, data FROM script_chunks
			ORDER BY descriptor_id, chunk`, func(rows *sql.Rows) error {
			var c Chunk
			var id []byte
			if err := rows.Scan(&id, &c.Chunk, &c.FirstIndex, &c.Data); err != nil {
				return err
			}
			copy(c.DescriptorID[:], id)
			snap.Chunks = append(snap.Chunks, c)
			return nil
		})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read active descriptors", "SELECT output_type, internal, descriptor_id FROM active_descriptors",
			func(rows *sql.Rows) error {
				var a Active
				var id []byte
				if err := rows.Scan(&a.OutputType, &a.Internal, &id); err != nil {
					return err
				}
				copy(a.DescriptorID[:], id)
				snap.Active = append(snap.Active, a)
				return nil
			})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read address book", "SELECT script, label, purpose FROM address_book", func(rows *sql.Rows) error {
			var l Label
			var label sql.NullString
			if err := rows.Scan(&l.Script, &label, &l.Purpose); err != nil {
				return err
			}
			if label.Valid {
				s := label.String
				l.Label = &s
			}
			snap.Labels = append(snap.Labels, l)
			return nil
		})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read locked coins", "SELECT txid, vout FROM locked_coins ORDER BY txid, vout",
			func(rows *sql.Rows) error {
				var op Outpoint
				var id []byte
				if err := rows.Scan(&id, &op.Vout); err != nil {
					return err
				}
				copy(op.TxID[:], id)
				snap.LockedCoins = append(snap.LockedCoins, op)
				return nil
			})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read used scripts", "SELECT script FROM used_scripts", func(rows *sql.Rows) error {
			var spk []byte
			if err := rows.Scan(&spk); err != nil {
				return err
			}
			snap.UsedScripts = append(snap.UsedScripts, spk)
			return nil
		})
		if err != nil {
			return err
		}
		snap.MasterKey, err = loadMasterKey(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// view runs fn in one read-only transaction, which sees one consistent
// state of the database.
func (s *Store) view(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return storeErr(ErrDatabase, "database is closed", nil)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return storeErr(ErrDatabase, "begin read", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// queryRows runs query in tx and calls scan on each row it returns; an
// error of the query, of scan or of the rows is a database error described
// as what.
func queryRows(ctx context.Context, tx *sql.Tx, what, query string, scan func(rows *sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	for rows.Next() {
		if err := scan(rows); err != nil {
			rows.Close()
			return storeErr(ErrDatabase, what, err)
		}
	}
	if err := closeRows(rows); err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	return nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// Tx is a write transaction, valid only inside the function given to
// Update.
type Tx struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store
	// recent is what SetRecentBlocks recorded in the transaction, when
	// recentSet.
	recent    []BlockRef
	recentSet bool
	// pending are the events appended and not yet written (flushEvents
	// writes them as packs), with their cursors; nextEvent is the cursor
	// of the next (0: not read yet, or unknown after PutEvent).
	pending   []Event
	nextEvent int64
}

// execPrepared runs query, one of preparedQueries, with the statement
// prepared when the database opened.
func (t *Tx) execPrepared(query string, args ...any) (sql.Result, error) {
	if st := t.s.stmts[query]; st != nil {
		return t.tx.StmtContext(t.ctx, st).ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, query, args...)
}

func (t *Tx) exec(what, query string, args ...any) error {
	if _, err := t.tx.ExecContext(t.ctx, query, args...); err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	return nil
}

// PutMeta sets a wallet setting.
func (t *Tx) PutMeta(key string, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return t.exec("write meta", `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
}

// PutDescriptor inserts or updates a descriptor and returns its sequence
// number (new on insert, kept on update).
func (t *Tx) PutDescriptor(d Descriptor) (int64, error) {
	var seq int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT seq FROM descriptors WHERE id = ?", d.ID[:]).Scan(&seq)
	switch {
	case err == sql.ErrNoRows:
		if err := t.tx.QueryRowContext(t.ctx, "SELECT coalesce(max(seq), 0) + 1 FROM descriptors").Scan(&seq); err != nil {
			return 0, storeErr(ErrDatabase, "write descriptor", err)
		}
		err = t.exec("write descriptor", `INSERT INTO descriptors (id, seq, descriptor, ranged,
			range_start, range_end, next_index, timestamp, cache) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID[:], seq, d.Public, d.Ranged, d.RangeStart, d.RangeEnd, d.NextIndex, d.Timestamp, d.Cache)
		return seq, err
	case err != nil:
		return 0, storeErr(ErrDatabase, "write descriptor", err)
	}
	err = t.exec("write descriptor", `UPDATE descriptors SET descriptor = ?, ranged = ?, range_start = ?,
		range_end = ?, next_index = ?, timestamp = ?, cache = ? WHERE id = ?`,
		d.Public, d.Ranged, d.RangeStart, d.RangeEnd, d.NextIndex, d.Timestamp, d.Cache, d.ID[:])
	return seq, err
}

// SetNextIndex moves a descriptor's next index and range end.
func (t *Tx) SetNextIndex(id DescriptorID, next, rangeEnd int64) error {
	return t.exec("write next index", "UPDATE descriptors SET next_index = ?, range_end = ? WHERE id = ?",
		next, rangeEnd, id[:])
}

// PutSecret stores (or replaces) a private key of a descriptor.
func (t *Tx) PutSecret(s Secret) error {
	return t.exec("write secret", `INSERT INTO descriptor_secrets (descriptor_id, key_id, secret)
		VALUES (?, ?, ?) ON CONFLICT (descriptor_id, key_id) DO UPDATE SET secret = excluded.secret`,
		s.DescriptorID[:], s.KeyID, s.Secret)
}

// PutChunk stores (or replaces) a block of scriptPubKey digests.
func (t *Tx) PutChunk(c Chunk) error {
	return t.exec("write script chunk", `INSERT INTO script_chunks (descriptor_id, chunk, first_index, data)
		VALUES (?, ?, ?, ?) ON CONFLICT (descriptor_id, chunk) DO UPDATE SET
		first_index = excluded.first_index, data = excluded.data`,
		c.DescriptorID[:], c.Chunk, c.FirstIndex, c.Data)
}

// DeleteChunks removes every block of a descriptor.
func (t *Tx) DeleteChunks(id DescriptorID) error {
	return t.exec("delete script chunks", "DELETE FROM script_chunks WHERE descriptor_id = ?", id[:])
}

// SetActive makes a descriptor the active one for an output type and side.
func (t *Tx) SetActive(a Active) error {
	return t.exec("write active descriptor", `INSERT INTO active_descriptors (output_type, internal,
		descriptor_id) VALUES (?, ?, ?) ON CONFLICT (output_type, internal) DO UPDATE SET
		descriptor_id = excluded.descriptor_id`, a.OutputType, a.Internal, a.DescriptorID[:])
}

// ClearActive leaves an output type and side without an active descriptor.
func (t *Tx) ClearActive(outputType string, internal bool) error {
	return t.exec("clear active descriptor", "DELETE FROM active_descriptors WHERE output_type = ? AND internal = ?",
		outputType, internal)
}

// PutLabel sets the address book entry of a script.
func (t *Tx) PutLabel(l Label) error {
	var label any
	if l.Label != nil {
		label = *l.Label
	}
	return t.exec("write address book", `INSERT INTO address_book (script, label, purpose) VALUES (?, ?, ?)
		ON CONFLICT (script) DO UPDATE SET label = excluded.label, purpose = excluded.purpose`,
		l.Script, label, l.Purpose)
}

// DeleteLabel removes the address book entry of a script.
func (t *Tx) DeleteLabel(script []byte) error {
	return t.exec("delete address book entry", "DELETE FROM address_book WHERE script = ?", script)
}

// Outpoint names a transaction output: the txid in internal byte order and
// the output index.
type Outpoint struct {
	TxID [32]byte
	Vout uint32
}

// PutLockedCoin records a persistent lock of an output.
func (t *Tx) PutLockedCoin(op Outpoint) error {
	return t.exec("write locked coin", "INSERT OR IGNORE INTO locked_coins (txid, vout) VALUES (?, ?)",
		op.TxID[:], op.Vout)
}

// DeleteLockedCoin removes the persistent lock of an output, if any.
func (t *Tx) DeleteLockedCoin(op Outpoint) error {
	return t.exec("delete locked coin", "DELETE FROM locked_coins WHERE txid = ? AND vout = ?", op.TxID[:], op.Vout)
}

// PutUsedScript marks an output script used (avoid_reuse).
func (t *Tx) PutUsedScript(script []byte) error {
	return t.exec("write used script", "INSERT OR IGNORE INTO used_scripts (script) VALUES (?)", script)
}
