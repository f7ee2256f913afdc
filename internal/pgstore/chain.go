package pgstore

import (
	"context"
	"encoding/binary"
	"errors"

	"github.com/jackc/pgx/v5"
)

// WalletTx is a stored wallet transaction; Height is -1 for one with no
// block (the other block fields are then zero).
type WalletTx struct {
	TxID         [32]byte
	Seq          int64
	Raw          []byte
	TimeReceived int64
	TimeSmart    int64
	Height       int32
	BlockHash    [32]byte
	BlockTime    int64
	BlockIndex   int32
	// EventDepth is the highest confirmation depth the event log reported
	// since the transaction last entered a block (0: none); -1 says the
	// wallet derives it from the recorded chain position. Kept as given.
	EventDepth int32
}

// BlockRef is a block the wallet processed.
type BlockRef struct {
	Height int32
	Hash   [32]byte
}

// RescanState is a rescan in progress: heights below Next are done, Stop
// is the last height it scans.
type RescanState struct {
	Next, Stop int32
}

// ChainSnapshot is the chain part of a wallet.
type ChainSnapshot struct {
	// Txs are ordered by Seq.
	Txs []WalletTx
	// Recent are the last processed blocks, lowest first.
	Recent []BlockRef
	// Rescan is the rescan to resume, nil when none.
	Rescan *RescanState
	// Marks are the transactions' marks (nil when there are none).
	Marks map[[32]byte]TxMarks
}

// TxMarks is what the wallet records of a transaction beyond its block:
// Core's abandoned state and the fee-bump links (zero hashes: none).
type TxMarks struct {
	Abandoned  bool
	ReplacedBy [32]byte
	Replaces   [32]byte
	// ConflictHash and ConflictHeight are the block holding a
	// transaction the wallet does not record that spends one of the
	// transaction's inputs (zero hash: none).
	ConflictHash   [32]byte
	ConflictHeight int32
	// Comment and To are sendtoaddress's and sendmany's comments
	// (Core's mapValue "comment" and "to"), empty when not given.
	Comment, To string
	// LeftMempool: the unconfirmed transaction left the backend's mempool
	// as the node reading it saw (a wallet several nodes serve).
	LeftMempool bool
	// MempoolReplaced is the transaction the wallet does not record that
	// the last `replaced` event of this one named (zero: none).
	MempoolReplaced [32]byte
}

