package methods

import (
	"context"
	"encoding/json"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// EventFeed serves the wallets' event logs to the event stream endpoint
// (rpc.EventFeed) and to the webhooks, rendering each event through
// walletEvents, as listwalletevents does.
type EventFeed struct {
	Wallets *wallet.Manager
}

var _ rpc.EventFeed = EventFeed{}

// Read returns at most limit events of the named wallet after the cursor,
// each rendered as one line of JSON, and the channel the wallet closes
// when its log grows after this call. An unloaded wallet is Core's -18.
func (f EventFeed) Read(ctx context.Context, name string, after int64, limit int) ([]rpc.FeedEvent, <-chan struct{}, error) {
	if f.Wallets == nil {
		return nil, nil, errNoWalletSupport
	}
	w, err := f.Wallets.Resolve(name, true)
	if err != nil {
		return nil, nil, MapError(err)
	}
	changed := w.EventsChanged() // before the read: no commit in between is missed
	evs, err := walletEvents(ctx, w, after, limit)
	if err != nil {
		if w.Closed() {
			// Unloaded meanwhile: the error the next lookup gives.
			if _, rerr := f.Wallets.Resolve(name, true); rerr != nil {
				return nil, nil, MapError(rerr)
			}
		}
		return nil, nil, err
	}
	out := make([]rpc.FeedEvent, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, nil, err
		}
		out[i] = rpc.FeedEvent{Cursor: e.Cursor, Kind: e.Kind, JSON: b}
	}
	return out, changed, nil
}
