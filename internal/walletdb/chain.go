package walletdb

import (
	"context"
	"time"

	"github.com/descwallet/descwallet/internal/store"
	"github.com/descwallet/descwallet/internal/wallet"
)

var _ wallet.ChainStore = db{}

// LoadChain reads the wallet's transactions and chain state.
func (d db) LoadChain(ctx context.Context) (*wallet.ChainSnapshot, error) {
	snap, err := d.s.LoadChain(ctx)
	if err != nil {
		return nil, err
	}
	return walletChain(snap.Txs, snap.Recent, snap.Rescan, snap.Marks), nil
}

// Events reads the event log after a cursor, and how far retention
// removed it.
func (d db) Events(ctx context.Context, after int64, limit int) ([]wallet.EventRecord, int64, error) {
	evs, pruned, err := d.s.Events(ctx, after, limit)
	if err != nil {
		return nil, 0, err
	}
	out, err := walletEvents(evs)
	if err != nil {
		return nil, 0, err
	}
	return out, pruned, nil
}

// AppendEvents appends the events with as few statements as the store
// allows; events of one transaction that carry the same content (received
// and confirmed at depth 1 together) share its encoding.
func (t chainTxn) AppendEvents(evs []wallet.EventRecord) error {
	out := make([]store.Event, len(evs))
	for i, e := range evs {
		out[i] = store.Event{Kind: e.Kind, TxID: e.TxID, Depth: e.Depth, Height: e.Height,
			BlockHash: e.BlockHash, Time: e.Time}
		if i > 0 && wallet.SameEventDetail(evs[i-1], e) {
			out[i].Detail = out[i-1].Detail
		} else {
			out[i].Detail = wallet.EncodeEventDetail(e)
		}
	}
	return t.tx.AppendEvents(out)
}

func (t chainTxn) AppendEvent(e wallet.EventRecord) (int64, error) {
	return t.tx.AppendEvent(storeEvent[store.Event](e))
}

func (t chainTxn) SetEventDepth(txid [32]byte, depth int32) error {
	return t.tx.SetEventDepth(txid, depth)
}

func (t chainTxn) PruneEvents(keep, before int64, held []string) (int64, int64, error) {
	return t.tx.PruneEvents(keep, before, held)
}

// UpdateChain runs fn in one write transaction that can write both the
// wallet's descriptors and its chain data.
func (d db) UpdateChain(ctx context.Context, fn func(wallet.ChainStoreTx) error) error {
	t0 := time.Now()
	err := d.s.Update(ctx, func(tx *store.Tx) error { return fn(chainTxn{txn{tx}}) })
	d.debug("chain write transaction", "committed", err == nil, "took", since(t0))
	return err
}

type chainTxn struct{ txn }

func (t chainTxn) PutTx(r wallet.TxRecord) (int64, error) {
	return t.tx.PutWalletTx(store.WalletTx(r))
}

func (t chainTxn) DeleteTx(txid [32]byte) error { return t.tx.DeleteWalletTx(txid) }

func (t chainTxn) PutTxMarks(txid [32]byte, m wallet.TxMarks) error {
	return t.tx.PutTxMarks(txid, store.TxMarks(m))
}

func (t chainTxn) UnconfirmAbove(height int32) error { return t.tx.UnconfirmAbove(height) }

func (t chainTxn) SetRecentBlocks(blocks []wallet.BlockRef) error {
	return t.tx.SetRecentBlocks(storeBlocks[store.BlockRef](blocks))
}

func (t chainTxn) SetRescan(rs *wallet.RescanState) error {
	if rs == nil {
		return t.tx.SetRescan(nil)
	}
	return t.tx.SetRescan(&store.RescanState{Next: rs.Next, Stop: rs.Stop})
}

// DeliveryCursor reads where a delivery target stands in the event log.
func (d db) DeliveryCursor(ctx context.Context, target string) (int64, error) {
	return d.s.DeliveryCursor(ctx, target)
}

// SetDeliveryCursor records a delivery target's acknowledged cursor.
func (d db) SetDeliveryCursor(ctx context.Context, target string, cursor int64) error {
	return d.s.SetDeliveryCursor(ctx, target, cursor, time.Now().Unix())
}
