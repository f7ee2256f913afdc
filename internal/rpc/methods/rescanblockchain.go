package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

type rescanResult struct {
	StartHeight int32 `json:"start_height"`
	StopHeight  int32 `json:"stop_height"`
}

// newRescanBlockchain returns the rescanblockchain method.
func newRescanBlockchain(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "rescanblockchain",
		Category:    walletCategory,
		Description: "Scans the chain from start_height through stop_height (default: the tip) for the wallet's transactions and returns when done.",
		Params: []rpc.Param{
			{Name: "start_height", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "The first height to scan."},
			{Name: "stop_height", Type: rpc.TypeNumber, Optional: true, Description: "The last height to scan; the tip when omitted."},
		},
		Result:   "{ \"start_height\": n, \"stop_height\": n }",
		Examples: []string{"", "100000 120000"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if d.Chain == nil {
				return nil, errNoChain
			}
			release, err := reserveRescan(d, w, true)
			if err != nil {
				return nil, err
			}
			defer release()
			// As Core, the rescan holds the wallet unlocked: a locked
			// encrypted wallet needs walletpassphrase first.
			if err := w.EnsureUnlocked(); err != nil {
				return nil, MapError(err)
			}
			// The rescan runs to its end when the client hangs up, as in
			// Core: Specter starts one and hangs up at once (no_wait).
			ctx, done := rpc.Unwatched(ctx)
			defer done()
			tip, err := d.Chain.Backend().Tip(ctx)
			if err != nil {
				return nil, MapError(err)
			}
			start, stop := int32(0), tip.Height
			if req.Has(0) {
				v, err := req.Int(0)
				if err != nil {
					return nil, err
				}
				if v < 0 || int64(v) > int64(tip.Height) {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid start_height")
				}
				start = int32(v)
			}
			if req.Has(1) {
				v, err := req.Int(1)
				if err != nil {
					return nil, err
				}
				if v < 0 || int64(v) > int64(tip.Height) {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "Invalid stop_height")
				}
				if int32(v) < start {
					return nil, rpc.NewError(rpc.CodeInvalidParameter, "stop_height must be greater than start_height")
				}
				stop = int32(v)
			}
			if _, err := d.Chain.Rescan(ctx, w, start, stop); err != nil {
				return nil, mapRescanError(err)
			}
			return rescanResult{StartHeight: start, StopHeight: stop}, nil
		},
	}
}
