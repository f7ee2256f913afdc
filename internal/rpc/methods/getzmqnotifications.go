package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
)

// newGetZMQNotifications returns the getzmqnotifications method:
// bitcoind's answer with a bitcoind backend (its notifications are what a
// client can subscribe to), none otherwise.
func newGetZMQNotifications(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "getzmqnotifications",
		Category: "zmq",
		Description: "Lists the active ZeroMQ notifications. descwallet publishes none of its own: with a bitcoind chain " +
			"backend the call is forwarded and lists bitcoind's; with btcd or no backend the list is empty.",
		Result: "[\n  {\n    \"type\" : \"str\",      (string) The notification\n" +
			"    \"address\" : \"str\",   (string) The publisher's address\n" +
			"    \"hwm\" : n             (numeric) The outbound message high water mark\n  }, ...\n]",
		Examples: []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			b, err := backendOf(d)
			if err != nil || b.Kind() != chain.KindBitcoind {
				return []struct{}{}, nil
			}
			return forward(ctx, b, req.Method, positional(req.Params))
		},
	}
}
