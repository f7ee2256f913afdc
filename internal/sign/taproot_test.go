package sign

import (
	"bytes"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/script"
)

// tapTree builds a taproot output for internal key internal and the leaf
// scripts, returning its scriptPubKey and spend data.
func tapTree(t *testing.T, internal *Key, leaves ...[]byte) ([]byte, [32]byte, TaprootSpendData) {
	t.Helper()
	var tl []txscript.TapLeaf
	for _, l := range leaves {
		tl = append(tl, txscript.NewBaseTapLeaf(l))
	}
	tree := txscript.AssembleTaprootScriptTree(tl...)
	root := tree.RootNode.TapHash()
	pub, err := schnorr.ParsePubKey(internal.PubKey()[1:])
	if err != nil {
		t.Fatal(err)
	}
	out := txscript.ComputeTaprootOutputKey(pub, root[:])
	var ok [32]byte
	copy(ok[:], schnorr.SerializePubKey(out))
	d := TaprootSpendData{MerkleRoot: root[:]}
	copy(d.InternalKey[:], internal.PubKey()[1:])
	for i, proof := range tree.LeafMerkleProofs {
		cb := proof.ToControlBlock(pub)
		cbBytes, err := cb.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		d.Leaves = append(d.Leaves, TapLeaf{LeafVersion: LeafVersionTapscript,
			Script: leaves[i], ControlBlock: cbBytes})
	}
	return script.PayToTaproot(ok[:]), ok, d
}

func xonlyPK(k *Key) []byte {
	return append(append([]byte{0x20}, k.PubKey()[1:]...), 0xac) // <x> OP_CHECKSIG
}

// multiA1 is multi_a(1, a, b): <a> CHECKSIG <b> CHECKSIGADD 1 NUMEQUAL.
func multiA1(a, b *Key) []byte {
	s := append([]byte{0x20}, a.PubKey()[1:]...)
	s = append(s, 0xac, 0x20)
	s = append(s, b.PubKey()[1:]...)
	return append(s, 0xba, 0x51, 0x9c)
}

func signOne(t *testing.T, pk []byte, p *Provider, ht txscript.SigHashType) (wire.TxWitness, []InputError) {
	t.Helper()
	tx := wire.NewMsgTx(2)
	op := wire.OutPoint{Index: 3}
	op.Hash[0] = 9
	tx.AddTxIn(&wire.TxIn{PreviousOutPoint: op, Sequence: 0xffffffff})
	tx.AddTxOut(&wire.TxOut{Value: 1000, PkScript: pk})
	errs, err := SignTransaction(tx, Coins{op: {PkScript: pk, Amount: 5000}}, p, ht)
	if err != nil {
		t.Fatal(err)
	}
	return tx.TxIn[0].Witness, errs
}

// TestTaprootScriptPath signs through script leaves when only leaf keys
// are known, picking the smallest satisfying witness, and through the key
// path with the internal key tweaked by the merkle root when it is known.
func TestTaprootScriptPath(t *testing.T) {
	internal, a, b, c := benchKey(20), benchKey(21), benchKey(22), benchKey(23)
	leafPK := xonlyPK(a)
	leafMulti := multiA1(b, a)
	pk, outKey, d := tapTree(t, internal, leafMulti, leafPK, xonlyPK(c))

	// a can satisfy both leaves: the pk() leaf gives the smaller witness.
	p := NewProvider(a)
	p.AddTaprootSpendData(outKey, d)
	w, errs := signOne(t, pk, p, SigHashDefault)
	if len(errs) != 0 {
		t.Fatalf("script path: %v", errs)
	}
	if len(w) != 3 || len(w[0]) != 64 || !bytes.Equal(w[1], leafPK) {
		t.Fatalf("script path witness %x", w)
	}

	// b only satisfies multi_a: signature by a is missing (empty), b signs.
	p = NewProvider(b)
	p.AddTaprootSpendData(outKey, d)
	w, errs = signOne(t, pk, p, txscript.SigHashAll)
	if len(errs) != 0 {
		t.Fatalf("multi_a: %v", errs)
	}
	if len(w) != 4 || len(w[0]) != 0 || len(w[1]) != 65 || w[1][64] != 0x01 ||
		!bytes.Equal(w[2], leafMulti) {
		t.Fatalf("multi_a witness %x", w)
	}

	// The internal key signs on the key path, tweaked by the merkle root.
	p = NewProvider(internal, a)
	p.AddTaprootSpendData(outKey, d)
	w, errs = signOne(t, pk, p, SigHashDefault)
	if len(errs) != 0 || len(w) != 1 || len(w[0]) != 64 {
		t.Fatalf("key path: %v %x", errs, w)
	}

	// Without the spend data nothing can be signed: Core's message.
	w, errs = signOne(t, pk, NewProvider(internal, a, b), SigHashDefault)
	if len(errs) != 1 || errs[0].Message != "Witness program was passed an empty witness" || len(w) != 0 {
		t.Fatalf("no spend data: %v %x", errs, w)
	}

	// With a key that is in no leaf, still nothing.
	p = NewProvider(benchKey(24))
	p.AddTaprootSpendData(outKey, d)
	if _, errs = signOne(t, pk, p, SigHashDefault); len(errs) != 1 {
		t.Fatalf("foreign key: %v", errs)
	}
}
