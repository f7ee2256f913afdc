package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newListWallets returns the listwallets method.
func newListWallets(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listwallets",
		Category:    walletCategory,
		Description: "Lists the loaded wallets, in the order they were loaded.",
		Result:      "[\n  \"str\",    (string) A wallet's name\n  ...\n]",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			if d.Wallets == nil {
				return []string{}, nil
			}
			return d.Wallets.List(), nil
		},
	}
}
