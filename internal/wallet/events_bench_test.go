package wallet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
)

// benchWallet makes a wallet watching one labelled script.
func benchWallet(b *testing.B) (*wallet.Wallet, []byte) {
	ctx := context.Background()
	m := newManager(b.TempDir())
	b.Cleanup(func() { m.Close() })
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		b.Fatal(err)
	}
	spk := append([]byte{0x00, 0x14}, bytes.Repeat([]byte{0x11}, 20)...)
	label := "shop"
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true,
		Desc:     descriptor.AddChecksum("raw(0014" + strings.Repeat("11", 20) + ")"),
		HasLabel: true, Label: &label, Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		b.Fatalf("import: %v %+v", err, res)
	}
	return w, spk
}

// payment is the i-th payment of a benchmark: one input, two outputs, one
// of them to the wallet.
func payment(i int, spk []byte) *wire.MsgTx {
	tx := wire.NewMsgTx(2)
	var h chainhash.Hash
	binary.LittleEndian.PutUint64(h[:], uint64(i+1))
	h[31] = 0xee
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: h}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(5000, append([]byte{0x00, 0x14}, bytes.Repeat([]byte{0x33}, 20)...)))
	tx.AddTxOut(wire.NewTxOut(1000, spk))
	return tx
}

// BenchmarkBlockConnectedPayment records one payment to the wallet per
// block, as tip following does: the stored wallet update of one wallet
// transaction and the checkpoint of the block, with the event log (its
// received, confirmed 1 and, six blocks on, confirmed 6 events) and
// without it (the same update with the log left out), for their ratio.
func BenchmarkBlockConnectedPayment(b *testing.B) {
	for _, events := range []bool{true, false} {
		name := "events"
		if !events {
			name = "noevents"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			w, spk := benchWallet(b)
			wallet.SetNoEvents(w, !events)
			b.ResetTimer()
			for i := range b.N {
				height := int32(100 + i)
				var h chainhash.Hash
				binary.LittleEndian.PutUint64(h[:], uint64(height))
				blk := wallet.BlockInfo{Height: height, Hash: h, Time: 1700000000 + int64(i)}
				if err := w.BlockConnected(ctx, blk, []*wire.MsgTx{payment(i, spk)}, nil); err != nil {
					b.Fatal(err)
				}
				if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: height, Hash: h}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckpointHistory is BenchmarkBlockConnectedPayment's events
// case in a wallet that already holds 10 000 transactions reported at every
// depth: finding the depths a block reaches looks only at the transactions
// near the tip, so it costs the same as in an empty wallet.
func BenchmarkCheckpointHistory(b *testing.B) {
	ctx := context.Background()
	w, spk := benchWallet(b)
	const history = 10000
	old := make([]*wire.MsgTx, history)
	for i := range old {
		old[i] = payment(1<<30+i, spk)
	}
	if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: 50, Hash: chainhash.Hash{50}}, old, nil); err != nil {
		b.Fatal(err)
	}
	if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: 99, Hash: chainhash.Hash{99}}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		height := int32(100 + i)
		var h chainhash.Hash
		binary.LittleEndian.PutUint64(h[:], uint64(height))
		blk := wallet.BlockInfo{Height: height, Hash: h, Time: 1700000000 + int64(i)}
		if err := w.BlockConnected(ctx, blk, []*wire.MsgTx{payment(i, spk)}, nil); err != nil {
			b.Fatal(err)
		}
		if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: height, Hash: h}}); err != nil {
			b.Fatal(err)
		}
	}
}
