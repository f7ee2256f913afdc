package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newBackupWallet returns the backupwallet method.
func newBackupWallet(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "backupwallet",
		Category: walletCategory,
		Description: "Writes a consistent copy of the wallet's database to a new file while " +
			"the wallet stays in use. restorewallet loads such a copy.",
		Params: []rpc.Param{
			{Name: "destination", Type: rpc.TypeString, Description: "Path of the file to write; it must not exist."},
		},
		Result:   "null    (json null)",
		Examples: []string{`"backup.sqlite"`},
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			w, err := requestWallet(d, req)
			if err != nil {
				return nil, err
			}
			dest, err := req.String(0)
			if err != nil {
				return nil, err
			}
			if err := w.Backup(ctx, dest); err != nil {
				return nil, MapError(err)
			}
			return nil, nil
		},
	}
}
