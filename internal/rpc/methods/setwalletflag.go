package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

type setFlagResult struct {
	FlagName  string `json:"flag_name"`
	FlagState bool   `json:"flag_state"`
	Warnings  string `json:"warnings,omitempty"`
}

// avoidReuseCaveat is the warning Core attaches to turning avoid_reuse on:
// spends recorded before the flag was set did not mark their addresses.
const avoidReuseCaveat = "You need to rescan the blockchain in order to correctly mark used destinations in the past. " +
	"Until this is done, some destinations may be considered unused, even if the opposite is the case."

// newSetWalletFlag returns the setwalletflag method.
func newSetWalletFlag(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "setwalletflag",
		Category:    walletCategory,
		Description: "Sets or clears a changeable wallet flag. Only avoid_reuse can change: with it, outputs to addresses the wallet has already spent from are kept apart (the used balance) and not spent by default.",
		Params: []rpc.Param{
			{Name: "flag", Type: rpc.TypeString, Description: "The flag's name: avoid_reuse."},
			{Name: "value", Type: rpc.TypeBool, Optional: true, Default: "true", Description: "The new state."},
		},
		Result:   "{ \"flag_name\", \"flag_state\", \"warnings\" }",
		Examples: []string{"avoid_reuse"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			name, err := rpc.AsString(req.Arg(0))
			if err != nil {
				return nil, err
			}
			value, err := boolOr(req, 1, true)
			if err != nil {
				return nil, err
			}
			flag, ok := wallet.FlagByName(name)
			if !ok {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Unknown wallet flag: "+name)
			}
			if flag != wallet.FlagAvoidReuse {
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Wallet flag is immutable: "+name)
			}
			if w.FlagSet(flag) == value {
				state := "false"
				if value {
					state = "true"
				}
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "Wallet flag is already set to "+state+": "+name)
			}
			if err := w.SetFlag(ctx, flag, value); err != nil {
				return nil, MapError(err)
			}
			res := setFlagResult{FlagName: name, FlagState: value}
			if value {
				res.Warnings = avoidReuseCaveat
			}
			return res, nil
		},
	}
}

// newSetTxFee returns the settxfee method (deprecated as in Core v30: it
// answers only when the node runs with -deprecatedrpc=settxfee).
func newSetTxFee(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "settxfee",
		Category:    walletCategory,
		Description: "Deprecated (needs -deprecatedrpc=settxfee). Sets the wallet's fee rate in BTC/kvB for later sends until it is unloaded; 0 goes back to fee estimation.",
		Params: []rpc.Param{
			{Name: "amount", Type: rpc.TypeAmount, Description: "The fee rate in BTC/kvB."},
		},
		Result:   "true|false (whether it succeeded)",
		Examples: []string{"0.00001"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			opts := w.Options()
			if !opts.DeprecatedRPC["settxfee"] {
				return nil, rpc.NewError(rpc.CodeMethodDeprecated, "settxfee is deprecated and will be fully removed in v31.0.\n"+
					"To use settxfee restart bitcoind with -deprecatedrpc=settxfee.")
			}
			amount, err := rpc.AsAmount(req.Arg(0))
			if err != nil {
				return nil, err
			}
			rate := int64(amount)
			switch {
			case rate == 0:
			case rate < opts.MinRelayFee:
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "txfee cannot be less than min relay tx fee ("+wallet.FormatFeeRate(opts.MinRelayFee)+")")
			case rate < opts.MinTxFee:
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "txfee cannot be less than wallet min fee ("+wallet.FormatFeeRate(opts.MinTxFee)+")")
			case rate > opts.MaxTxFee:
				return nil, rpc.NewError(rpc.CodeInvalidParameter, "txfee cannot be more than wallet max tx fee ("+wallet.FormatFeeRate(opts.MaxTxFee)+")")
			}
			w.SetPayTxFee(rate)
			return true, nil
		},
	}
}
