package wallet_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/wallet"
)

// TestIncrementalStates drives a wallet through random mempool
// transactions spending its coins and others' (replacements and chains of
// unconfirmed spends among them), blocks mining some of them, foreign
// block transactions taking the inputs of unconfirmed payments, reorgs,
// mempool reads and abandonments, and checks after each step that the
// conflict states the wallet derived for what the step touched are those
// derived from scratch over the whole wallet.
func TestIncrementalStates(t *testing.T) {
	ctx := context.Background()
	m := newManager(t.TempDir())
	defer m.Close()
	w, spk := lockWallet(t, m)
	other := append([]byte{0x00, 0x14}, make([]byte, 20)...)
	rng := rand.New(rand.NewPCG(15, 16))

	// coins are outpoints paying the wallet; external are outpoints of
	// others that payments to the wallet spend.
	var coins, external []wire.OutPoint
	var unconfirmed []*wire.MsgTx
	next := uint32(0)
	externalCoin := func() wire.OutPoint {
		next++
		var h chainhash.Hash
		h[0], h[1], h[2] = byte(next), byte(next>>8), 0xfe
		op := wire.OutPoint{Hash: h}
		external = append(external, op)
		return op
	}
	pick := func(ops []wire.OutPoint) wire.OutPoint { return ops[rng.IntN(len(ops))] }
	newTx := func() *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		switch {
		case len(coins) > 0 && rng.IntN(3) > 0:
			tx.AddTxIn(wire.NewTxIn(ptr(pick(coins)), nil, nil))
			if rng.IntN(3) == 0 {
				tx.AddTxIn(wire.NewTxIn(ptr(pick(coins)), nil, nil))
			}
		case len(external) > 0 && rng.IntN(2) == 0:
			tx.AddTxIn(wire.NewTxIn(ptr(pick(external)), nil, nil))
		default:
			tx.AddTxIn(wire.NewTxIn(ptr(externalCoin()), nil, nil))
		}
		tx.AddTxOut(wire.NewTxOut(int64(1000+rng.IntN(1000)), spk))
		tx.AddTxOut(wire.NewTxOut(int64(1000+rng.IntN(1000)), other))
		tx.LockTime = rng.Uint32()
		return tx
	}
	record := func(tx *wire.MsgTx) {
		coins = append(coins, wire.OutPoint{Hash: tx.TxHash(), Index: 0})
	}
	height := int32(100)
	var hashes []chainhash.Hash
	blockHash := func(h int32) chainhash.Hash {
		var b chainhash.Hash
		b[0], b[1], b[2], b[3] = byte(h), byte(h>>8), 0xb1, byte(rng.IntN(256))
		return b
	}
	for step := range 400 {
		switch k := rng.IntN(10); {
		case k < 4: // mempool transactions
			var txs []*wire.MsgTx
			for range 1 + rng.IntN(3) {
				tx := newTx()
				txs = append(txs, tx)
				record(tx)
			}
			if err := w.MempoolTxs(ctx, txs); err != nil {
				t.Fatal(err)
			}
			unconfirmed = append(unconfirmed, txs...)
		case k < 7: // a block
			var txs []*wire.MsgTx
			for range rng.IntN(3) {
				if len(unconfirmed) > 0 {
					txs = append(txs, unconfirmed[rng.IntN(len(unconfirmed))])
				}
			}
			if rng.IntN(2) == 0 {
				tx := newTx()
				txs = append(txs, tx)
				record(tx)
			}
			if len(external) > 0 && rng.IntN(3) == 0 {
				// A foreign transaction taking a payment's input.
				f := wire.NewMsgTx(2)
				f.AddTxIn(wire.NewTxIn(ptr(pick(external)), nil, nil))
				f.AddTxOut(wire.NewTxOut(500, other))
				txs = append(txs, f)
			}
			height++
			h := blockHash(height)
			hashes = append(hashes, h)
			if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: height, Hash: h, Time: 1700000000 + int64(height)},
				dedup(txs), nil); err != nil {
				t.Fatal(err)
			}
		case k < 8 && height > 100: // a reorg
			height -= int32(1 + rng.IntN(min(3, int(height-100))))
			if err := w.Rollback(ctx, height); err != nil {
				t.Fatal(err)
			}
		case k < 9: // a mempool read
			keep := map[chainhash.Hash]bool{}
			for _, tx := range unconfirmed {
				if rng.IntN(3) > 0 {
					keep[tx.TxHash()] = true
				}
			}
			if _, err := w.MempoolLeft(ctx, func(h chainhash.Hash) bool { return keep[h] }); err != nil {
				t.Fatal(err)
			}
		default: // an abandonment (refused ones included)
			if len(unconfirmed) > 0 {
				w.AbandonTransaction(ctx, unconfirmed[rng.IntN(len(unconfirmed))].TxHash(), func(chainhash.Hash) bool { return false })
			}
		}
		if d := wallet.StateMismatch(w); d != "" {
			t.Fatalf("step %d: %s", step, d)
		}
	}
}

func ptr(op wire.OutPoint) *wire.OutPoint { return &op }

// dedup drops repeated transactions, keeping the first.
func dedup(txs []*wire.MsgTx) []*wire.MsgTx {
	seen := map[chainhash.Hash]bool{}
	var out []*wire.MsgTx
	for _, tx := range txs {
		if id := tx.TxHash(); !seen[id] {
			seen[id] = true
			out = append(out, tx)
		}
	}
	return out
}
