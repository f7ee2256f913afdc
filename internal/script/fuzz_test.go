package script

import (
	"encoding/hex"
	"testing"

	"github.com/descwallet/descwallet/internal/testvec"
)

// FuzzSolve checks that Solve never panics, that its solutions have the
// layout of their class, and that canonical templates rebuild byte for byte
// from their solutions.
func FuzzSolve(f *testing.F) {
	var v struct {
		Valid []struct {
			ScriptPubKey string `json:"scriptPubKey"`
		} `json:"valid"`
	}
	testvec.Load(f, "addresses.json", &v)
	for _, tc := range v.Valid {
		b, _ := hex.DecodeString(tc.ScriptPubKey)
		f.Add(b)
	}
	for _, s := range []string{
		"", "6a", "6a4c", "51024e73", "0015" + h20 + "00",
		"5221" + keyC + "21" + keyC2 + "52ae",
		"41" + keyU + "ac", "21" + keyC + "ac",
		"20" + h32 + "ac20" + h32 + "ba529c",
	} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, spk []byte) {
		class, sol := Solve(spk)
		switch class {
		case PubKey, PubKeyHash, ScriptHash, WitnessV0KeyHash,
			WitnessV0ScriptHash, WitnessV1Taproot:
			if len(sol) != 1 {
				t.Fatalf("%s with %d solutions", class, len(sol))
			}
		case WitnessUnknown:
			if len(sol) != 2 || len(sol[0]) != 1 || sol[0][0] < 1 || sol[0][0] > 16 {
				t.Fatalf("witness_unknown solutions %x", sol)
			}
		case Multisig:
			m, n := int(sol[0][0]), int(sol[len(sol)-1][0])
			if m < 1 || m > n || n > MaxPubKeysPerMultisig || n != len(sol)-2 {
				t.Fatalf("multisig solutions %x", sol)
			}
			for _, k := range sol[1 : len(sol)-1] {
				if !ValidPubKeySize(k) {
					t.Fatalf("multisig key %x", k)
				}
			}
		case Nonstandard, NullData, Anchor:
			if len(sol) != 0 {
				t.Fatalf("%s with solutions", class)
			}
		default:
			t.Fatalf("unknown class %q", class)
		}
		checkSolutions(t, "fuzz", spk, class, sol)
		IsPushOnly(spk)
		MatchMultiA(spk)
	})
}
