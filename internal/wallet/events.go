package wallet

import (
	"context"
	"slices"
)

// Event kinds of the wallet's event log.
const (
	// EventReceived: a transaction of the wallet was first recorded,
	// unconfirmed or in a block.
	EventReceived = "received"
	// EventConfirmed: a transaction reached one of the configured
	// confirmation depths (Depth) in its block.
	EventConfirmed = "confirmed"
	// EventReorged: a confirmed transaction's block left the chain.
	EventReorged = "reorged"
)

// DefaultEventDepths are the confirmation depths reported when none are
// configured.
var DefaultEventDepths = []int32{1, 6}

// EventRecord is one entry of the wallet's event log, written in the same
// store transaction as the change it reports. Cursor is its position
// (increasing, never reused); Height is -1 and BlockHash zero when the
// transaction has no block; Time is when it was written (UNIX seconds).
type EventRecord struct {
	Cursor    int64
	Kind      string
	TxID      [32]byte
	Depth     int32
	Height    int32
	BlockHash [32]byte
	Time      int64
}

// EventStore is the optional part of a Store that reads the event log.
type EventStore interface {
	// Events returns at most limit events after the cursor, in order.
	Events(ctx context.Context, after int64, limit int) ([]EventRecord, error)
}

// Events returns at most limit events of the log whose cursor is above
// after, in cursor order; none when the store keeps no log.
func (w *Wallet) Events(ctx context.Context, after int64, limit int) ([]EventRecord, error) {
	es, ok := w.store.(EventStore)
	if !ok {
		return nil, nil
	}
	evs, err := es.Events(ctx, after, limit)
	if err != nil {
		return nil, storageErr(err)
	}
	return evs, nil
}

// eventDepths returns the configured confirmation depths, ascending.
func (w *Wallet) eventDepths() []int32 {
	if len(w.cfg.EventDepths) == 0 {
		return DefaultEventDepths
	}
	return w.cfg.EventDepths
}

// reportsDepth reports whether depth d is configured.
func (w *Wallet) reportsDepth(d int32) bool { return slices.Contains(w.eventDepths(), d) }

func txEvent(kind string, r TxRecord, depth int32, now int64) EventRecord {
	e := EventRecord{Kind: kind, TxID: r.TxID, Depth: depth, Height: r.Height, Time: now}
	if r.Height >= 0 {
		e.BlockHash = r.BlockHash
	} else {
		e.Height = -1
	}
	return e
}

// recordEvents are the events of recording r, given the transaction's
// previous state (nil when new): received for a new transaction, then
// confirmed at depth 1 when it is in a block it was not in before. The
// caller holds c.mu.
func (w *Wallet) recordEvents(old *walletTx, r TxRecord, now int64) []EventRecord {
	var evs []EventRecord
	if old == nil {
		evs = append(evs, txEvent(EventReceived, r, 0, now))
	}
	moved := old == nil || old.rec.Height != r.Height || old.rec.BlockHash != r.BlockHash
	if r.Height >= 0 && moved && w.reportsDepth(1) {
		evs = append(evs, txEvent(EventConfirmed, r, 1, now))
	}
	return evs
}

// depthEvents are the confirmed events due at tip height tip: each
// configured depth a confirmed transaction reached and was not reported
// at. It returns the new reported depth per transaction. The caller holds
// c.mu.
func (w *Wallet) depthEvents(tip int32, now int64) ([]EventRecord, map[*walletTx]int32) {
	depths := w.eventDepths()
	top := depths[len(depths)-1]
	var evs []EventRecord
	var reached map[*walletTx]int32
	for _, wt := range w.chain.order {
		if !wt.confirmed() || wt.evDepth >= top {
			continue
		}
		have := tip - wt.rec.Height + 1
		for _, d := range depths {
			if d > wt.evDepth && d <= have {
				evs = append(evs, txEvent(EventConfirmed, wt.rec, d, now))
				if reached == nil {
					reached = map[*walletTx]int32{}
				}
				reached[wt] = d
			}
		}
	}
	return evs, reached
}
