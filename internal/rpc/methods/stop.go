package methods

import (
	"context"
	"time"

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
		Params: []rpc.Param{
			// Core's hidden testing argument: after asking for the
			// shutdown, wait this many milliseconds before replying.
			{Name: "wait", Type: rpc.TypeNumber, Optional: true, Hidden: true, Description: "how long to wait in ms"},
		},
		Result:   "\"text\"    (string) A confirmation that shutdown has begun",
		Examples: []string{""},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			if d.Stop != nil {
				d.Stop()
			}
			if rpc.JSONType(req.Arg(0)) == "number" {
				ms, err := req.Int(0)
				if err != nil {
					return nil, err
				}
				// Uninterruptible, as Core's: the shutdown waits for it.
				time.Sleep(time.Duration(ms) * time.Millisecond)
			}
			return stopReply, nil
		},
	}
}
