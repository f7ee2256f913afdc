package methods

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testvec"
)

// FuzzParsePrevTx feeds arbitrary JSON to the prevtxs element parser: it
// must never panic, and every failure must be an RPC error or a signing
// error the error table maps to one. Seeds are the prevtxs elements of the
// recorded calls.
func FuzzParsePrevTx(f *testing.F) {
	var file struct {
		Cases []signCase `json:"cases"`
	}
	testvec.Load(f, "core_rpc/stateless.json", &file)
	for _, c := range file.Cases {
		if c.Method != "signrawtransactionwithkey" {
			continue
		}
		var params []json.RawMessage
		if json.Unmarshal(c.Params, &params) != nil || len(params) < 3 {
			continue
		}
		var prev []json.RawMessage
		if json.Unmarshal(params[2], &prev) != nil {
			continue
		}
		for _, p := range prev {
			f.Add([]byte(p))
		}
	}
	f.Add([]byte(`{"txid":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		err := parsePrevTx(data, sign.NewProvider(), sign.Coins{})
		if err == nil {
			return
		}
		var re *rpc.Error
		if !errors.As(MapError(err), &re) {
			// A member that fails to decode after json.Valid accepted the
			// whole value cannot happen; anything else is a bug.
			t.Fatalf("unmapped error %T: %v", err, err)
		}
	})
}
