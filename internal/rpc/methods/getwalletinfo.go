package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

type lastBlock struct {
	Hash   string `json:"hash"`
	Height int64  `json:"height"`
}

// walletInfoResult is getwalletinfo's reply, in Core's field order.
type walletInfoResult struct {
	WalletName            string     `json:"walletname"`
	WalletVersion         int        `json:"walletversion"`
	Format                string     `json:"format"`
	TxCount               int        `json:"txcount"`
	KeypoolSize           int64      `json:"keypoolsize"`
	KeypoolSizeHDInternal int64      `json:"keypoolsize_hd_internal"`
	UnlockedUntil         *int64     `json:"unlocked_until,omitempty"`
	PayTxFee              rpc.Amount `json:"paytxfee"`
	PrivateKeysEnabled    bool       `json:"private_keys_enabled"`
	AvoidReuse            bool       `json:"avoid_reuse"`
	Scanning              any        `json:"scanning"`
	Descriptors           bool       `json:"descriptors"`
	ExternalSigner        bool       `json:"external_signer"`
	Blank                 bool       `json:"blank"`
	Birthtime             *int64     `json:"birthtime,omitempty"`
	Flags                 []string   `json:"flags"`
	LastProcessedBlock    lastBlock  `json:"lastprocessedblock"`
}

// newGetWalletInfo returns the getwalletinfo method.
func newGetWalletInfo(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:        "getwalletinfo",
		Category:    walletCategory,
		Description: "Describes the wallet: its settings, key pool and sync state.",
		Result:      "{ \"walletname\", \"walletversion\", \"format\", \"txcount\", \"keypoolsize\", ... }",
		Examples:    []string{""},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			in := w.Info()
			res := walletInfoResult{
				WalletName:            in.Name,
				WalletVersion:         169900,
				Format:                "sqlite",
				KeypoolSize:           in.KeypoolSize,
				KeypoolSizeHDInternal: in.KeypoolInternal,
				PrivateKeysEnabled:    in.PrivateKeysEnabled,
				AvoidReuse:            in.AvoidReuse,
				PayTxFee:              rpc.Amount(w.PayTxFee()),
				Descriptors:           true,
				ExternalSigner:        in.ExternalSigner,
				Blank:                 in.Blank,
				Birthtime:             in.Birthtime,
				Flags:                 in.Flags,
				TxCount:               w.TxCount(),
				Scanning:              scanning(d, w),
			}
			if until, encrypted := w.UnlockedUntil(); encrypted {
				res.UnlockedUntil = &until
			}
			res.LastProcessedBlock = lastProcessed(d, w)
			return res, nil
		},
	}
}
