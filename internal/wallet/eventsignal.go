package wallet

import (
	"context"
	"sync"
)

// eventSignal wakes the readers of the event log (streams, long polls,
// webhooks) when events commit. A reader takes the current channel before
// it reads the log and waits on it when it found nothing new; the writer
// closes it after the commit and never blocks, however many readers there
// are or however slow they are.
type eventSignal struct {
	mu     sync.Mutex
	ch     chan struct{}
	closed bool // the wallet was closed: every channel is closed at once
}

// closedChan is returned once the wallet is closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// wait returns the channel the next fire closes.
func (s *eventSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return closedChan
	}
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// fire wakes every reader waiting now.
func (s *eventSignal) fire() {
	s.mu.Lock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
	s.mu.Unlock()
}

// shut wakes every reader for good (the wallet closed).
func (s *eventSignal) shut() {
	s.mu.Lock()
	s.closed = true
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
	s.mu.Unlock()
}

// EventsChanged returns a channel that is closed once events are appended
// to the log after this call, or the wallet is closed. A reader takes it
// before reading the log, so that no event committed in between is missed:
//
//	ch := w.EventsChanged()
//	evs, err := w.Events(ctx, after, limit)
//	if len(evs) == 0 { <-ch }
func (w *Wallet) EventsChanged() <-chan struct{} { return w.evsig.wait() }

// eventCounter counts the events a chain transaction appends, so that
// readers are woken only by commits that added some.
type eventCounter struct {
	ChainStoreTx
	n *int
}

func (t eventCounter) AppendEvent(e EventRecord) (int64, error) {
	id, err := t.ChainStoreTx.AppendEvent(e)
	if err == nil {
		*t.n++
	}
	return id, err
}

// AppendEvents adds the events in order, in one go when the store can.
func (t eventCounter) AppendEvents(evs []EventRecord) error {
	if err := appendEvents(t.ChainStoreTx, evs); err != nil {
		return err
	}
	*t.n += len(evs)
	return nil
}

// EventBatchTx is the optional part of a ChainStoreTx that appends several
// events at once (fewer statements than one AppendEvent each).
type EventBatchTx interface {
	AppendEvents(evs []EventRecord) error
}

// appendEvents appends evs to tx's event log in order.
func appendEvents(tx ChainStoreTx, evs []EventRecord) error {
	if len(evs) == 0 {
		return nil
	}
	if b, ok := tx.(EventBatchTx); ok {
		return b.AppendEvents(evs)
	}
	for _, e := range evs {
		if _, err := tx.AppendEvent(e); err != nil {
			return err
		}
	}
	return nil
}

// DeliveryStore is the optional part of a Store that keeps where each
// delivery target (a webhook) stands in the event log.
type DeliveryStore interface {
	// DeliveryCursor returns the last cursor the target acknowledged, 0
	// when none.
	DeliveryCursor(ctx context.Context, target string) (int64, error)
	// SetDeliveryCursor records durably that the target acknowledged the
	// events up to cursor; it never moves a target's cursor back.
	SetDeliveryCursor(ctx context.Context, target string, cursor int64) error
}

// DeliveryCursor returns the cursor of the last event the delivery target
// acknowledged (0: none, or a store that keeps no cursors).
func (w *Wallet) DeliveryCursor(ctx context.Context, target string) (int64, error) {
	ds, ok := w.store.(DeliveryStore)
	if !ok {
		return 0, nil
	}
	c, err := ds.DeliveryCursor(ctx, target)
	if err != nil {
		return 0, storageErr(err)
	}
	return c, nil
}

// SetDeliveryCursor records that the delivery target acknowledged the
// events up to cursor, on disk when it returns (a store without delivery
// cursors keeps nothing: delivery then starts again from the log's start
// after a restart).
func (w *Wallet) SetDeliveryCursor(ctx context.Context, target string, cursor int64) error {
	ds, ok := w.store.(DeliveryStore)
	if !ok {
		return nil
	}
	if err := ds.SetDeliveryCursor(ctx, target, cursor); err != nil {
		return storageErr(err)
	}
	return nil
}
