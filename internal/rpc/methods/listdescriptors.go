package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

type descriptorEntry struct {
	Desc      string    `json:"desc"`
	Timestamp int64     `json:"timestamp"`
	Active    bool      `json:"active"`
	Internal  *bool     `json:"internal,omitempty"`
	Range     *[2]int64 `json:"range,omitempty"`
	Next      *int64    `json:"next,omitempty"`
	NextIndex *int64    `json:"next_index,omitempty"`
}

type listDescriptorsResult struct {
	WalletName  string            `json:"wallet_name"`
	Descriptors []descriptorEntry `json:"descriptors"`
}

// newListDescriptors returns the listdescriptors method.
func newListDescriptors(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "listdescriptors",
		Category:    walletCategory,
		Description: "Lists the wallet's descriptors, in public form or, on request, with their private keys.",
		Params: []rpc.Param{
			{Name: "private", Type: rpc.TypeBool, Optional: true, Default: "false", Description: "Show the descriptors with their private keys."},
		},
		Result:   "{\n  \"wallet_name\" : \"str\",\n  \"descriptors\" : [ { \"desc\", \"timestamp\", \"active\", \"internal\", \"range\", \"next\", \"next_index\" }, ... ]\n}",
		Examples: []string{"", "true"},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			private, err := boolOr(req, 0, false)
			if err != nil {
				return nil, err
			}
			list, err := w.ListDescriptors(private)
			if err != nil {
				return nil, MapError(err)
			}
			res := listDescriptorsResult{WalletName: w.Name(), Descriptors: []descriptorEntry{}}
			for _, in := range list {
				res.Descriptors = append(res.Descriptors, descriptorEntry{Desc: in.Desc, Timestamp: in.Timestamp,
					Active: in.Active, Internal: in.Internal, Range: in.Range, Next: in.Next, NextIndex: in.Next})
			}
			return res, nil
		},
	}
}
