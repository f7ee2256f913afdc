package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// stopReply is the result of stop; clients written for Core may compare it.
const stopReply = "Bitcoin Core stopping"

// newStop returns the stop method.
func newStop(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "stop",
		Category: "control",
		Description: "Shuts the node down cleanly: the reply is sent first, " +
			"then the server stops accepting calls, running calls finish, " +
			"wallets are closed and the RPC cookie is removed.",
		Result:   "\"text\"    (string) A confirmation that shutdown has begun",
		Examples: []string{""},
		Handler: func(context.Context, *rpc.Request) (any, error) {
			if d.Stop != nil {
				d.Stop()
			}
			return stopReply, nil
		},
	}
}