// LoadChain reads the wallet's transactions and chain state.
func (s *Store) LoadChain(ctx context.Context) (*ChainSnapshot, error) {
	snap := &ChainSnapshot{}
	id := s.id
	err := s.view(ctx, func(tx pgx.Tx) error {
		err := queryRows(ctx, tx, "read transactions", `SELECT txid, seq, raw, time_received, time_smart, block_hash,
			block_height, block_time, block_index, event_depth FROM wallet_txs WHERE wallet_id = $1 ORDER BY seq`, func(rows pgx.Rows) error {
			var t WalletTx
			var txid, hash []byte
			var height, bindex *int32
			var btime *int64
			if err := rows.Scan(&txid, &t.Seq, &t.Raw, &t.TimeReceived, &t.TimeSmart, &hash, &height, &btime, &bindex,
				&t.EventDepth); err != nil {
				return err
			}
			copy(t.TxID[:], txid)
			t.Height = -1
			if height != nil {
				t.Height = *height
				copy(t.BlockHash[:], hash)
				if btime != nil {
					t.BlockTime = *btime
				}
				if bindex != nil {
					t.BlockIndex = *bindex
				}
			}
			snap.Txs = append(snap.Txs, t)
			return nil
		}, id)
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read chain state", "SELECT height, hash FROM chain_blocks WHERE wallet_id = $1 ORDER BY height",
			func(rows pgx.Rows) error {
				var b BlockRef
				var hash []byte
				if err := rows.Scan(&b.Height, &hash); err != nil {
					return err
				}
				copy(b.Hash[:], hash)
				snap.Recent = append(snap.Recent, b)
				return nil
			}, id)
		if err != nil {
			return err
		}
		var rs RescanState
		err = tx.QueryRow(ctx, "SELECT next_height, stop_height FROM rescan WHERE wallet_id = $1", id).Scan(&rs.Next, &rs.Stop)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return storeErr(ErrDatabase, "read rescan state", err)
		default:
			snap.Rescan = &rs
		}
		err = queryRows(ctx, tx, "read transaction marks", `SELECT txid, abandoned, replaced_by, replaces,
			conflict_hash, conflict_height, comment, comment_to, left_mempool, mempool_replaced FROM wallet_tx_marks WHERE wallet_id = $1`, func(rows pgx.Rows) error {
			var txid, by, rep, ch, mr []byte
			var cheight *int32
			var comment, to *string
			var m TxMarks
			if err := rows.Scan(&txid, &m.Abandoned, &by, &rep, &ch, &cheight, &comment, &to, &m.LeftMempool, &mr); err != nil {
				return err
			}
			if comment != nil {
				m.Comment = *comment
			}
			if to != nil {
				m.To = *to
			}
			copy(m.ReplacedBy[:], by)
			copy(m.Replaces[:], rep)
			copy(m.MempoolReplaced[:], mr)
			if len(ch) == 32 && cheight != nil {
				copy(m.ConflictHash[:], ch)
				m.ConflictHeight = *cheight
			}
			if snap.Marks == nil {
				snap.Marks = map[[32]byte]TxMarks{}
			}
			snap.Marks[[32]byte(txid)] = m
			return nil
		}, id)
		if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// blockArgs returns the block columns of w, all NULL for an unconfirmed
// transaction.
func blockArgs(w WalletTx) (hash, height, btime, bindex any) {
	if w.Height >= 0 {
		return w.BlockHash[:], w.Height, w.BlockTime, w.BlockIndex
	}
	return nil, nil, nil, nil
}

// PutWalletTx inserts a transaction or updates its block, and returns its
// sequence number (new on insert, kept on update, as are the times).
func (t *Tx) PutWalletTx(w WalletTx) (int64, error) {
	hash, height, btime, bindex := blockArgs(w)
	var seq int64
	t.chain = true
	err := t.tx.QueryRow(t.ctx, `INSERT INTO wallet_txs (wallet_id, txid, seq, raw, time_received, time_smart,
		block_hash, block_height, block_time, block_index, event_depth) VALUES ($1, $2,
		(SELECT coalesce(max(seq), 0) + 1 FROM wallet_txs WHERE wallet_id = $1), $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (wallet_id, txid) DO UPDATE SET raw = excluded.raw, block_hash = excluded.block_hash,
		block_height = excluded.block_height, block_time = excluded.block_time, block_index = excluded.block_index,
		event_depth = excluded.event_depth
		RETURNING seq`, t.wid, w.TxID[:], w.Raw, w.TimeReceived, w.TimeSmart, hash, height, btime, bindex,
		w.EventDepth).Scan(&seq)
	if err != nil {
		return 0, storeErr(ErrDatabase, "write transaction", err)
	}
	return seq, nil
}

// UnconfirmAbove removes the block of every transaction confirmed above
// height, and the depths reported of it.
func (t *Tx) UnconfirmAbove(height int32) error {
	return t.chainExec("unconfirm transactions", `UPDATE wallet_txs SET block_hash = NULL, block_height = NULL,
		block_time = NULL, block_index = NULL, event_depth = 0 WHERE wallet_id = $1 AND block_height > $2`, height)
}

// SetEventDepth records the highest confirmation depth the event log
// reported for a transaction.
func (t *Tx) SetEventDepth(txid [32]byte, depth int32) error {
	return t.chainExec("write transaction", "UPDATE wallet_txs SET event_depth = $3 WHERE wallet_id = $1 AND txid = $2",
		txid[:], depth)
}

// DeleteWalletTx removes a transaction; removing an unknown one is not an
// error.
func (t *Tx) DeleteWalletTx(txid [32]byte) error {
	if err := t.chainExec("delete transaction", "DELETE FROM wallet_tx_marks WHERE wallet_id = $1 AND txid = $2", txid[:]); err != nil {
		return err
	}
	return t.chainExec("delete transaction", "DELETE FROM wallet_txs WHERE wallet_id = $1 AND txid = $2", txid[:])
}

// PutTxMarks records a transaction's marks; zero marks remove its row.
func (t *Tx) PutTxMarks(txid [32]byte, m TxMarks) error {
	if m == (TxMarks{}) {
		return t.chainExec("write transaction marks", "DELETE FROM wallet_tx_marks WHERE wallet_id = $1 AND txid = $2", txid[:])
	}
	var by, rep any
	if m.ReplacedBy != ([32]byte{}) {
		by = m.ReplacedBy[:]
	}
	if m.Replaces != ([32]byte{}) {
		rep = m.Replaces[:]
	}
	var ch, cheight any
	if m.ConflictHash != ([32]byte{}) {
		ch, cheight = m.ConflictHash[:], m.ConflictHeight
	}
	var comment, to any
	if m.Comment != "" {
		comment = m.Comment
	}
	if m.To != "" {
		to = m.To
	}
	var mr any
	if m.MempoolReplaced != ([32]byte{}) {
		mr = m.MempoolReplaced[:]
	}
	return t.chainExec("write transaction marks", `INSERT INTO wallet_tx_marks (wallet_id, txid, abandoned, replaced_by, replaces,
		conflict_hash, conflict_height, comment, comment_to, left_mempool, mempool_replaced)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (wallet_id, txid) DO UPDATE SET
		abandoned = excluded.abandoned, replaced_by = excluded.replaced_by, replaces = excluded.replaces,
		conflict_hash = excluded.conflict_hash, conflict_height = excluded.conflict_height,
		comment = excluded.comment, comment_to = excluded.comment_to, left_mempool = excluded.left_mempool,
		mempool_replaced = excluded.mempool_replaced`,
		txid[:], m.Abandoned, by, rep, ch, cheight, comment, to, m.LeftMempool, mr)
}

// SetRecentBlocks replaces the recorded chain state.
func (t *Tx) SetRecentBlocks(blocks []BlockRef) error {
	if err := t.chainExec("write chain state", "DELETE FROM chain_blocks WHERE wallet_id = $1"); err != nil {
		return err
	}
	if len(blocks) == 0 {
		return nil
	}
	heights := make([]int32, len(blocks))
	hashes := make([][]byte, len(blocks))
	for i, b := range blocks {
		heights[i] = b.Height
		hashes[i] = append([]byte(nil), b.Hash[:]...)
	}
	return t.chainExec("write chain state", `INSERT INTO chain_blocks (wallet_id, height, hash)
		SELECT $1, h, x FROM unnest($2::integer[], $3::bytea[]) AS u (h, x)`, heights, hashes)
}

// SetRescan records a rescan in progress; nil removes the record.
func (t *Tx) SetRescan(rs *RescanState) error {
	if rs == nil {
		return t.chainExec("write rescan state", "DELETE FROM rescan WHERE wallet_id = $1")
	}
	return t.chainExec("write rescan state", `INSERT INTO rescan (wallet_id, next_height, stop_height) VALUES ($1, $2, $3)
		ON CONFLICT (wallet_id) DO UPDATE SET next_height = excluded.next_height, stop_height = excluded.stop_height`,
		rs.Next, rs.Stop)
}

// Event is one entry of the wallet's event log; Height is -1 when the
// transaction has no block.
type Event struct {
	Cursor    int64
	Kind      string
	TxID      [32]byte
	Depth     int32
	Height    int32
	BlockHash [32]byte
	Time      int64
	// Detail is the wallet's encoding of the rest of the event, kept as
	// given (nil for events written before schema version 4).
	Detail []byte
}

// AppendEvent adds an event and returns its cursor, the wallet's next.
func (t *Tx) AppendEvent(e Event) (int64, error) {
	var cursor int64
	t.chain = true
	if err := t.tx.QueryRow(t.ctx, "UPDATE wallets SET event_cursor = event_cursor + 1 WHERE id = $1 RETURNING event_cursor",
		t.wid).Scan(&cursor); err != nil {
		return 0, storeErr(ErrDatabase, "write event", err)
	}
	e.Cursor = cursor
	return cursor, t.putEvent(e)
}

// PutEvent adds an event with the cursor it carries (a restore keeps the
// cursors of the backup); later appends continue after the highest.
func (t *Tx) PutEvent(e Event) error {
	if err := t.chainExec("write event", "UPDATE wallets SET event_cursor = greatest(event_cursor, $2) WHERE id = $1",
		e.Cursor); err != nil {
		return err
	}
	return t.putEvent(e)
}

func (t *Tx) putEvent(e Event) error {
	var height, hash any
	if e.Height >= 0 {
		height, hash = e.Height, e.BlockHash[:]
	}
	return t.chainExec("write event", `INSERT INTO wallet_events (wallet_id, cursor, kind, txid, depth, block_height,
		block_hash, time, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, e.Cursor, e.Kind, e.TxID[:], e.Depth,
		height, hash, e.Time, e.Detail)
}

// metaEventsPruned is the meta key of the highest cursor retention
// removed: 8 bytes big-endian, absent when none was (the SQLite store's
// key, so that a copy between the stores keeps it).
const metaEventsPruned = "events_pruned_through"

// eventsPruned reads the highest cursor retention removed.
func eventsPruned(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id int64) (int64, error) {
	var v []byte
	err := q.QueryRow(ctx, "SELECT value FROM meta WHERE wallet_id = $1 AND key = $2", id, metaEventsPruned).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, storeErr(ErrDatabase, "read event retention", err)
	case len(v) != 8:
		return 0, nil
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// PruneEvents removes the oldest events: all but the newest keep when keep
// is above 0, and those older than the first event written at or after
// before (UNIX seconds) when before is above 0, but never one that a
// delivery target of held has not acknowledged (one with no acknowledged
// cursor holds the whole log); the newest event always stays. Only a
// prefix of the log is removed. It returns the highest cursor removed so
// far (0 when none) and how many this call removed.
func (t *Tx) PruneEvents(keep, before int64, held []string) (through, removed int64, err error) {
	if through, err = eventsPruned(t.ctx, t.tx, t.wid); err != nil {
		return 0, 0, err
	}
	var last *int64
	if err := t.tx.QueryRow(t.ctx, "SELECT max(cursor) FROM wallet_events WHERE wallet_id = $1", t.wid).
		Scan(&last); err != nil {
		return 0, 0, storeErr(ErrDatabase, "read events", err)
	}
	if last == nil {
		return through, 0, nil
	}
	cut := int64(0)
	if keep > 0 {
		cut = *last - keep
	}
	if before > 0 {
		var first int64
		err := t.tx.QueryRow(t.ctx, `SELECT cursor FROM wallet_events WHERE wallet_id = $1 AND time >= $2
			ORDER BY cursor LIMIT 1`, t.wid, before).Scan(&first)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			cut = *last
		case err != nil:
			return 0, 0, storeErr(ErrDatabase, "read events", err)
		default:
			cut = max(cut, first-1)
		}
	}
	cut = min(cut, *last-1)
	for _, target := range held {
		if cut <= through {
			break
		}
		var acked int64
		err := t.tx.QueryRow(t.ctx, "SELECT cursor FROM event_deliveries WHERE wallet_id = $1 AND target = $2",
			t.wid, target).Scan(&acked)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, 0, storeErr(ErrDatabase, "read delivery cursor", err)
		}
		cut = min(cut, acked)
	}
	if cut <= through {
		return through, 0, nil
	}
	tag, err := t.tx.Exec(t.ctx, "DELETE FROM wallet_events WHERE wallet_id = $1 AND cursor <= $2", t.wid, cut)
	if err != nil {
		return 0, 0, storeErr(ErrDatabase, "remove events", err)
	}
	if err := t.PutMeta(metaEventsPruned, binary.BigEndian.AppendUint64(nil, uint64(cut))); err != nil {
		return 0, 0, err
	}
	return cut, tag.RowsAffected(), nil
}

// Events returns at most limit events whose cursor is above after, in
// cursor order, and the highest cursor retention removed (0 when none),
// read together.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]Event, int64, error) {
	var out []Event
	var pruned int64
	err := s.view(ctx, func(tx pgx.Tx) error {
		var err error
		if pruned, err = eventsPruned(ctx, tx, s.id); err != nil {
			return err
		}
		return queryRows(ctx, tx, "read events", `SELECT cursor, kind, txid, depth, block_height, block_hash, time, detail
			FROM wallet_events WHERE wallet_id = $1 AND cursor > $2 ORDER BY cursor LIMIT $3`, func(rows pgx.Rows) error {
			var e Event
			var txid, hash []byte
			var height *int32
			if err := rows.Scan(&e.Cursor, &e.Kind, &txid, &e.Depth, &height, &hash, &e.Time, &e.Detail); err != nil {
				return err
			}
			copy(e.TxID[:], txid)
			e.Height = -1
			if height != nil {
				e.Height = *height
				copy(e.BlockHash[:], hash)
			}
			out = append(out, e)
			return nil
		}, s.id, after, limit)
	})
	return out, pruned, err
}
