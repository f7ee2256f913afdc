package methods

import (
	"context"
	"time"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newUptime returns the uptime method.
func newUptime(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "uptime",
		Category:    "control",
		Description: "Tells how long the node has been running.",
		Result:      "n    (numeric) Whole seconds since the node started",
		Examples:    []string{""},
		Handler: func(context.Context, *rpc.Request) (any, error) {
			return int64(time.Since(d.StartTime) / time.Second), nil
		},
	}
}
