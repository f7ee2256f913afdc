package store

// PutEvent adds an event with the cursor it carries, for a copy of
// another wallet's log (a restore keeps the cursors its clients hold);
// AppendEvent continues after the highest cursor.
func (t *Tx) PutEvent(e Event) error {
	var height, hash any
	if e.Height >= 0 {
		height, hash = e.Height, e.BlockHash[:]
	}
	return t.exec("write event", `INSERT INTO wallet_events (cursor, kind, txid, depth, block_height,
		block_hash, time) VALUES (?, ?, ?, ?, ?, ?, ?)`, e.Cursor, e.Kind, e.TxID[:], e.Depth, height, hash, e.Time)
}
