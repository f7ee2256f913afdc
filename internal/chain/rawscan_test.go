package chain

import (
	"bytes"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// scanVisits lists what ScanBlock visits: "in <outpoint>" and "out <hex>".
func scanVisits(raw []byte) ([]string, error) {
	var got []string
	_, err := ScanBlock(raw, func(op *wire.OutPoint) bool {
		got = append(got, "in "+op.String())
		return false
	}, func(script []byte) bool {
		got = append(got, "out "+string(script))
		return false
	})
	return got, err
}

// wireVisits lists the same from wire's decoding of raw, or false when
// wire refuses it.
func wireVisits(raw []byte) ([]string, bool) {
	var msg wire.MsgBlock
	r := bytes.NewReader(raw)
	if msg.Deserialize(r) != nil || r.Len() != 0 || len(msg.Transactions) == 0 {
		return nil, false
	}
	var want []string
	for _, tx := range msg.Transactions {
		for _, in := range tx.TxIn {
			want = append(want, "in "+in.PreviousOutPoint.String())
		}
		for _, out := range tx.TxOut {
			want = append(want, "out "+string(out.PkScript))
		}
	}
	return want, true
}

// testRawBlock returns a block of a coinbase, a legacy spend and a segwit
// spend.
func testRawBlock(t testing.TB) []byte {
	blk := wire.NewMsgBlock(&wire.BlockHeader{Version: 1})
	cb := wire.NewMsgTx(1)
	cb.AddTxIn(&wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
		SignatureScript: []byte{0x01, 0x02}})
	cb.AddTxOut(wire.NewTxOut(50, []byte{0x00, 0x14, 1, 2, 3}))
	blk.AddTransaction(cb)
	legacy := wire.NewMsgTx(2)
	legacy.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{7}, Index: 3}, []byte{0x51}, nil))
	legacy.AddTxOut(wire.NewTxOut(1, []byte{0x76, 0xa9}))
	legacy.AddTxOut(wire.NewTxOut(2, nil))
	blk.AddTransaction(legacy)
	sw := wire.NewMsgTx(2)
	sw.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}, Index: 0}, nil, [][]byte{{1, 2}, {}}))
	sw.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{9}, Index: 1}, nil, nil))
	sw.AddTxOut(wire.NewTxOut(3, bytes.Repeat([]byte{0x51}, 300)))
	blk.AddTransaction(sw)
	var buf bytes.Buffer
	if err := blk.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestScanBlock checks that ScanBlock visits what wire decodes, in order,
// stops at the first hit, and refuses truncated blocks.
func TestScanBlock(t *testing.T) {
	raw := testRawBlock(t)
	want, ok := wireVisits(raw)
	if !ok {
		t.Fatal("wire refuses the test block")
	}
	got, err := scanVisits(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 8 {
		t.Fatalf("visits %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("visit %d: %q, want %q", i, got[i], want[i])
		}
	}
	n := 0
	hit, err := ScanBlock(raw, nil, func(script []byte) bool {
		n++
		return bytes.Equal(script, []byte{0x76, 0xa9})
	})
	if !hit || err != nil || n != 2 {
		t.Fatalf("stop at the second output: hit %v, %d outputs seen, err %v", hit, n, err)
	}
	for cut := 0; cut < len(raw); cut++ {
		if _, err := ScanBlock(raw[:cut], nil, nil); err == nil {
			t.Fatalf("a block cut at %d bytes parsed", cut)
		}
	}
	var h chainhash.Hash
	copy(h[:], chainhash.DoubleHashB(raw[:80]))
	if err := CheckRawHeader(raw, h); err != nil {
		t.Fatal(err)
	}
	if err := CheckRawHeader(raw, chainhash.Hash{1}); err == nil {
		t.Fatal("a header of another hash passed")
	}
}

// FuzzScanBlock feeds arbitrary bytes to ScanBlock: no panic, and whenever
// wire decodes the bytes as a block, ScanBlock visits exactly the same
// outpoints and scripts in the same order.
func FuzzScanBlock(f *testing.F) {
	f.Add(testRawBlock(f))
	for _, v := range loadFilterVectors(f) {
		f.Add(v.Block)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := scanVisits(raw)
		want, ok := wireVisits(raw)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("wire decodes the block, ScanBlock fails: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d visits, wire %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("visit %d: %q, wire %q", i, got[i], want[i])
			}
		}
	})
}
