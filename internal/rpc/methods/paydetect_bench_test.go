package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
)

// BenchmarkPaymentDetection answers listsinceblock (from genesis, from a
// block ten blocks below the tip, from the tip) and getreceivedbyaddress
// through the full request path in a wallet of 100 000 transactions: 100
// blocks of 999 payments then 10 blocks of 10, each paying one of 1000
// addresses, recorded directly in the wallet's store (no chain backend).
func BenchmarkPaymentDetection(b *testing.B) {
	ctx := context.Background()
	n := newWalletNode(b, b.TempDir())
	defer n.mgr.Close()
	n.call(b, "/", "createwallet", json.RawMessage(`["w", true, true]`))
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": "now", "active": true, "range": []int{0, 999}}}})
	if r := n.call(b, "/wallet/w", "importdescriptors", req); !strings.Contains(string(r.Result), `"success":true`) {
		b.Fatalf("import: %s", r.Result)
	}
	params, _ := json.Marshal([]any{desc, []int{0, 999}})
	var addrs []string
	if r := n.call(b, "/", "deriveaddresses", params); json.Unmarshal(r.Result, &addrs) != nil || len(addrs) != 1000 {
		b.Fatalf("deriveaddresses: %s", r.Result)
	}
	scripts := make([][]byte, len(addrs))
	for i, a := range addrs {
		s, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			b.Fatal(err)
		}
		scripts[i] = s
	}
	w, ok := n.mgr.Get("w")
	if !ok {
		b.Fatal("wallet not loaded")
	}
	var recent []wallet.BlockRef
	var hashes []chainhash.Hash
	txn := 0
	addBlock := func(height int32, count int) {
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(height)+1)
		txs := make([]*wire.MsgTx, count)
		idx := make([]int, count)
		for i := range txs {
			tx := wire.NewMsgTx(2)
			var prev chainhash.Hash
			binary.BigEndian.PutUint64(prev[:], uint64(txn)+1)
			tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
			tx.AddTxOut(wire.NewTxOut(int64(10_000+txn), scripts[txn%len(scripts)]))
			txs[i], idx[i] = tx, i+1
			txn++
		}
		if err := w.BlockConnected(ctx, wallet.BlockInfo{Height: height, Hash: hash, Time: 1700000000 + int64(height)}, txs, idx); err != nil {
			b.Fatal(err)
		}
		recent = append(recent, wallet.BlockRef{Height: height, Hash: hash})
		hashes = append(hashes, hash)
	}
	h := int32(1)
	for ; h <= 100; h++ {
		addBlock(h, 999)
	}
	for ; h <= 110; h++ {
		addBlock(h, 10)
	}
	if err := w.Checkpoint(ctx, recent); err != nil {
		b.Fatal(err)
	}
	if got := w.TxCount(); got != 100_000 {
		b.Fatalf("%d transactions", got)
	}
	run := func(name, method string, params any, check func(json.RawMessage)) {
		p, _ := json.Marshal(params)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := n.call(b, "/wallet/w", method, p)
				if r.Error != nil {
					b.Fatalf("%s: %d %s", method, r.Error.Code, r.Error.Message)
				}
				if i == 0 {
					check(r.Result)
				}
			}
		})
	}
	countEntries := func(want int) func(json.RawMessage) {
		return func(raw json.RawMessage) {
			var res struct {
				Transactions []json.RawMessage `json:"transactions"`
			}
			if json.Unmarshal(raw, &res) != nil || len(res.Transactions) != want {
				b.Fatalf("%d entries, want %d", len(res.Transactions), want)
			}
		}
	}
	run("listsinceblock-genesis", "listsinceblock", []any{}, countEntries(100_000))
	run("listsinceblock-recent", "listsinceblock", []any{hashes[len(hashes)-11].String()}, countEntries(100))
	run("listsinceblock-tip", "listsinceblock", []any{hashes[len(hashes)-1].String()}, countEntries(0))
	run("getreceivedbyaddress", "getreceivedbyaddress", []any{addrs[7]}, func(raw json.RawMessage) {
		// 100 payments of 10 000 + 7 + 1000k satoshis, k = 0..99.
		var want int64
		for k := int64(0); k < 100; k++ {
			want += 10_000 + 7 + 1000*k
		}
		if got := string(raw); got != fmt.Sprintf("%d.%08d", want/1e8, want%1e8) {
			b.Fatalf("getreceivedbyaddress = %s, want %d sat", got, want)
		}
	})
}
