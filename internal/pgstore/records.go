package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Descriptor is a stored descriptor in public form. RangeEnd is exclusive;
// Seq orders descriptors by first import (assigned by PutDescriptor).
type Descriptor struct {
	ID                   [32]byte
	Seq                  int64
	Public               string
	Ranged               bool
	RangeStart, RangeEnd int64
	NextIndex            int64
	Timestamp            int64
	Cache                []byte
}

// Secret is private key material of a descriptor, sealed under the
// master key in an encrypted wallet; the store keeps it as opaque bytes.
type Secret struct {
	DescriptorID [32]byte
	KeyID        []byte
	Secret       []byte
}

// Chunk is a block of scriptPubKey digests of consecutive indexes.
type Chunk struct {
	DescriptorID [32]byte
	Chunk        int64
	FirstIndex   int64
	Data         []byte
}

// Active names the active descriptor of an output type and side.
type Active struct {
	OutputType   string
	Internal     bool
	DescriptorID [32]byte
}

// Label is an address book entry; a nil Label is a change entry.
type Label struct {
	Script  []byte
	Label   *string
	Purpose string
}

// Outpoint names a transaction output: txid in internal byte order and
// output index.
type Outpoint struct {
	TxID [32]byte
	Vout uint32
}

// MasterKey is the wrapped master key of an encrypted wallet: the key
// derivation's name, parameters and salt and the sealed master key.
type MasterKey struct {
	KDF       string
	TimeCost  uint32
	MemoryKiB uint32
	Threads   uint8
	Salt      []byte
	Wrapped   []byte
}

// Snapshot is the content of a wallet, without its chain part.
type Snapshot struct {
	Meta        map[string][]byte
	Descriptors []Descriptor
	Secrets     []Secret
	Chunks      []Chunk
	Active      []Active
	Labels      []Label
	LockedCoins []Outpoint
	UsedScripts [][]byte
	MasterKey   *MasterKey
}

// querier is what reads need of a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// queryRows runs query and calls scan on each row; a failure is a
// database error described as what.
func queryRows(ctx context.Context, q querier, what, query string, scan func(rows pgx.Rows) error, args ...any) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return storeErr(ErrDatabase, what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return storeErr(ErrDatabase, what, err)
	}
	return nil
}

// Load reads the whole wallet but its chain part, in one snapshot.
func (s *Store) Load(ctx context.Context) (*Snapshot, error) { return s.load(ctx, true) }

// LoadIndexed reads the wallet as Load does but for its script chunks:
// a wallet that asks the script index (LookupScripts) does not hold them.
func (s *Store) LoadIndexed(ctx context.Context) (*Snapshot, error) { return s.load(ctx, false) }

