package methods

import (
	"context"
	"strconv"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// maxEventLimit is the most events one listwalletevents call returns.
const maxEventLimit = 10000

// walletEvent is one listwalletevents entry, in the README's field order.
type walletEvent struct {
	Cursor      int64   `json:"cursor"`
	Kind        string  `json:"kind"`
	TxID        string  `json:"txid"`
	Depth       int32   `json:"depth"`
	BlockHash   *string `json:"blockhash,omitempty"`
	BlockHeight *int32  `json:"blockheight,omitempty"`
	Time        int64   `json:"time"`
}

// newListWalletEvents returns the listwalletevents method, the reader of
// the wallet's event log.
func newListWalletEvents(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "listwalletevents",
		Category: walletCategory,
		Description: "Returns the wallet's payment events after a cursor, oldest first: received, confirmed at each " +
			"configured depth, reorged. Resume with the cursor of the last event read.",
		Params: []rpc.Param{
			{Name: "after", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "Return events whose cursor is above this one (0: from the start)."},
			{Name: "limit", Type: rpc.TypeNumber, Optional: true, Default: "100", Description: "How many events at most (up to " + strconv.Itoa(maxEventLimit) + ")."},
		},
		Result: "[\n  {\n    \"cursor\" : n,          (numeric) The event's position in the wallet's log\n" +
			"    \"kind\" : \"str\",        (string) received, confirmed or reorged\n" +
			"    \"txid\" : \"hex\",        (string) The transaction id\n" +
			"    \"depth\" : n,           (numeric) The confirmation depth of a confirmed event, 0 otherwise\n" +
			"    \"blockhash\" : \"hex\",   (string, optional) The block holding the transaction (of reorged: the block that left)\n" +
			"    \"blockheight\" : n,     (numeric, optional) Its height\n" +
			"    \"time\" : xxx           (numeric) When the event was written, UNIX seconds\n  },\n  ...\n]",
		Examples: []string{"", "0 500"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			after, limit := int64(0), 100
			if req.Has(0) {
				if after, err = rpc.AsInt64(req.Arg(0)); err != nil {
					return nil, err
				}
			}
			if req.Has(1) {
				if limit, err = req.Int(1); err != nil {
					return nil, err
				}
			}
			if after < 0 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Negative after")
			}
			if limit < 0 {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Negative limit")
			}
			if limit > maxEventLimit {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "limit must be at most "+strconv.Itoa(maxEventLimit))
			}
			out, err := walletEvents(ctx, w, after, limit)
			if err != nil {
				return nil, err
			}
			return out, nil
		},
	}
}

// walletEvents reads at most limit events of w's log after the cursor and
// renders them as listwalletevents returns them. It is the one reader of
// the log: the RPC, the event stream and the webhooks (EventFeed) all go
// through it, so what an event holds is decided here once.
func walletEvents(ctx context.Context, w *wallet.Wallet, after int64, limit int) ([]walletEvent, error) {
	evs, err := w.Events(ctx, after, limit)
	if err != nil {
		return nil, MapError(err)
	}
	out := make([]walletEvent, len(evs))
	for i, e := range evs {
		out[i] = walletEvent{Cursor: e.Cursor, Kind: e.Kind, TxID: chainhash.Hash(e.TxID).String(),
			Depth: e.Depth, Time: e.Time}
		if e.Height >= 0 {
			h, height := chainhash.Hash(e.BlockHash).String(), e.Height
			out[i].BlockHash, out[i].BlockHeight = &h, &height
		}
	}
	return out, nil
}
