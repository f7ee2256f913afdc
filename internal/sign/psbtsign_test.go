package sign

import (
	"errors"
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
	"github.com/descwallet/descwallet/psbt"
)

func loadValidPSBT(t *testing.T, i int) *psbt.Packet {
	t.Helper()
	var v struct {
		Valid []string `json:"valid"`
	}
	testvec.Load(t, "rpc_psbt.json", &v)
	p, err := psbt.DecodeBase64(v.Valid[i])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFinalizeMuSig2 aggregates the MuSig2 partial signatures of Core's
// valid[22] (a rawtr() output whose key is the participants' aggregate)
// into a BIP 340 signature that the script engine accepts; a corrupted
// partial signature leaves the input unfinalized.
func TestFinalizeMuSig2(t *testing.T) {
	p := loadValidPSBT(t, 22)
	tx, ok := FinalizeAndExtract(p.Clone())
	if !ok {
		t.Fatal("MuSig2 partial signatures not aggregated")
	}
	if w := tx.TxIn[0].Witness; len(w) != 1 || len(w[0]) != 64 {
		t.Fatalf("witness %x", w)
	}
	bad := p.Clone()
	for id, m := range bad.Inputs[0].MuSig2PartialSigs {
		c := map[[33]byte][32]byte{}
		first := true
		for k, v := range m {
			if first {
				v[31] ^= 1
				first = false
			}
			c[k] = v
		}
		bad.Inputs[0].MuSig2PartialSigs[id] = c
	}
	if FinalizePSBT(bad) {
		t.Fatal("a corrupted partial signature finalized")
	}
}

// TestSignPSBTSighashMismatch: an input whose sighash field differs from
// the one asked for is refused, as Core's SIGHASH_MISMATCH.
func TestSignPSBTSighashMismatch(t *testing.T) {
	p := loadValidPSBT(t, 22)
	single := uint32(3)
	p.Inputs[0].SighashType = &single
	all := uint32(1)
	err := (&PSBTSigner{}).SignPSBT(p, &all, true)
	if !errors.Is(err, ErrSighashMismatch) {
		t.Fatalf("got %v", err)
	}
}
