package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

const (
	// MaxMempoolIDs bounds how many mempool transaction ids one read
	// returns.
	MaxMempoolIDs = 500000

	// MaxTxBytes bounds one serialized transaction.
	MaxTxBytes = wire.MaxBlockPayload

	// txsPerBatch is how many transactions one batch asks for; a mempool
	// transaction is at most 400,000 weight units (800 kB of hex), so a
	// batch stays well within maxReplyBytes.
	txsPerBatch = 50
)

// MempoolTxIDs returns the ids of the mempool's transactions
// (getrawmempool), at most MaxMempoolIDs.
func (c *Client) MempoolTxIDs(ctx context.Context) ([]chainhash.Hash, error) {
	cl := &call{Method: "getrawmempool", Params: []any{false}}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return nil, err
	}
	if cl.Err != nil {
		return nil, c.callErr(cl.Method, "", cl.Err)
	}
	var ids []json.RawMessage
	if err := json.Unmarshal(cl.Result, &ids); err != nil {
		return nil, c.resultErr(cl.Method, "", cl.Result, err)
	}
	if len(ids) > MaxMempoolIDs {
		ids = ids[:MaxMempoolIDs]
	}
	out := make([]chainhash.Hash, len(ids))
	for i, raw := range ids {
		h, err := hashResult(raw)
		if err != nil {
			return nil, c.resultErr(cl.Method, "", raw, err)
		}
		out[i] = h
	}
	return out, nil
}

// MempoolTxs returns the given transactions (getrawtransaction <txid> 0),
// decoded and checked against their ids; an entry is nil when the backend
// does not know the transaction (any more).
func (c *Client) MempoolTxs(ctx context.Context, ids []chainhash.Hash) ([]*wire.MsgTx, error) {
	calls := make([]*call, len(ids))
	for i, id := range ids {
		calls[i] = &call{Method: "getrawtransaction", Params: []any{id.String(), 0}}
	}
	if err := c.run(ctx, calls, txsPerBatch); err != nil {
		return nil, err
	}
	out := make([]*wire.MsgTx, len(ids))
	for i, cl := range calls {
		subject := ids[i].String()
		if cl.Err != nil {
			if cl.Err.Code == -5 {
				// Mined (without a transaction index) or evicted
				// since it was listed.
				continue
			}
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		raw, err := decodeHexResult(cl.Result, MaxTxBytes)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		var tx wire.MsgTx
		if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
			return nil, chainErr(ErrBadReply, fmt.Sprintf("%s: %s %s: undecodable transaction",
				c.c.name, cl.Method, subject), err)
		}
		if tx.TxHash() != ids[i] {
			return nil, chainErr(ErrBadReply, fmt.Sprintf("%s: %s %s: transaction %s answered",
				c.c.name, cl.Method, subject, tx.TxHash()), nil)
		}
		out[i] = &tx
	}
	return out, nil
}
