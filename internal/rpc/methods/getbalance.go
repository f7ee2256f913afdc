package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// newGetBalance returns the getbalance method.
func newGetBalance(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "getbalance",
		Category: walletCategory,
		Description: "Returns the wallet's trusted balance: confirmed outputs with at least minconf confirmations and the " +
			"wallet's own unconfirmed change. With the avoid_reuse flag, outputs to addresses already spent from are left out " +
			"unless avoid_reuse is false.",
		Params: []rpc.Param{
			{Name: "dummy", Type: rpc.TypeString, Optional: true, Description: "Kept for compatibility; leave it out or pass \"*\"."},
			{Name: "minconf", Type: rpc.TypeNumber, Optional: true, Default: "0", Description: "The least confirmations of the outputs counted."},
			{Name: "include_watchonly", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Ignored (every output of a descriptor wallet counts)."},
			{Name: "avoid_reuse", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "Leave out outputs to used addresses (only with the avoid_reuse flag)."},
		},
		Result:   "n (numeric) the balance in BTC",
		Examples: []string{"", "\"*\" 6"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			if req.Has(0) {
				s, err := rpc.AsString(req.Arg(0))
				if err != nil {
					return nil, err
				}
				if s != "*" {
					return nil, rpc.NewError(rpc.CodeMethodDeprecated, "dummy first argument must be excluded or set to \"*\".")
				}
			}
			minConf := 0
			if req.Has(1) {
				if minConf, err = rpc.AsInt(req.Arg(1)); err != nil {
					return nil, err
				}
			}
			avoidReuse, err := avoidReuseArg(w, req, 3)
			if err != nil {
				return nil, err
			}
			b, err := w.Balance(ctx, int64(minConf), avoidReuse)
			if err != nil {
				return nil, MapError(err)
			}
			return rpc.Amount(b.Trusted), nil
		},
	}
}

// avoidReuseArg is Core's GetAvoidReuseFlag: the argument at i, by default
// the wallet's avoid_reuse flag; true without the flag is an error.
func avoidReuseArg(w *wallet.Wallet, req *rpc.Request, i int) (bool, error) {
	can := w.FlagSet(wallet.FlagAvoidReuse)
	v := can
	if req.Has(i) {
		var err error
		if v, err = rpc.AsBool(req.Arg(i)); err != nil {
			return false, err
		}
	}
	if v && !can {
		return false, rpc.NewError(rpc.CodeWalletError, "wallet does not have the \"avoid reuse\" feature enabled")
	}
	return v, nil
}
