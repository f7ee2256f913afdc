package wallet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/benchcpu"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
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
// transaction with the checkpoint of the block (the last 100 blocks, as
// the chain follower records them) in one store transaction, with the
// event log (its
// received, confirmed 1 and, six blocks on, confirmed 6 events) and
// without it (the same update with the log left out), for their ratio. The
// wallet already holds history transactions, all reported at every depth,
// so that a cost growing with the wallet's history shows: each size runs
// both sides, events and noevents, one after the other.
func BenchmarkBlockConnectedPayment(b *testing.B) {
	for _, history := range []int{0, 1000, 10000, 100000} {
		if history > 10000 && testing.Short() {
			continue
		}
		for _, events := range []bool{true, false} {
			name := fmt.Sprintf("history=%d/events", history)
			if !events {
				name = fmt.Sprintf("history=%d/noevents", history)
			}
			b.Run(name, func(b *testing.B) {
				w, spk := historyWallet(b, history)
				wallet.SetNoEvents(w, !events)
				var recent []wallet.BlockRef
				runtime.GC() // the setup's garbage is not the loop's
				b.ResetTimer()
				cpu := benchcpu.Used()
				for i := range b.N {
					height := int32(100 + i)
					var h chainhash.Hash
					binary.LittleEndian.PutUint64(h[:], uint64(height))
					recent = recentWindow(recent, height, h)
					followBlock(b, w, height, h, recent, []*wire.MsgTx{payment(i, spk)})
				}
				benchcpu.Report(b, cpu)
			})
		}
	}
}

// followBlock records txs in block height, hash h, as the chain follower
// does at the tip: the block delivered with the chain state recent it
// leaves the wallet at (one store transaction), then the checkpoint of
// that state (nothing left to write, unless depths are due that the block
// did not carry).
func followBlock(b *testing.B, w *wallet.Wallet, height int32, h chainhash.Hash, recent []wallet.BlockRef, txs []*wire.MsgTx) {
	ctx := context.Background()
	blk := wallet.BlockInfo{Height: height, Hash: h, Time: 1700000000 + int64(height), Recent: recent}
	if err := w.FollowerBlock(ctx, blk, txs, nil); err != nil {
		b.Fatal(err)
	}
	if err := w.Checkpoint(ctx, recent); err != nil {
		b.Fatal(err)
	}
}

// historyWallet is benchWallet holding history payments, confirmed in
// block 50 and reported at every depth (the tip is 99).
func historyWallet(b *testing.B, history int) (*wallet.Wallet, []byte) {
	ctx := context.Background()
	w, spk := benchWallet(b)
	if history == 0 {
		return w, spk
	}
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
	return w, spk
}

// BenchmarkBlockConnectedPaymentInterleaved is BenchmarkBlockConnectedPayment
// with both sides in one loop, and blocks of 1 and of 16 payments: each
// iteration processes the same block in a wallet with the log and in one
// without it, alternately, and the process CPU time of each side is summed
// on its own, so that the load of a shared machine weighs on both sides
// alike. The two wallets swap sides halfway (the log is switched on in one
// and off in the other; a wallet without the log does none of its
// bookkeeping, so the one switched on has nothing to catch up): two
// wallets made the same way cost up to a tenth apart on this machine
// (their files, their place in memory), which would otherwise weigh on one
// side only. It reports each side's CPU per block (events-cpu-ns/op,
// noevents-cpu-ns/op) and their ratio (x-events).
func BenchmarkBlockConnectedPaymentInterleaved(b *testing.B) {
	for _, history := range []int{0, 1000, 10000, 100000} {
		for _, perBlock := range []int{1, 16} {
			if (history > 10000 || perBlock > 1 && history != 1000) && testing.Short() {
				continue
			}
			b.Run(fmt.Sprintf("history=%d/payments=%d", history, perBlock), func(b *testing.B) {
				interleavedPayments(b, perBlock, func(b *testing.B) (*wallet.Wallet, func(int) []byte) {
					w, spk := historyWallet(b, history)
					return w, func(int) []byte { return spk }
				})
			})
		}
	}
	// Each payment to the next address of a ranged descriptor, as
	// getnewaddress gives them: the wallet also marks the script used and
	// derives one more to keep its key pool full.
	for _, perBlock := range []int{1, 16} {
		b.Run(fmt.Sprintf("fresh/payments=%d", perBlock), func(b *testing.B) {
			interleavedPayments(b, perBlock, freshWallet)
		})
	}
}