func (s *Store) load(ctx context.Context, chunks bool) (*Snapshot, error) {
	snap := &Snapshot{Meta: map[string][]byte{}}
	id := s.id
	err := s.view(ctx, func(tx pgx.Tx) error {
		err := queryRows(ctx, tx, "read meta", "SELECT key, value FROM meta WHERE wallet_id = $1", func(rows pgx.Rows) error {
			var k string
			var v []byte
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			snap.Meta[k] = v
			return nil
		}, id)
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read descriptors", `SELECT id, seq, descriptor, ranged, range_start, range_end,
			next_index, timestamp, cache FROM descriptors WHERE wallet_id = $1 ORDER BY seq`, func(rows pgx.Rows) error {
			var d Descriptor
			var did []byte
			if err := rows.Scan(&did, &d.Seq, &d.Public, &d.Ranged, &d.RangeStart, &d.RangeEnd, &d.NextIndex,
				&d.Timestamp, &d.Cache); err != nil {
				return err
			}
			copy(d.ID[:], did)
			snap.Descriptors = append(snap.Descriptors, d)
			return nil
		}, id)
		if err != nil {
			return err
		}
		if snap.Secrets, err = readSecrets(ctx, tx, id); err != nil {
			return err
		}
		if chunks {
			err = queryRows(ctx, tx, "read script chunks", `SELECT descriptor_id, chunk, first_index, data FROM script_chunks
				WHERE wallet_id = $1 ORDER BY descriptor_id, chunk`, func(rows pgx.Rows) error {
				var c Chunk
				var did []byte
				if err := rows.Scan(&did, &c.Chunk, &c.FirstIndex, &c.Data); err != nil {
					return err
				}
				copy(c.DescriptorID[:], did)
				snap.Chunks = append(snap.Chunks, c)
				return nil
			}, id)
			if err != nil {
				return err
			}
		}
		err = queryRows(ctx, tx, "read active descriptors", `SELECT output_type, internal, descriptor_id
			FROM active_descriptors WHERE wallet_id = $1 ORDER BY output_type, internal`, func(rows pgx.Rows) error {
			var a Active
			var did []byte
			if err := rows.Scan(&a.OutputType, &a.Internal, &did); err != nil {
				return err
			}
			copy(a.DescriptorID[:], did)
			snap.Active = append(snap.Active, a)
			return nil
		}, id)
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read address book", `SELECT script, label, purpose FROM address_book
			WHERE wallet_id = $1 ORDER BY script`, func(rows pgx.Rows) error {
			var l Label
			if err := rows.Scan(&l.Script, &l.Label, &l.Purpose); err != nil {
				return err
			}
			snap.Labels = append(snap.Labels, l)
			return nil
		}, id)
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read locked coins", `SELECT txid, vout FROM locked_coins WHERE wallet_id = $1
			ORDER BY txid, vout`, func(rows pgx.Rows) error {
			var op Outpoint
			var txid []byte
			var vout int64
			if err := rows.Scan(&txid, &vout); err != nil {
				return err
			}
			copy(op.TxID[:], txid)
			op.Vout = uint32(vout)
			snap.LockedCoins = append(snap.LockedCoins, op)
			return nil
		}, id)
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read used scripts", "SELECT script FROM used_scripts WHERE wallet_id = $1 ORDER BY script",
			func(rows pgx.Rows) error {
				var spk []byte
				if err := rows.Scan(&spk); err != nil {
					return err
				}
				snap.UsedScripts = append(snap.UsedScripts, spk)
				return nil
			}, id)
		if err != nil {
			return err
		}
		snap.MasterKey, err = loadMasterKey(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// readSecrets reads every private key record of the wallet.
func readSecrets(ctx context.Context, q querier, wid int64) ([]Secret, error) {
	var out []Secret
	err := queryRows(ctx, q, "read secrets", `SELECT descriptor_id, key_id, secret FROM descriptor_secrets
		WHERE wallet_id = $1 ORDER BY descriptor_id, key_id`, func(rows pgx.Rows) error {
		var sec Secret
		var did []byte
		if err := rows.Scan(&did, &sec.KeyID, &sec.Secret); err != nil {
			return err
		}
		copy(sec.DescriptorID[:], did)
		out = append(out, sec)
		return nil
	}, wid)
	return out, err
}

// loadMasterKey reads the master key, nil when the wallet is not
// encrypted.
func loadMasterKey(ctx context.Context, q querier, wid int64) (*MasterKey, error) {
	var mk MasterKey
	var tc, mem int64
	var threads int32
	err := q.QueryRow(ctx, `SELECT kdf, time_cost, memory_kib, threads, salt, wrapped FROM master_key
		WHERE wallet_id = $1`, wid).Scan(&mk.KDF, &tc, &mem, &threads, &mk.Salt, &mk.Wrapped)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(ErrDatabase, "read master key", err)
	}
	mk.TimeCost, mk.MemoryKiB, mk.Threads = uint32(tc), uint32(mem), uint8(threads)
	return &mk, nil
}

// PutMeta sets a wallet setting.
func (t *Tx) PutMeta(key string, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return t.exec("write meta", `INSERT INTO meta (wallet_id, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (wallet_id, key) DO UPDATE SET value = excluded.value`, key, value)
}

// PutDescriptor inserts or updates a descriptor and returns its sequence
// number (new on insert, kept on update).
func (t *Tx) PutDescriptor(d Descriptor) (int64, error) {
	var seq int64
	t.wrote = true
	err := t.tx.QueryRow(t.ctx, `INSERT INTO descriptors (wallet_id, id, seq, descriptor, ranged, range_start,
		range_end, next_index, timestamp, cache) VALUES ($1, $2,
		(SELECT coalesce(max(seq), 0) + 1 FROM descriptors WHERE wallet_id = $1), $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (wallet_id, id) DO UPDATE SET descriptor = excluded.descriptor, ranged = excluded.ranged,
		range_start = excluded.range_start, range_end = excluded.range_end, next_index = excluded.next_index,
		timestamp = excluded.timestamp, cache = excluded.cache
		RETURNING seq`, t.wid, d.ID[:], d.Public, d.Ranged, d.RangeStart, d.RangeEnd, d.NextIndex, d.Timestamp,
		d.Cache).Scan(&seq)
	if err != nil {
		return 0, storeErr(ErrDatabase, "write descriptor", err)
	}
	return seq, nil
}

// SetNextIndex moves a descriptor's next index and range end. In a wallet
// opened shared both only grow: another node may have handed out indexes
// this node has not seen yet.
func (t *Tx) SetNextIndex(id [32]byte, next, rangeEnd int64) error {
	if t.shared {
		return t.exec("write next index", `UPDATE descriptors SET next_index = greatest(next_index, $2),
			range_end = greatest(range_end, $3) WHERE wallet_id = $1 AND id = $4`, next, rangeEnd, id[:])
	}
	return t.exec("write next index", `UPDATE descriptors SET next_index = $2, range_end = $3
		WHERE wallet_id = $1 AND id = $4`, next, rangeEnd, id[:])
}

// PutSecret stores (or replaces) a private key of a descriptor.
func (t *Tx) PutSecret(s Secret) error {
	return t.exec("write secret", `INSERT INTO descriptor_secrets (wallet_id, descriptor_id, key_id, secret)
		VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, descriptor_id, key_id) DO UPDATE SET secret = excluded.secret`,
		s.DescriptorID[:], s.KeyID, s.Secret)
}

// SetActive makes a descriptor the active one for an output type and side.
func (t *Tx) SetActive(a Active) error {
	return t.exec("write active descriptor", `INSERT INTO active_descriptors (wallet_id, output_type, internal,
		descriptor_id) VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, output_type, internal) DO UPDATE SET
		descriptor_id = excluded.descriptor_id`, a.OutputType, a.Internal, a.DescriptorID[:])
}

// ClearActive leaves an output type and side without an active descriptor.
func (t *Tx) ClearActive(outputType string, internal bool) error {
	return t.exec("clear active descriptor", `DELETE FROM active_descriptors WHERE wallet_id = $1
		AND output_type = $2 AND internal = $3`, outputType, internal)
}

// PutLabel sets the address book entry of a script.
func (t *Tx) PutLabel(l Label) error {
	return t.exec("write address book", `INSERT INTO address_book (wallet_id, script, label, purpose)
		VALUES ($1, $2, $3, $4) ON CONFLICT (wallet_id, script) DO UPDATE SET label = excluded.label,
		purpose = excluded.purpose`, l.Script, l.Label, l.Purpose)
}

// DeleteLabel removes the address book entry of a script.
func (t *Tx) DeleteLabel(script []byte) error {
	return t.exec("delete address book entry", "DELETE FROM address_book WHERE wallet_id = $1 AND script = $2", script)
}

// PutLockedCoin records a persistent lock of an output.
func (t *Tx) PutLockedCoin(op Outpoint) error {
	return t.exec("write locked coin", `INSERT INTO locked_coins (wallet_id, txid, vout) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, op.TxID[:], int64(op.Vout))
}

// DeleteLockedCoin removes the persistent lock of an output, if any.
func (t *Tx) DeleteLockedCoin(op Outpoint) error {
	return t.exec("delete locked coin", "DELETE FROM locked_coins WHERE wallet_id = $1 AND txid = $2 AND vout = $3",
		op.TxID[:], int64(op.Vout))
}

// PutUsedScript marks an output script used (avoid_reuse).
func (t *Tx) PutUsedScript(script []byte) error {
	return t.exec("write used script", `INSERT INTO used_scripts (wallet_id, script) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, script)
}

// Secrets returns every private key record as this transaction sees it.
func (t *Tx) Secrets() ([]Secret, error) { return readSecrets(t.ctx, t.tx, t.wid) }

// MasterKey returns the master key as this transaction sees it, nil when
// the wallet is not encrypted.
func (t *Tx) MasterKey() (*MasterKey, error) { return loadMasterKey(t.ctx, t.tx, t.wid) }

// PutMasterKey stores (or replaces) the wallet's master key.
func (t *Tx) PutMasterKey(mk MasterKey) error {
	return t.exec("write master key", `INSERT INTO master_key (wallet_id, kdf, time_cost, memory_kib, threads,
		salt, wrapped) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (wallet_id) DO UPDATE SET kdf = excluded.kdf,
		time_cost = excluded.time_cost, memory_kib = excluded.memory_kib, threads = excluded.threads,
		salt = excluded.salt, wrapped = excluded.wrapped`,
		mk.KDF, int64(mk.TimeCost), int64(mk.MemoryKiB), int32(mk.Threads), mk.Salt, mk.Wrapped)
}

// MarkRewrite records, in this transaction, that the secret tables must be
// rewritten (Store.Rewrite) before no dead version of an overwritten
// secret is left; the next Open or Recover finishes it after a crash.
func (t *Tx) MarkRewrite() error {
	return t.exec("mark rewrite", "INSERT INTO rewrite_pending (wallet_id) VALUES ($1) ON CONFLICT DO NOTHING")
}
