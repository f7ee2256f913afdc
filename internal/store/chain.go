package store

import (
	"context"
	"database/sql"
)

// WalletTx is a stored wallet transaction. Height is -1 for a transaction
// with no block (then the other block fields are zero).
type WalletTx struct {
	// TxID is the transaction's id (internal byte order).
	TxID [32]byte
	// Seq orders transactions by first sight; assigned by PutWalletTx on
	// insert and kept on update.
	Seq int64
	// Raw is the serialized transaction, witnesses included.
	Raw []byte
	// TimeReceived is when the wallet first saw it, in UNIX seconds.
	TimeReceived int64
	// TimeSmart is the time the listings show (Core's nTimeSmart), zero
	// when unknown; kept on update, as is TimeReceived.
	TimeSmart int64
	// Height, BlockHash, BlockTime and BlockIndex place it in its block.
	Height     int32
	BlockHash  [32]byte
	BlockTime  int64
	BlockIndex int32
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

// RescanState is a rescan in progress: heights below Next are done, Stop is
// the last height it scans.
type RescanState struct {
	Next, Stop int32
}

// ChainSnapshot is the chain part of a wallet database.
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
	// Comment and To are the comment and comment_to given to
	// sendtoaddress or sendmany (Core's mapValue "comment" and "to"),
	// empty when not given.
	Comment, To string
	// LeftMempool: the unconfirmed transaction left the backend's mempool
	// as the node reading it saw (a wallet several nodes serve).
	LeftMempool bool
	// MempoolReplaced is the transaction the wallet does not record that
	// the last `replaced` event of this one named (zero: none).
	MempoolReplaced [32]byte
}

// IsZero reports whether m records nothing.
func (m TxMarks) IsZero() bool { return m == TxMarks{} }

