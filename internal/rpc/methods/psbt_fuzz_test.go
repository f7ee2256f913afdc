package methods

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/sign"
	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/psbt"
)

// FuzzPSBTMethods runs what decodepsbt, analyzepsbt and finalizepsbt do
// over any PSBT the decoder accepts: none may panic, and decodepsbt's reply
// must marshal.
func FuzzPSBTMethods(f *testing.F) {
	var v struct {
		Valid []string `json:"valid"`
	}
	testvec.Load(f, "rpc_psbt.json", &v)
	for _, s := range v.Valid {
		raw, _ := base64.StdEncoding.DecodeString(s)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := psbt.Decode(raw)
		if err != nil {
			return
		}
		if _, err := json.Marshal(decodePSBT(p, &chaincfg.RegressionNetParams)); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(analyzePSBT(p)); err != nil {
			t.Fatal(err)
		}
		q := p.Clone()
		sign.FinalizePSBT(q)
		if _, err := psbt.Decode(q.Serialize()); err != nil {
			t.Fatalf("finalized packet does not decode: %v", err)
		}
	})
}
