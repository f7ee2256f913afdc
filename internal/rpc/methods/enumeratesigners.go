package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newEnumerateSigners returns the enumeratesigners method. descwallet has
// no -signer option, so it answers as Core does when none is configured.
func newEnumerateSigners(d *Deps) *rpc.Method {
	return &rpc.Method{
		Name:     "enumeratesigners",
		Category: "signer",
		Description: "Returns a list of external signers from -signer. descwallet has no external signers, so it always " +
			"gives Core's answer for a node started without -signer (-1 \"Error: restart bitcoind with -signer=<cmd>\").",
		Result: "{\n  \"signers\" : [          (json array)\n    \"hex\",            (string) Master key fingerprint\n" +
			"    \"str\",            (string) Device name\n    ...\n  ]\n}",
		Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
			return nil, rpc.NewError(rpc.CodeMisc, "Error: restart bitcoind with -signer=<cmd>")
		},
	}
}
