package methods

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/wallet"
)

// benchWallet is a wallet with private keys built for the spending
// benchmarks: its transactions are recorded directly through the wallet's
// block API (no chain backend), as a follower would record them.
type benchWallet struct {
	n      *walletNode
	w      *wallet.Wallet
	recv   [][]byte // receive scripts of the wallet, index 0..
	change [][]byte // change scripts of the wallet
	height int32
	txn    uint64 // fake funding outpoints handed out
	recent []wallet.BlockRef
}

// newBenchWallet creates wallet "w" with the default descriptors and
// reads nRecv receive and nChange change scripts from its active bech32
// descriptors.
func newBenchWallet(tb testing.TB, nRecv, nChange int) *benchWallet {
	tb.Helper()
	n := newWalletNodeKeypool(tb, tb.TempDir(), max(nRecv, nChange, 1000))
	if r := n.call(tb, "/", "createwallet", json.RawMessage(`["w"]`)); r.Error != nil {
		tb.Fatalf("createwallet: %s", r.Error.Message)
	}
	w, ok := n.mgr.Get("w")
	if !ok {
		tb.Fatal("wallet not loaded")
	}
	bw := &benchWallet{n: n, w: w}
	var ld struct {
		Descriptors []struct {
			Desc     string `json:"desc"`
			Active   bool   `json:"active"`
			Internal bool   `json:"internal"`
		} `json:"descriptors"`
	}
	r := n.call(tb, "/wallet/w", "listdescriptors", json.RawMessage(`[]`))
	if r.Error != nil || json.Unmarshal(r.Result, &ld) != nil {
		tb.Fatalf("listdescriptors: %s", r.Result)
	}
	for _, d := range ld.Descriptors {
		if len(d.Desc) < 5 || d.Desc[:5] != "wpkh(" || !d.Active {
			continue
		}
		count := nRecv
		if d.Internal {
			count = nChange
		}
		if count == 0 {
			continue
		}
		params, _ := json.Marshal([]any{d.Desc, []int{0, count - 1}})
		var addrs []string
		if r := n.call(tb, "/", "deriveaddresses", params); r.Error != nil || json.Unmarshal(r.Result, &addrs) != nil {
			tb.Fatalf("deriveaddresses: %s", r.Result)
		}
		for _, a := range addrs {
			s, err := address.Decode(a, &chaincfg.RegressionNetParams)
			if err != nil {
				tb.Fatal(err)
			}
			if d.Internal {
				bw.change = append(bw.change, s)
			} else {
				bw.recv = append(bw.recv, s)
			}
		}
	}
	if len(bw.recv) != nRecv || len(bw.change) != nChange {
		tb.Fatalf("%d receive and %d change scripts", len(bw.recv), len(bw.change))
	}
	return bw
}

// fundingTx returns a transaction spending a fresh outpoint of no one.
func (bw *benchWallet) fundingTx() *wire.MsgTx {
	tx := wire.NewMsgTx(2)
	bw.txn++
	var prev chainhash.Hash
	binary.BigEndian.PutUint64(prev[:], bw.txn)
	prev[31] = 0xbe
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
	return tx
}

// block records txs as the next block.
func (bw *benchWallet) block(tb testing.TB, txs []*wire.MsgTx) {
	tb.Helper()
	bw.height++
	var hash chainhash.Hash
	binary.BigEndian.PutUint32(hash[:], uint32(bw.height))
	hash[31] = 0xb1
	idx := make([]int, len(txs))
	for i := range idx {
		idx[i] = i + 1
	}
	if err := bw.w.BlockConnected(context.Background(), wallet.BlockInfo{Height: bw.height, Hash: hash,
		Time: 1700000000 + int64(bw.height)*600}, txs, idx); err != nil {
		tb.Fatal(err)
	}
	bw.recent = append(bw.recent, wallet.BlockRef{Height: bw.height, Hash: hash})
	if len(bw.recent) > 100 {
		bw.recent = bw.recent[len(bw.recent)-100:]
	}
}

// emptyBlocks advances the tip by k blocks holding nothing of the wallet.
func (bw *benchWallet) emptyBlocks(tb testing.TB, k int) {
	tb.Helper()
	for ; k > 0; k-- {
		bw.height++
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(bw.height))
		hash[31] = 0xb1
		bw.recent = append(bw.recent, wallet.BlockRef{Height: bw.height, Hash: hash})
	}
	if len(bw.recent) > 100 {
		bw.recent = bw.recent[len(bw.recent)-100:]
	}
	if err := bw.w.Checkpoint(context.Background(), bw.recent); err != nil {
		tb.Fatal(err)
	}
}

