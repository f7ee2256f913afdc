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

// walletEvent is one event as listwalletevents and the event stream render
// it, in the README's field order.
type walletEvent struct {
	Cursor      int64         `json:"cursor"`
	Kind        string        `json:"kind"`
	TxID        string        `json:"txid"`
	Depth       int32         `json:"depth"`
	BlockHash   *string       `json:"blockhash,omitempty"`
	BlockHeight *int32        `json:"blockheight,omitempty"`
	Time        int64         `json:"time"`
	Amount      rpc.Amount    `json:"amount"`
	Fee         *rpc.Amount   `json:"fee,omitempty"`
	Related     string        `json:"related,omitempty"`
	Outputs     []eventOutput `json:"outputs"`
}

// eventOutput is an output of the event's transaction that pays the
// wallet.
type eventOutput struct {
	Vout        uint32     `json:"vout"`
	Address     string     `json:"address,omitempty"`
	Amount      rpc.Amount `json:"amount"`
	Label       *string    `json:"label,omitempty"`
	ParentDescs []string   `json:"parent_descs"`
}

// renderEvent is the JSON form of an event of the wallet's log.
func renderEvent(e wallet.EventRecord) walletEvent {
	out := walletEvent{Cursor: e.Cursor, Kind: e.Kind, TxID: chainhash.Hash(e.TxID).String(),
		Depth: e.Depth, Time: e.Time, Amount: rpc.Amount(e.Amount), Outputs: make([]eventOutput, len(e.Outputs))}
	if e.Height >= 0 {
		h, height := chainhash.Hash(e.BlockHash).String(), e.Height
		out.BlockHash, out.BlockHeight = &h, &height
	}
	if e.Fee != nil {
		f := rpc.Amount(*e.Fee)
		out.Fee = &f
	}
	if e.Related != ([32]byte{}) {
		out.Related = chainhash.Hash(e.Related).String()
	}
	for i, o := range e.Outputs {
		out.Outputs[i] = eventOutput{Vout: o.Vout, Address: o.Address, Amount: rpc.Amount(o.Amount),
			Label: o.Label, ParentDescs: nonNil(o.ParentDescs)}
	}
	return out
}

// newListWalletEvents returns the listwalletevents method, the reader of
// the wallet's event log.
func newListWalletEvents(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "listwalletevents",
		Category: walletCategory,
		Description: "Returns the wallet's payment events after a cursor, oldest first: received, sent, confirmed at " +
			"each configured depth, reorged, replaced, conflicted, abandoned. Resume with the cursor of the last event " +
			"read. A cursor older than what -eventretention keeps is an error.",
		Params: []rpc.Param{
			{Name: "after", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "Return events whose cursor is above this one (0: from the start)."},
			{Name: "limit", Type: rpc.TypeNumber, Optional: true, Default: "100", Description: "How many events at most (up to " + strconv.Itoa(maxEventLimit) + ")."},
		},
		Result: "[\n  {\n    \"cursor\" : n,          (numeric) The event's position in the wallet's log\n" +
			"    \"kind\" : \"str\",        (string) received, sent, confirmed, reorged, replaced, conflicted or abandoned\n" +
			"    \"txid\" : \"hex\",        (string) The transaction id\n" +
			"    \"depth\" : n,           (numeric) The confirmation depth of a confirmed event, 0 otherwise\n" +
			"    \"blockhash\" : \"hex\",   (string, optional) The block holding the transaction (of reorged: the block that left)\n" +
			"    \"blockheight\" : n,     (numeric, optional) Its height\n" +
			"    \"time\" : xxx,          (numeric) When the event was written, UNIX seconds\n" +
			"    \"amount\" : n,          (numeric) The change of the wallet's balance in BTC, the fee left out (negative for sends)\n" +
			"    \"fee\" : n,             (numeric, optional) The fee, negative, of a transaction spending the wallet's coins\n" +
			"    \"related\" : \"hex\",     (string, optional) The replacing or conflicting transaction\n" +
			"    \"outputs\" : [          (json array) The transaction's outputs paying the wallet\n" +
			"      {\n        \"vout\" : n,         (numeric) The output index\n" +
			"        \"address\" : \"str\",  (string, optional) Its address\n" +
			"        \"amount\" : n,       (numeric) Its value in BTC\n" +
			"        \"label\" : \"str\",    (string, optional) The address's label\n" +
			"        \"parent_descs\" : [  (json array) The wallet's descriptors producing the script\n" +
			"          \"desc\", ...\n        ]\n      },\n      ...\n    ]\n  },\n  ...\n]",
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
		out[i] = renderEvent(e)
	}
	return out, nil
}
