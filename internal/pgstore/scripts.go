package pgstore

import (
	"context"
	"encoding/binary"
	"math/bits"

	"github.com/jackc/pgx/v5"
)

// The script index (table script_index, migration 10): one row per digest
// of script_chunks, so that a node asks the database which of a batch of
// scripts are a wallet's instead of holding every digest in memory.
//
// A digest is the first 8 bytes of SHA-256 of a script, as script_chunks
// stores them. The Go side names a digest by those bytes read little-endian
// (the wallet's in-memory key); the table keeps them read big-endian, which
// is what SQL reads out of a chunk's bytes (the migration fills the table
// from the chunks stored before it).

// ScriptRef is a row of the script index: the descriptor (by its seq) whose
// chunk starting at FirstIndex holds Digest at position Pos. The
// derivation index is FirstIndex + Pos / (scripts per index).
type ScriptRef struct {
	Digest        uint64
	DescriptorSeq int64
	FirstIndex    int64
	Pos           int32
}

// maxLookup is the most digests one LookupScripts query carries; larger
// batches are split.
const maxLookup = 20000

// sqlDigest turns a digest as the Go side names it into the table's key.
func sqlDigest(d uint64) int64 { return int64(bits.ReverseBytes64(d)) }

// goDigest is the inverse of sqlDigest.
func goDigest(k int64) uint64 { return bits.ReverseBytes64(uint64(k)) }

// LookupScripts returns the index rows of the given digests in the wallet,
// in no particular order; a digest no row holds is not in the answer. It
// reads committed data outside any transaction of the Store, one query per
// maxLookup digests.
func (s *Store) LookupScripts(ctx context.Context, digests []uint64) ([]ScriptRef, error) {
	if s.isClosed() {
		return nil, storeErr(ErrDatabase, "database is closed", nil)
	}
	var out []ScriptRef
	keys := make([]int64, 0, min(len(digests), maxLookup))
	for lo := 0; lo < len(digests); lo += maxLookup {
		hi := min(lo+maxLookup, len(digests))
		keys = keys[:0]
		for _, d := range digests[lo:hi] {
			keys = append(keys, sqlDigest(d))
		}
		err := queryRows(ctx, s.db.pool, "look up scripts", `SELECT digest, descriptor_seq, first_index, pos
			FROM script_index WHERE wallet_id = $1 AND digest = ANY($2)`, func(rows pgx.Rows) error {
			var r ScriptRef
			var k int64
			if err := rows.Scan(&k, &r.DescriptorSeq, &r.FirstIndex, &r.Pos); err != nil {
				return err
			}
			r.Digest = goDigest(k)
			out = append(out, r)
			return nil
		}, s.id, keys)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ScriptCount returns the number of rows of the wallet's script index.
func (s *Store) ScriptCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.pool.QueryRow(ctx, "SELECT count(*) FROM script_index WHERE wallet_id = $1", s.id).Scan(&n); err != nil {
		return 0, storeErr(ErrDatabase, "count scripts", err)
	}
	return n, nil
}

// chunkDigests is the SQL of the digests of the chunks of one descriptor
// ($2) of the wallet ($1), optionally one chunk of it, with the chunk's
// first index: the rows of script_index that the chunks stand for.
const chunkDigests = `SELECT ('x' || encode(substring(c.data FROM p * 8 + 1 FOR 8), 'hex'))::bit(64)::bigint AS digest,
	c.first_index FROM script_chunks c CROSS JOIN LATERAL generate_series(0, length(c.data) / 8 - 1) AS p
	WHERE c.wallet_id = $1 AND c.descriptor_id = $2`

// descriptorSeq returns the seq of a descriptor of the wallet, remembered
// for the transaction.
func (t *Tx) descriptorSeq(id [32]byte) (int64, error) {
	if seq, ok := t.seqs[id]; ok {
		return seq, nil
	}
	var seq int64
	if err := t.tx.QueryRow(t.ctx, "SELECT seq FROM descriptors WHERE wallet_id = $1 AND id = $2", t.wid, id[:]).Scan(&seq); err != nil {
		return 0, storeErr(ErrDatabase, "read descriptor of script chunk", err)
	}
	if t.seqs == nil {
		t.seqs = map[[32]byte]int64{}
	}
	t.seqs[id] = seq
	return seq, nil
}

// PutChunk stores (or replaces) a block of scriptPubKey digests and its
// rows of the script index, in one COPY; the descriptor must be stored.
func (t *Tx) PutChunk(c Chunk) error {
	seq, err := t.descriptorSeq(c.DescriptorID)
	if err != nil {
		return err
	}
	// The rows of a chunk this one replaces.
	if err := t.exec("replace script index rows", `DELETE FROM script_index s USING (`+chunkDigests+` AND c.chunk = $3) x
		WHERE s.wallet_id = $1 AND s.digest = x.digest AND s.descriptor_seq = $4 AND s.first_index = x.first_index`,
		c.DescriptorID[:], c.Chunk, seq); err != nil {
		return err
	}
	if err := t.exec("write script chunk", `INSERT INTO script_chunks (wallet_id, descriptor_id, chunk, first_index, data)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (wallet_id, descriptor_id, chunk) DO UPDATE SET
		first_index = excluded.first_index, data = excluded.data`, c.DescriptorID[:], c.Chunk, c.FirstIndex, c.Data); err != nil {
		return err
	}
	n := len(c.Data) / 8
	if n == 0 {
		return nil
	}
	row := make([]any, 5)
	_, err = t.tx.CopyFrom(t.ctx, pgx.Identifier{"script_index"},
		[]string{"wallet_id", "digest", "descriptor_seq", "first_index", "pos"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if n == 0 {
				return nil, nil
			}
			i := len(c.Data)/8 - n
			n--
			row[0], row[1], row[2], row[3], row[4] = t.wid, int64(binary.BigEndian.Uint64(c.Data[i*8:])), seq, c.FirstIndex, int32(i)
			return row, nil
		}))
	if err != nil {
		return storeErr(ErrDatabase, "write script index", err)
	}
	return nil
}

// DeleteChunks removes every block of a descriptor and its rows of the
// script index.
func (t *Tx) DeleteChunks(id [32]byte) error {
	seq, err := t.descriptorSeq(id)
	if err != nil {
		return err
	}
	if err := t.exec("delete script index rows", `DELETE FROM script_index s USING (`+chunkDigests+`) x
		WHERE s.wallet_id = $1 AND s.digest = x.digest AND s.descriptor_seq = $3 AND s.first_index = x.first_index`,
		id[:], seq); err != nil {
		return err
	}
	return t.exec("delete script chunks", "DELETE FROM script_chunks WHERE wallet_id = $1 AND descriptor_id = $2", id[:])
}