// fillUTXOs gives the wallet n outputs of value sat as Core's figure was
// made: transactions of 500 outputs to 500 addresses, one per block, then
// 6 blocks on top.
func (bw *benchWallet) fillUTXOs(tb testing.TB, n int, value int64) {
	tb.Helper()
	for done := 0; done < n; {
		tx := bw.fundingTx()
		for i := 0; i < 500 && done < n; i++ {
			tx.AddTxOut(wire.NewTxOut(value, bw.recv[i%len(bw.recv)]))
			done++
		}
		bw.block(tb, []*wire.MsgTx{tx})
	}
	bw.emptyBlocks(tb, 6)
}

// BenchmarkListUnspent10k answers listunspent in a wallet of 10 000
// confirmed outputs of 0.001 BTC (20 transactions of 500 outputs to 500
// addresses) through the full request path, and, as the reference of the
// same run, the encoding of the same reply with encoding/json.
func BenchmarkListUnspent10k(b *testing.B) {
	bw := newBenchWallet(b, 500, 0)
	defer bw.n.mgr.Close()
	bw.fillUTXOs(b, 10_000, 100_000)
	var body []byte
	b.Run("listunspent", func(b *testing.B) {
		b.ReportAllocs()
		var m cpuMeter
		for i := 0; i < b.N; i++ {
			m.measure(func() { body = bw.n.rawCall(b, "/wallet/w", "listunspent", json.RawMessage(`[]`)) })
		}
		m.report(b)
	})
	var r stepReply
	if err := json.Unmarshal(body, &r); err != nil || r.Error != nil {
		b.Fatalf("listunspent: %v %v", err, r.Error)
	}
	reply := r.Result
	entries := decodeUnspent(b, reply)
	if len(entries) != 10_000 {
		b.Fatalf("%d entries", len(entries))
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var m cpuMeter
		for i := 0; i < b.N; i++ {
			var out []byte
			var err error
			m.measure(func() { out, err = json.Marshal(entries) })
			if err != nil || len(out) != len(reply) {
				b.Fatalf("%d bytes, reply %d (%v)", len(out), len(reply), err)
			}
		}
		m.report(b)
	})
}

// balanceFixture builds a wallet of 100 000 transactions: in each of 100
// blocks, 900 payments to the wallet, 95 spends of earlier payments with a
// change output and 5 coinbase-like payments, with 100 blocks on top of a
// few so that some coinbases are still immature; then 50 unconfirmed
// receives and 50 unconfirmed own spends.
func balanceFixture(tb testing.TB) *benchWallet {
	bw := newBenchWallet(tb, 1000, 1000)
	foreign := bytes.Repeat([]byte{0x51}, 1) // OP_TRUE: not the wallet's
	type coin struct {
		op    wire.OutPoint
		value int64
	}
	var coins []coin
	k := 0
	spend := func(c coin) *wire.MsgTx {
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&c.op, nil, nil))
		tx.AddTxOut(wire.NewTxOut(c.value/3, foreign))
		tx.AddTxOut(wire.NewTxOut(c.value-c.value/3-200, bw.change[k%len(bw.change)]))
		return tx
	}
	for blk := 0; blk < 100; blk++ {
		txs := make([]*wire.MsgTx, 0, 1000)
		for i := 0; i < 5; i++ {
			cb := wire.NewMsgTx(2)
			cb.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&chainhash.Hash{}, wire.MaxPrevOutIndex), []byte{byte(blk), byte(i), 1}, nil))
			cb.AddTxOut(wire.NewTxOut(50_000_000, bw.recv[k%len(bw.recv)]))
			k++
			txs = append(txs, cb)
		}
		for i := 0; i < 900; i++ {
			tx := bw.fundingTx()
			tx.AddTxOut(wire.NewTxOut(int64(10_000+k), bw.recv[k%len(bw.recv)]))
			k++
			txs = append(txs, tx)
		}
		for i := 0; i < 95 && len(coins) > 0; i++ {
			c := coins[0]
			coins = coins[1:]
			tx := spend(c)
			k++
			txs = append(txs, tx)
		}
		bw.block(tb, txs)
		for _, tx := range txs[5:] {
			h := tx.TxHash()
			last := len(tx.TxOut) - 1
			coins = append(coins, coin{wire.OutPoint{Hash: h, Index: uint32(last)}, tx.TxOut[last].Value})
		}
	}
	// Fewer coinbases of block 1.. are mature at height 100+k: leave the
	// last 30 blocks' immature.
	bw.emptyBlocks(tb, 70)
	var mem []*wire.MsgTx
	for i := 0; i < 50; i++ {
		tx := bw.fundingTx()
		tx.AddTxOut(wire.NewTxOut(int64(20_000+i), bw.recv[i]))
		mem = append(mem, tx)
	}
	for i := 0; i < 50; i++ {
		mem = append(mem, spend(coins[i]))
	}
	if err := bw.w.MempoolTxs(context.Background(), mem); err != nil {
		tb.Fatal(err)
	}
	return bw
}

