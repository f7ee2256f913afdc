package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

type balancesMine struct {
	Trusted          rpc.Amount `json:"trusted"`
	UntrustedPending rpc.Amount `json:"untrusted_pending"`
	Immature         rpc.Amount `json:"immature"`
	// Used is shown only with the avoid_reuse flag: the balance of
	// outputs to scripts already spent from.
	Used *rpc.Amount `json:"used,omitempty"`
}

type balancesResult struct {
	Mine               balancesMine `json:"mine"`
	LastProcessedBlock lastBlock    `json:"lastprocessedblock"`
}

// newGetBalances returns the getbalances method.
func newGetBalances(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getbalances",
		Category:    walletCategory,
		Description: "Returns the wallet's balances in BTC: confirmed and own unconfirmed (trusted), others' unconfirmed (untrusted_pending), and immature coinbase outputs.",
		Result:      "{ \"mine\": { \"trusted\", \"untrusted_pending\", \"immature\" }, \"lastprocessedblock\": { \"hash\", \"height\" } }",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			r, err := w.BalancesReport(ctx)
			if err != nil {
				return nil, MapError(err)
			}
			b := r.Mine
			mine := balancesMine{Trusted: rpc.Amount(b.Trusted),
				UntrustedPending: rpc.Amount(b.UntrustedPending), Immature: rpc.Amount(b.Immature)}
			if r.Full != nil {
				used := rpc.Amount(r.Full.Trusted + r.Full.UntrustedPending - b.Trusted - b.UntrustedPending)
				mine.Used = &used
			}
			return balancesResult{Mine: mine, LastProcessedBlock: lastProcessedAt(d, r.Last, r.HasLast)}, nil
		},
	}
}
