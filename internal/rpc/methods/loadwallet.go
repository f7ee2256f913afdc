package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// newLoadWallet returns the loadwallet method.
func newLoadWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "loadwallet",
		Category:    walletCategory,
		Description: "Loads a wallet from the wallets folder (or an absolute path).",
		Params: []rpc.Param{
			{Name: "filename", Type: rpc.TypeString, Description: "The wallet's name."},
			startupParam,
		},
		Result:   walletLoadResult,
		Examples: []string{`"mywallet"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return nil, errNoWalletSupport
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			startup, err := optBool(req, 1)
			if err != nil {
				return nil, err
			}
			w, warnings, err := d.Wallets.Load(ctx, name, startup)
			if err != nil {
				return nil, MapError(err)
			}
			if err := attachLoaded(ctx, d, w, startup); err != nil {
				return nil, err
			}
			return loadResult{Name: w.Name(), Warnings: warnings}, nil
		},
	}
}

// chainLoader is the part of a ChainService that attaches a wallet just
// loaded and returns once the wallet caught up with the chain (package
// walletscan implements it). The caller's cancellation does not stop the
// catch-up.
type chainLoader interface {
	Load(ctx context.Context, w *wallet.Wallet) error
}

// errLoadRescan is Core's answer when the catch-up scan of a wallet being
// loaded fails or is aborted: the wallet is not loaded.
var errLoadRescan = rpc.NewError(rpc.CodeWalletError, "Failed to rescan the wallet during initialization")

// attachLoaded has the chain service follow a wallet just loaded (or
// restored) and waits, as Core's loadwallet, until it scanned the blocks it
// missed. When that scan fails or is aborted the wallet is unloaded again
// (and left out of the startup list when the call put it there).
func attachLoaded(ctx context.Context, d *Deps, w *wallet.Wallet, startup *bool) error {
	if d.Chain == nil {
		return nil
	}
	cl, ok := d.Chain.(chainLoader)
	if !ok {
		d.Chain.Track(w, false)
		return nil
	}
	err := cl.Load(ctx, w)
	if err == nil || ctx.Err() != nil {
		// Done, or the client is gone and the catch-up goes on.
		return nil
	}
	var undo *bool
	if startup != nil && *startup {
		no := false
		undo = &no
	}
	d.Wallets.Unload(context.WithoutCancel(ctx), w.Name(), undo)
	return errLoadRescan
}
