package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newGetRPCInfo returns the getrpcinfo method.
func newGetRPCInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getrpcinfo",
		Category:    "control",
		Description: "Reports the state of the RPC server.",
		Result: `{
  "active_commands" : [    (json array) The calls being run, this one included
    {
      "method" : "str",    (string) The method name
      "duration" : n       (numeric) How long it has run, in microseconds
    },
    ...
  ],
  "logpath" : "str"        (string) The absolute path of the debug log
}`,
		Examples: []string{""},
		Handler: func(context.Context, *rpc.Request) (any, error) {
			info := rpc.Info{ActiveCommands: []rpc.ActiveCommand{}}
			if d.RPCInfo != nil {
				info = d.RPCInfo()
				if info.ActiveCommands == nil {
					info.ActiveCommands = []rpc.ActiveCommand{}
				}
			}
			return info, nil
		},
	}
}