// LoadChain reads the wallet's transactions and chain state.
func (s *Store) LoadChain(ctx context.Context) (*ChainSnapshot, error) {
	snap := &ChainSnapshot{}
	err := s.view(ctx, func(tx *sql.Tx) error {
		err := queryRows(ctx, tx, "read transactions", `SELECT txid, seq, raw, time_received, time_smart, block_hash,
			block_height, block_time, block_index, event_depth FROM wallet_txs ORDER BY seq`, func(rows *sql.Rows) error {
			var t WalletTx
			var id, hash []byte
			var height, btime, bindex sql.NullInt64
			if err := rows.Scan(&id, &t.Seq, &t.Raw, &t.TimeReceived, &t.TimeSmart, &hash, &height,
				&btime, &bindex, &t.EventDepth); err != nil {
				return err
			}
			copy(t.TxID[:], id)
			t.Height = -1
			if height.Valid {
				t.Height = int32(height.Int64)
				copy(t.BlockHash[:], hash)
				t.BlockTime = btime.Int64
				t.BlockIndex = int32(bindex.Int64)
			}
			snap.Txs = append(snap.Txs, t)
			return nil
		})
		if err != nil {
			return err
		}
		err = queryRows(ctx, tx, "read chain state", "SELECT height, hash FROM chain_blocks ORDER BY height",
			func(rows *sql.Rows) error {
				var b BlockRef
				var hash []byte
				if err := rows.Scan(&b.Height, &hash); err != nil {
					return err
				}
				copy(b.Hash[:], hash)
				snap.Recent = append(snap.Recent, b)
				return nil
			})
		if err != nil {
			return err
		}
		var rs RescanState
		err = tx.QueryRowContext(ctx, "SELECT next_height, stop_height FROM rescan WHERE id = 1").
			Scan(&rs.Next, &rs.Stop)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return storeErr(ErrDatabase, "read rescan state", err)
		default:
			snap.Rescan = &rs
		}
		err = queryRows(ctx, tx, "read transaction marks", `SELECT txid, abandoned, replaced_by, replaces,
			conflict_hash, conflict_height, comment, comment_to, left_mempool, mempool_replaced FROM wallet_tx_marks`, func(rows *sql.Rows) error {
			var id, by, rep, ch, mr []byte
			var cheight sql.NullInt64
			var comment, to sql.NullString
			var m TxMarks
			if err := rows.Scan(&id, &m.Abandoned, &by, &rep, &ch, &cheight, &comment, &to, &m.LeftMempool, &mr); err != nil {
				return err
			}
			m.Comment, m.To = comment.String, to.String
			copy(m.ReplacedBy[:], by)
			copy(m.Replaces[:], rep)
			copy(m.MempoolReplaced[:], mr)
			if len(ch) == 32 && cheight.Valid {
				copy(m.ConflictHash[:], ch)
				m.ConflictHeight = int32(cheight.Int64)
			}
			if snap.Marks == nil {
				snap.Marks = map[[32]byte]TxMarks{}
			}
			snap.Marks[[32]byte(id)] = m
			return nil
		})
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

// PutWalletTx inserts a transaction or updates its block, and returns its
// sequence number (new on insert, kept on update, as is TimeReceived).
func (t *Tx) PutWalletTx(w WalletTx) (int64, error) {
	var seq int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT seq FROM wallet_txs WHERE txid = ?", w.TxID[:]).Scan(&seq)
	var hash, height, btime, bindex any
	if w.Height >= 0 {
		hash, height, btime, bindex = w.BlockHash[:], w.Height, w.BlockTime, w.BlockIndex
	}
	switch {
	case err == sql.ErrNoRows:
		if err := t.tx.QueryRowContext(t.ctx, "SELECT coalesce(max(seq), 0) + 1 FROM wallet_txs").Scan(&seq); err != nil {
			return 0, storeErr(ErrDatabase, "write transaction", err)
		}
		return seq, t.exec("write transaction", `INSERT INTO wallet_txs (txid, seq, raw, time_received,
			time_smart, block_hash, block_height, block_time, block_index, event_depth)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.TxID[:], seq, w.Raw, w.TimeReceived, w.TimeSmart, hash, height, btime, bindex, w.EventDepth)
	case err != nil:
		return 0, storeErr(ErrDatabase, "write transaction", err)
	}
	return seq, t.exec("write transaction", `UPDATE wallet_txs SET raw = ?, block_hash = ?, block_height = ?,
		block_time = ?, block_index = ?, event_depth = ? WHERE txid = ?`, w.Raw, hash, height, btime, bindex,
		w.EventDepth, w.TxID[:])
}

const querySetEventDepth = "UPDATE wallet_txs SET event_depth = ? WHERE txid = ?"

// SetEventDepth records the highest confirmation depth the event log
// reported for a transaction.
func (t *Tx) SetEventDepth(txid [32]byte, depth int32) error {
	if _, err := t.execPrepared(querySetEventDepth, depth, txid[:]); err != nil {
		return storeErr(ErrDatabase, "write transaction", err)
	}
	return nil
}

// UnconfirmAbove removes the block of every transaction confirmed above
// height, and the depths reported of it.
func (t *Tx) UnconfirmAbove(height int32) error {
	return t.exec("unconfirm transactions", `UPDATE wallet_txs SET block_hash = NULL, block_height = NULL,
		block_time = NULL, block_index = NULL, event_depth = 0 WHERE block_height > ?`, height)
}

// DeleteWalletTx removes a transaction; removing an unknown one is not an
// error.
func (t *Tx) DeleteWalletTx(txid [32]byte) error {
	if err := t.exec("delete transaction", "DELETE FROM wallet_tx_marks WHERE txid = ?", txid[:]); err != nil {
		return err
	}
	return t.exec("delete transaction", "DELETE FROM wallet_txs WHERE txid = ?", txid[:])
}

// PutTxMarks records a transaction's marks; zero marks remove its row.
func (t *Tx) PutTxMarks(txid [32]byte, m TxMarks) error {
	if m.IsZero() {
		return t.exec("write transaction marks", "DELETE FROM wallet_tx_marks WHERE txid = ?", txid[:])
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
	var mr any
	if m.MempoolReplaced != ([32]byte{}) {
		mr = m.MempoolReplaced[:]
	}
	return t.exec("write transaction marks", `INSERT INTO wallet_tx_marks (txid, abandoned, replaced_by, replaces,
		conflict_hash, conflict_height, comment, comment_to, left_mempool, mempool_replaced)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (txid) DO UPDATE SET
		abandoned = excluded.abandoned, replaced_by = excluded.replaced_by, replaces = excluded.replaces,
		conflict_hash = excluded.conflict_hash, conflict_height = excluded.conflict_height,
		comment = excluded.comment, comment_to = excluded.comment_to, left_mempool = excluded.left_mempool,
		mempool_replaced = excluded.mempool_replaced`,
		txid[:], m.Abandoned, by, rep, ch, cheight, nullString(m.Comment), nullString(m.To), m.LeftMempool, mr)
}

// nullString is s, or NULL when it is empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// SetRecentBlocks replaces the recorded chain state. When the store knows
// the recorded blocks (it wrote them), it writes only what changed: a
// chain follower's list of the last blocks moves by one block at a time,
// and rewriting every row of it (a hundred) cost each block a hundred
// statements.
func (t *Tx) SetRecentBlocks(blocks []BlockRef) error {
	old, known := t.s.recent, t.s.recentKnown
	if t.recentSet {
		old, known = t.recent, true
	}
	t.recent, t.recentSet = append([]BlockRef(nil), blocks...), true
	if !known {
		if err := t.exec("write chain state", "DELETE FROM chain_blocks"); err != nil {
			return err
		}
		for _, b := range blocks {
			if _, err := t.execPrepared(queryPutRecentBlock, b.Height, b.Hash[:]); err != nil {
				return storeErr(ErrDatabase, "write chain state", err)
			}
		}
		return nil
	}
	if len(blocks) == 0 {
		if len(old) == 0 {
			return nil
		}
		return t.exec("write chain state", "DELETE FROM chain_blocks")
	}
	lo, hi := blocks[0].Height, blocks[len(blocks)-1].Height
	kept := make(map[int32][32]byte, len(blocks))
	var outside bool
	for _, b := range old {
		if b.Height < lo || b.Height > hi {
			outside = true
			continue
		}
		kept[b.Height] = b.Hash
	}
	if outside {
		if _, err := t.execPrepared(queryTrimRecentBlocks, lo, hi); err != nil {
			return storeErr(ErrDatabase, "write chain state", err)
		}
	}
	want := make(map[int32]bool, len(blocks))
	for _, b := range blocks {
		want[b.Height] = true
		if h, ok := kept[b.Height]; ok && h == b.Hash {
			continue
		}
		if _, err := t.execPrepared(queryPutRecentBlock, b.Height, b.Hash[:]); err != nil {
			return storeErr(ErrDatabase, "write chain state", err)
		}
	}
	for h := range kept {
		if !want[h] {
			if err := t.exec("write chain state", "DELETE FROM chain_blocks WHERE height = ?", h); err != nil {
				return err
			}
		}
	}
	return nil
}

const (
	queryPutRecentBlock = `INSERT INTO chain_blocks (height, hash) VALUES (?, ?)
		ON CONFLICT (height) DO UPDATE SET hash = excluded.hash`
	queryTrimRecentBlocks = "DELETE FROM chain_blocks WHERE height < ? OR height > ?"
)

// SetRescan records a rescan in progress; nil removes the record.
func (t *Tx) SetRescan(rs *RescanState) error {
	if rs == nil {
		return t.exec("write rescan state", "DELETE FROM rescan")
	}
	return t.exec("write rescan state", `INSERT INTO rescan (id, next_height, stop_height) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET next_height = excluded.next_height, stop_height = excluded.stop_height`,
		rs.Next, rs.Stop)
}
