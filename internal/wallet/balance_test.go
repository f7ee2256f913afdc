package wallet_test

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestBalanceMatchesNaive drives a wallet through random blocks, mempool
// transactions, spends of its own coins, coinbases, reorgs, mempool
// evictions, abandoned transactions and imports of scripts that earlier
// transactions paid, and after every step compares the balance (at
// several minimum depths) with the same sums worked out output by output.
func TestBalanceMatchesNaive(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		testBalanceMatchesNaive(t, seed)
	}
}

func testBalanceMatchesNaive(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 77))
	m := newManager(t.TempDir())
	defer m.Close()
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		t.Fatal(err)
	}
	script := func(i int) []byte {
		s := append([]byte{0x00, 0x14}, make([]byte, 20)...)
		s[2], s[3] = byte(i), 0x5a
		return s
	}
	imported := 0
	importUpTo := func(n int) {
		var elems []wallet.ImportElement
		for ; imported < n; imported++ {
			elems = append(elems, wallet.ImportElement{HasDesc: true, Timestamp: 1700000000,
				Desc: descriptor.AddChecksum("raw(" + hex.EncodeToString(script(imported)) + ")")})
		}
		res, err := w.ImportDescriptors(ctx, elems, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !r.Success {
				t.Fatalf("import: %+v", r)
			}
		}
	}
	importUpTo(6)

	type coin struct {
		op    wire.OutPoint
		value int64
	}
	var mempool []*wire.MsgTx
	height := int32(0)
	nonce := uint32(0)
	payTx := func() *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		nonce++
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: chainhash.Hash{0xee, byte(nonce), byte(nonce >> 8)}}, nil, nil))
		for k := rng.IntN(3) + 1; k > 0; k-- {
			tx.AddTxOut(wire.NewTxOut(int64(1000+rng.IntN(100000)), script(rng.IntN(10))))
		}
		return tx
	}
	// coins lists the wallet's unspent outputs, from ListUnspent.
	coins := func() []coin {
		list, err := w.ListUnspent(ctx, 0, 9999999, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]coin, len(list))
		for i, u := range list {
			out[i] = coin{wire.OutPoint{Hash: u.TxID, Index: u.Vout}, u.Amount}
		}
		return out
	}
	spendTx := func() *wire.MsgTx {
		cs := coins()
		if len(cs) == 0 {
			return payTx()
		}
		tx := wire.NewMsgTx(2)
		var sum int64
		for k := rng.IntN(2) + 1; k > 0 && len(cs) > 0; k-- {
			i := rng.IntN(len(cs))
			tx.AddTxIn(wire.NewTxIn(&cs[i].op, nil, nil))
			sum += cs[i].value
			cs = append(cs[:i], cs[i+1:]...)
		}
		tx.AddTxOut(wire.NewTxOut(sum/2, []byte{0x51}))
		tx.AddTxOut(wire.NewTxOut(sum/2-100, script(rng.IntN(10))))
		return tx
	}
	block := func(txs []*wire.MsgTx) {
		height++
		idx := make([]int, len(txs))
		for i := range idx {
			idx[i] = i
		}
		if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: height, Hash: chainhash.Hash{byte(height), byte(height >> 8), 0xb1, byte(seed)},
			Time: 1700000000 + int64(height)*600}, txs, idx); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, []wallet.BlockRef{{Height: height, Hash: chainhash.Hash{byte(height), byte(height >> 8), 0xb1, byte(seed)}}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step int, what string) {
		t.Helper()
		for _, minDepth := range []int64{0, 1, 3, 101} {
			got, err := w.Balance(ctx, minDepth, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.NaiveBalance(ctx, minDepth)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("seed %d step %d (%s), minconf %d: balance %+v, recomputed %+v", seed, step, what, minDepth, got, want)
			}
		}
		got, err := w.Balances(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := w.NaiveBalance(ctx, 0); got != want {
			t.Fatalf("seed %d step %d (%s): balances %+v, recomputed %+v", seed, step, what, got, want)
		}
	}
	for step := 0; step < 300; step++ {
		var what string
		switch r := rng.IntN(100); {
		case r < 30:
			what = "block"
			var txs []*wire.MsgTx
			if rng.IntN(4) == 0 {
				cb := wire.NewMsgTx(2)
				cb.AddTxIn(wire.NewTxIn(&wire.OutPoint{Index: wire.MaxPrevOutIndex}, []byte{byte(height), byte(height >> 8), 7}, nil))
				cb.AddTxOut(wire.NewTxOut(5000000, script(rng.IntN(10))))
				txs = append(txs, cb)
			}
			for k := rng.IntN(3); k > 0; k-- {
				txs = append(txs, payTx())
			}
			// Mine part of the mempool.
			for len(mempool) > 0 && rng.IntN(2) == 0 {
				txs = append(txs, mempool[0])
				mempool = mempool[1:]
			}
			block(txs)
		case r < 50:
			what = "mempool payment"
			tx := payTx()
			mempool = append(mempool, tx)
			if err := w.MempoolTxs(ctx, []*wire.MsgTx{tx}); err != nil {
				t.Fatal(err)
			}
		case r < 70:
			what = "mempool spend"
			tx := spendTx()
			mempool = append(mempool, tx)
			if err := w.MempoolTxs(ctx, []*wire.MsgTx{tx}); err != nil {
				t.Fatal(err)
			}
		case r < 78:
			what = "mempool eviction"
			if len(mempool) > 0 {
				i := rng.IntN(len(mempool))
				gone := mempool[i].TxHash()
				mempool = append(mempool[:i], mempool[i+1:]...)
				if _, err := w.DropUnconfirmed(ctx, func(h chainhash.Hash) bool { return h != gone }); err != nil {
					t.Fatal(err)
				}
			}
		case r < 84:
			what = "abandon"
			if len(mempool) > 0 {
				i := len(mempool) - 1
				id := mempool[i].TxHash()
				inPool := func(h chainhash.Hash) bool { return false }
				if err := w.AbandonTransaction(ctx, id, inPool); err == nil {
					mempool = mempool[:i]
				}
			}
		case r < 88:
			what = "conflict"
			// A block holds a transaction spending the same coin
			// as a mempool spend of the wallet's, which is then
			// conflicted.
			for i, tx := range mempool {
				if len(tx.TxIn) == 0 || tx.TxIn[0].PreviousOutPoint.Hash[0] == 0xee {
					continue
				}
				rival := wire.NewMsgTx(2)
				rival.AddTxIn(wire.NewTxIn(&tx.TxIn[0].PreviousOutPoint, nil, nil))
				rival.AddTxOut(wire.NewTxOut(700, script(rng.IntN(10))))
				mempool = append(mempool[:i], mempool[i+1:]...)
				block([]*wire.MsgTx{rival})
				break
			}
		case r < 92:
			what = "reorg"
			if height > 2 {
				back := int32(rng.IntN(3) + 1)
				height -= back
				if err := w.Rollback(ctx, height); err != nil {
					t.Fatal(err)
				}
			}
		case r < 96:
			what = "import"
			if imported < 10 {
				importUpTo(imported + 1)
			}
		default:
			what = "empty blocks"
			for k := rng.IntN(60); k > 0; k-- {
				block(nil)
			}
		}
		check(step, what)
	}
}
