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

// BenchmarkBlockConnectedPayment records one payment to the wallet per
// block, as tip following does: the stored wallet update of one wallet
// transaction (with its events, where the log exists) and the checkpoint
// of the block.
func BenchmarkBlockConnectedPayment(b *testing.B) {
	ctx := context.Background()
	m := newManager(b.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		b.Fatal(err)
	}
	spk := append([]byte{0x00, 0x14}, bytes.Repeat([]byte{0x11}, 20)...)
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true,
		Desc: descriptor.AddChecksum("raw(0014" + strings.Repeat("11", 20) + ")"), Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		b.Fatalf("import: %v %+v", err, res)
	}
	b.ResetTimer()
	for i := range b.N {
		tx := wire.NewMsgTx(2)
		var h chainhash.Hash
		binary.LittleEndian.PutUint64(h[:], uint64(i+1))
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: h}, nil, nil))
		tx.AddTxOut(wire.NewTxOut(1000, spk))
		height := int32(100 + i)
		blk := wallet.BlockInfo{Height: height, Hash: h, Time: 1700000000 + int64(i)}
		if err := w.BlockConnected(ctx, blk, []*wire.MsgTx{tx}, nil); err != nil {
			b.Fatal(err)
		}
		if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: height, Hash: h}}); err != nil {
			b.Fatal(err)
		}
	}
}