// freshWallet is a watch-only wallet with an active wpkh descriptor of a
// regtest xpub, and the script of each index of that descriptor. Its key
// pool is Core's default, 1 000 addresses ahead, so that every payment is
// to a script the wallet has derived.
func freshWallet(b *testing.B) (*wallet.Wallet, func(int) []byte) {
	ctx := context.Background()
	m := wallet.NewManager(wallet.ManagerConfig{NetDir: filepath.Join(b.TempDir(), "regtest"),
		Net: &chaincfg.RegressionNetParams, Opener: walletdb.Opener{}, Keypool: wallet.DefaultKeypool})
	b.Cleanup(func() { m.Close() })
	w, _, err := m.Create(ctx, "w", wallet.CreateOptions{DisablePrivateKeys: true, Blank: true})
	if err != nil {
		b.Fatal(err)
	}
	master, err := hdkeychain.NewMaster(bytes.Repeat([]byte{0x42}, 32), &chaincfg.RegressionNetParams)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := master.Neuter()
	if err != nil {
		b.Fatal(err)
	}
	desc := descriptor.AddChecksum("wpkh(" + pub.String() + "/0/*)")
	res, err := w.ImportDescriptors(ctx, []wallet.ImportElement{{HasDesc: true, Desc: desc, Active: true,
		HasRange: true, RangeEnd: 999, Timestamp: 1700000000}}, nil)
	if err != nil || !res[0].Success {
		b.Fatalf("import: %v %+v", err, res)
	}
	d, err := descriptor.Parse(desc, &chaincfg.RegressionNetParams)
	if err != nil {
		b.Fatal(err)
	}
	return w, func(i int) []byte {
		outs, err := d.Expand(uint32(i), nil)
		if err != nil {
			b.Fatal(err)
		}
		return outs[0].ScriptPubKey
	}
}

// interleavedPayments is one run of BenchmarkBlockConnectedPaymentInterleaved:
// b.N blocks of perBlock payments each to two wallets made by open, the
// i-th payment to the script it gives for i.
func interleavedPayments(b *testing.B, perBlock int, open func(*testing.B) (*wallet.Wallet, func(int) []byte)) {
	first, script := open(b)
	second, _ := open(b)
	// wallets[0] has the log, wallets[1] not, until halfway.
	wallets := [2]*wallet.Wallet{first, second}
	wallet.SetNoEvents(second, true)
	var recent []wallet.BlockRef
	txs := make([]*wire.MsgTx, perBlock)
	scripts := make([][]byte, b.N*perBlock)
	for i := range scripts {
		scripts[i] = script(i)
	}
	block := func(w *wallet.Wallet, i int) {
		height := int32(100 + i)
		var h chainhash.Hash
		binary.LittleEndian.PutUint64(h[:], uint64(height))
		for k := range txs {
			txs[k] = payment(i*perBlock+k, scripts[i*perBlock+k])
		}
		followBlock(b, w, height, h, recentWindow(recent, height, h), txs)
	}
	runtime.GC()
	b.ResetTimer()
	var spent [2]time.Duration
	for i := range b.N {
		if i == b.N/2 && b.N > 1 {
			wallets[0], wallets[1] = second, first
			wallet.SetNoEvents(second, false)
			wallet.SetNoEvents(first, true)
		}
		// Alternate which side goes first.
		for k := range 2 {
			side := (i + k) % 2
			start := benchcpu.Used()
			block(wallets[side], i)
			spent[side] += benchcpu.Used() - start
		}
		var h chainhash.Hash
		binary.LittleEndian.PutUint64(h[:], uint64(100+i))
		recent = recentWindow(recent, int32(100+i), h)
	}
	// Every payment was the wallet's.
	for _, w := range wallets {
		if n := w.TxCount(); n < b.N*perBlock {
			b.Fatalf("the wallet holds %d transactions after %d payments", n, b.N*perBlock)
		}
	}
	if b.N > 0 && spent[1] > 0 {
		b.ReportMetric(float64(spent[0])/float64(b.N), "events-cpu-ns/op")
		b.ReportMetric(float64(spent[1])/float64(b.N), "noevents-cpu-ns/op")
		b.ReportMetric(float64(spent[0])/float64(spent[1]), "x-events")
	}
}

// benchRecent is how many last processed blocks each checkpoint of the
// benchmarks records: as many as the chain follower keeps
// (scan.DefaultRecent).
const benchRecent = 100

// recentWindow is recent with the block of height and hash h added, the
// oldest dropped past benchRecent blocks.
func recentWindow(recent []wallet.BlockRef, height int32, h chainhash.Hash) []wallet.BlockRef {
	out := append(append([]wallet.BlockRef(nil), recent...), wallet.BlockRef{Height: height, Hash: h})
	if len(out) > benchRecent {
		out = out[len(out)-benchRecent:]
	}
	return out
}
