package sign

import (
	"bytes"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
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

// TestSignPSBTBatchSameBytes signs a PSBT of 40 inputs (P2WPKH, P2PKH
// and P2SH-P2WPKH, some keys missing, one input already final, one
// holding a partial signature) with the batch and with every signature
// made alone: the packets are byte for byte the same, the batch made the
// single-key inputs' signatures, and the final scripts of the inputs
// whose keys are there are those SignTransaction makes for the same
// transaction.
func TestSignPSBTBatchSameBytes(t *testing.T) {
	const n = 40
	keys := make([]*Key, n)
	for i := range keys {
		keys[i] = benchKey(byte(60 + i))
	}
	prov := NewProvider()
	var scripts [][]byte
	for i, k := range keys {
		h := script.Hash160(k.PubKey())
		switch i % 4 {
		case 0, 3:
			scripts = append(scripts, script.PayToWitnessPubKeyHash(h[:]))
		case 1:
			scripts = append(scripts, script.PayToPubKeyHash(h[:]))
		case 2:
			redeem := script.PayToWitnessPubKeyHash(h[:])
			prov.AddScript(redeem)
			rh := script.Hash160(redeem)
			scripts = append(scripts, script.PayToScriptHash(rh[:]))
		}
		if i%7 != 6 {
			prov.AddKey(k)
		}
	}
	tx, coins := benchTx(n, func(i int) []byte { return scripts[i] })
	// A P2PKH input needs its whole previous transaction.
	prevs := map[int]*wire.MsgTx{}
	for i, in := range tx.TxIn {
		if i%4 != 1 {
			continue
		}
		c := coins[in.PreviousOutPoint]
		delete(coins, in.PreviousOutPoint)
		prev := wire.NewMsgTx(2)
		prev.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: uint32(i)}})
		prev.AddTxOut(&wire.TxOut{Value: c.Amount, PkScript: c.PkScript})
		in.PreviousOutPoint = wire.OutPoint{Hash: prev.TxHash()}
		coins[in.PreviousOutPoint] = c
		prevs[i] = prev
	}
	build := func() *psbt.Packet {
		p := psbt.New(tx.Copy())
		for i, in := range tx.TxIn {
			if prev, ok := prevs[i]; ok {
				p.Inputs[i].NonWitnessUTXO = prev
				continue
			}
			c := coins[in.PreviousOutPoint]
			p.Inputs[i].WitnessUTXO = &wire.TxOut{Value: c.Amount, PkScript: c.PkScript}
		}
		return p
	}
	// Input 5's signature is already there (as another signer left it);
	// input 9 is final.
	ref := tx.Copy()
	if _, err := SignTransaction(ref, coins, prov, SigHashDefault); err != nil {
		t.Fatal(err)
	}
	prepare := func(p *psbt.Packet) {
		p.Inputs[5].PartialSigs = map[[20]byte]psbt.PartialSig{
			script.Hash160(ref.TxIn[5].SignatureScript[len(ref.TxIn[5].SignatureScript)-33:]): {
				PubKey:    ref.TxIn[5].SignatureScript[len(ref.TxIn[5].SignatureScript)-33:],
				Signature: ref.TxIn[5].SignatureScript[1 : 1+ref.TxIn[5].SignatureScript[0]],
			}}
		p.Inputs[9].FinalScriptSig = ref.TxIn[9].SignatureScript
		p.Inputs[9].FinalScriptWitness = ref.TxIn[9].Witness
	}
	var outs [2][]byte
	for mode := range 2 {
		p := build()
		prepare(p)
		var ctx *psbtContext
		err := (&PSBTSigner{Provider: prov}).signPSBT(p, nil, true, func(c *psbtContext) {
			c.noPresign = mode == 1
			ctx = c
		})
		if err != nil {
			t.Fatal(err)
		}
		made := 0
		for i, ps := range ctx.presigned {
			if ps.made {
				made++
				if i == 5 || i == 9 {
					t.Fatalf("input %d signed ahead", i)
				}
			}
		}
		if mode == 0 && made < n/2 {
			t.Fatalf("only %d inputs signed in the batch", made)
		}
		if mode == 1 && made != 0 {
			t.Fatalf("%d inputs signed ahead with the batch off", made)
		}
		outs[mode] = p.Serialize()
		for i := range p.Inputs {
			if i%7 == 6 {
				if p.Inputs[i].IsFinalized() {
					t.Fatalf("mode %d input %d: final without its key", mode, i)
				}
				continue
			}
			if !bytes.Equal(p.Inputs[i].FinalScriptSig, ref.TxIn[i].SignatureScript) ||
				!witnessEqual(p.Inputs[i].FinalScriptWitness, ref.TxIn[i].Witness) {
				t.Fatalf("mode %d input %d: final scripts differ from SignTransaction's", mode, i)
			}
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("the packet signed with the batch differs from the one signed input by input")
	}
}