// BenchmarkGetBalance answers getbalance and getbalances through the full
// request path in a wallet of 100 000 transactions (balanceFixture), and
// getbalances after one more block, which changes every depth.
func BenchmarkGetBalance(b *testing.B) {
	bw := balanceFixture(b)
	defer bw.n.mgr.Close()
	if got := bw.w.TxCount(); got < 100_000 {
		b.Fatalf("%d transactions", got)
	}
	for _, m := range []string{"getbalance", "getbalances"} {
		b.Run(m, func(b *testing.B) {
			b.ReportAllocs()
			var cpu cpuMeter
			for i := 0; i < b.N; i++ {
				var r stepReply
				cpu.measure(func() { r = bw.n.call(b, "/wallet/w", m, json.RawMessage(`[]`)) })
				if r.Error != nil {
					b.Fatal(r.Error.Message)
				}
			}
			cpu.report(b)
		})
	}
	b.Run("getbalances-after-block", func(b *testing.B) {
		b.ReportAllocs()
		var cpu cpuMeter
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			tx := bw.fundingTx()
			tx.AddTxOut(wire.NewTxOut(12_345, bw.recv[i%len(bw.recv)]))
			bw.block(b, []*wire.MsgTx{tx})
			b.StartTimer()
			var r stepReply
			cpu.measure(func() { r = bw.n.call(b, "/wallet/w", "getbalances", json.RawMessage(`[]`)) })
			if r.Error != nil {
				b.Fatal(r.Error.Message)
			}
		}
		cpu.report(b)
	})
}

// decodeUnspent reads a listunspent reply back into the reply's own type.
func decodeUnspent(tb testing.TB, raw json.RawMessage) []unspentEntry {
	tb.Helper()
	var mirror []struct {
		unspentEntry
		Amount json.Number `json:"amount"`
	}
	if err := json.Unmarshal(raw, &mirror); err != nil {
		tb.Fatal(err)
	}
	out := make([]unspentEntry, len(mirror))
	for i, m := range mirror {
		a, err := rpc.AsAmount(json.RawMessage(m.Amount))
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = m.unspentEntry
		out[i].Amount = a
	}
	return out
}

// rawCall is walletNode.call returning the reply's body undecoded, as a
// client reading the whole reply sees it.
func (n *walletNode) rawCall(tb testing.TB, path, method string, params json.RawMessage) []byte {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	n.handler.ServeHTTP(w, req)
	if w.Code != 200 {
		tb.Fatalf("%s: HTTP %d %s", method, w.Code, w.Body.Bytes())
	}
	return w.Body.Bytes()
}

// BenchmarkWalletCreateFundedPSBT funds a payment of 0.0005 BTC at
// 10 sat/vB with walletcreatefundedpsbt in wallets of 10 000 and 100 000
// confirmed outputs of 0.001 BTC (transactions of 500 outputs to 500
// addresses, as Core's figure was made), through the full request path;
// and sendtoaddress of the same payment end to end (selection, signing,
// recording; no backend to relay to) in the 10 000-output wallet.
func BenchmarkWalletCreateFundedPSBT(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		bw := newBenchWallet(b, 500, 0)
		bw.fillUTXOs(b, n, 100_000)
		params := json.RawMessage(`[[], [{"bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc": 0.0005}], 0, {"fee_rate": 10}]`)
		b.Run(fmt.Sprintf("utxos=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var cpu cpuMeter
			defer cpu.report(b)
			for i := 0; i < b.N; i++ {
				var r stepReply
				cpu.measure(func() { r = bw.n.call(b, "/wallet/w", "walletcreatefundedpsbt", params) })
				if r.Error != nil {
					b.Fatal(r.Error.Message)
				}
				if i == 0 {
					var res struct {
						PSBT string  `json:"psbt"`
						Fee  float64 `json:"fee"`
					}
					if json.Unmarshal(r.Result, &res) != nil || res.PSBT == "" || res.Fee <= 0 {
						b.Fatalf("walletcreatefundedpsbt: %s", r.Result)
					}
				}
			}
		})
		if n == 10_000 {
			send := json.RawMessage(`["bcrt1qad9t5d5p8fylrpph5ax9ny4vwtn8npdghgv3nc", 0.0005, "", "", false, true, null, null, null, 10]`)
			b.Run("sendtoaddress", func(b *testing.B) {
				b.ReportAllocs()
				var cpu cpuMeter
				for i := 0; i < b.N; i++ {
					var r stepReply
					cpu.measure(func() { r = bw.n.call(b, "/wallet/w", "sendtoaddress", send) })
					if r.Error != nil {
						b.Fatal(r.Error.Message)
					}
				}
				cpu.report(b)
			})
		}
		bw.n.mgr.Close()
	}
}

// cpuMeter adds up the process's CPU time (user and system, every thread:
// the call's own work and its garbage collection) around measured calls,
// a figure that other load on a shared machine does not inflate as it
// inflates wall time.
type cpuMeter struct{ total time.Duration }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs f and adds its CPU time.
func (m *cpuMeter) measure(f func()) {
	start := processCPU()
	f()
	m.total += processCPU() - start
}

// report adds the CPU time per call to b's results.
func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
}
