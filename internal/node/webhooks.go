package node

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc/methods"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/webhook"
)

// webhookSource gives the webhook deliveries the wallets' event logs,
// read and rendered as the stream endpoint and listwalletevents read them
// (methods.EventFeed), and the acknowledged cursors kept in each wallet's
// database.
type webhookSource struct {
	wallets *wallet.Manager
	feed    methods.EventFeed
}

func (s webhookSource) Wallets() []string { return s.wallets.List() }

func (s webhookSource) Read(ctx context.Context, name string, after int64, limit int) ([]webhook.Event, <-chan struct{}, error) {
	evs, changed, err := s.feed.Read(ctx, name, after, limit)
	if err != nil {
		return nil, nil, err
	}
	out := make([]webhook.Event, len(evs))
	for i, e := range evs {
		out[i] = webhook.Event{Cursor: e.Cursor, JSON: e.JSON}
	}
	return out, changed, nil
}

func (s webhookSource) wallet(name string) (*wallet.Wallet, error) {
	return s.wallets.Resolve(name, true)
}

func (s webhookSource) Acked(ctx context.Context, name, target string) (int64, error) {
	w, err := s.wallet(name)
	if err != nil {
		return 0, err
	}
	return w.DeliveryCursor(ctx, target)
}

func (s webhookSource) Ack(ctx context.Context, name, target string, cursor int64) error {
	w, err := s.wallet(name)
	if err != nil {
		return err
	}
	return w.SetDeliveryCursor(ctx, target, cursor)
}
