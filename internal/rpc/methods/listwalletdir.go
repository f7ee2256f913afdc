package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// walletDirEntry is one wallet of listwalletdir. Core v30 always shows
// its warnings (one for a legacy Berkeley DB wallet, which descwallet
// does not list): an empty array.
type walletDirEntry struct {
	Name     string   `json:"name"`
	Warnings []string `json:"warnings"`
}

type walletDirResult struct {
	Wallets []walletDirEntry `json:"wallets"`
}

// newListWalletDir returns the listwalletdir method.
func newListWalletDir(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listwalletdir",
		Category:    walletCategory,
		Description: "Lists the wallets found in the wallets folder, loaded or not.",
		Result:      "{\n  \"wallets\" : [ { \"name\" : \"str\", \"warnings\" : [ \"str\", ... ] }, ... ]\n}",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			out := walletDirResult{Wallets: []walletDirEntry{}}
			if d.Wallets == nil {
				return out, nil
			}
			names, err := d.Wallets.ListDir()
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				out.Wallets = append(out.Wallets, walletDirEntry{Name: n, Warnings: []string{}})
			}
			return out, nil
		},
	}
}
