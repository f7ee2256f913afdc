package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
	"github.com/descwallet/descwallet/internal/walletdb"
)

// newPaidWallet makes a node with a watch-only wallet "w" of an active
// receiving descriptor, and the descriptor's first count addresses (none
// handed out), for tests that hand it blocks directly; the node closes
// with the test. notify, when not nil, is the wallets' TxNotify.
func newPaidWallet(t *testing.T, count int, notify func(wallet.TxNotice)) (*walletNode, *wallet.Wallet, []string) {
	t.Helper()
	n := newWalletNodeConfig(t, t.TempDir(), wallet.ManagerConfig{Opener: walletdb.Opener{}, TxNotify: notify})
	t.Cleanup(func() { n.mgr.Close() })
	n.call(t, "/", "createwallet", json.RawMessage(`["w", true, true]`))
	desc := descriptor.AddChecksum("wpkh(" + hugeTPub + "/0/*)")
	req, _ := json.Marshal([]any{[]any{map[string]any{"desc": desc, "timestamp": "now", "active": true, "range": []int{0, 9}}}})
	if r := n.call(t, "/wallet/w", "importdescriptors", req); !strings.Contains(string(r.Result), `"success":true`) {
		t.Fatalf("import: %s", r.Result)
	}
	params, _ := json.Marshal([]any{desc, []int{0, count - 1}})
	var addrs []string
	if r := n.call(t, "/", "deriveaddresses", params); json.Unmarshal(r.Result, &addrs) != nil || len(addrs) != count {
		t.Fatalf("deriveaddresses: %s", r.Result)
	}
	w, ok := n.mgr.Get("w")
	if !ok {
		t.Fatal("wallet not loaded")
	}
	return n, w, addrs
}

// blockPayment is a transaction of a block handed to the wallet: its
// txid, the block's height and the value of its outputs.
type blockPayment struct {
	txid   string
	height int32
	amount int64
}

// knownBlocks returns the blocks (heights by hash) and payments made so far.
type knownBlocks func() (map[string]int32, []blockPayment)

// blockFeed hands a wallet made-up blocks as the chain follower does: a
// block carries the chain state it leaves the wallet at (written with its
// transactions), then the checkpoint of that state follows. It keeps what
// it handed over for readers running meanwhile (known).
type blockFeed struct {
	w      *wallet.Wallet
	recent []wallet.BlockRef

	mu      sync.Mutex
	heights map[string]int32
	paid    []blockPayment
}

func newBlockFeed(w *wallet.Wallet) *blockFeed {
	return &blockFeed{w: w, heights: map[string]int32{}}
}

// feedBlock is the made-up block of height h on branch.
func feedBlock(h int32, branch byte) wallet.BlockRef {
	var hash chainhash.Hash
	binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
	hash[4] = branch
	return wallet.BlockRef{Height: h, Hash: hash}
}

// feedTx is a transaction spending the made-up outpoint (n, branch) to
// outs.
func feedTx(n uint32, branch byte, outs ...*wire.TxOut) *wire.MsgTx {
	var prev chainhash.Hash
	binary.BigEndian.PutUint32(prev[:], n)
	prev[4] = branch
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
	for _, o := range outs {
		tx.AddTxOut(o)
	}
	return tx
}

// payTo is an output paying amount to addr, an address of the test
// network.
func payTo(t testing.TB, addr string, amount int64) *wire.TxOut {
	t.Helper()
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return wire.NewTxOut(amount, spk)
}

// connect hands the wallet block b, on top of those handed before,
// holding txs, then its checkpoint.
func (f *blockFeed) connect(ctx context.Context, b wallet.BlockRef, txs ...*wire.MsgTx) error {
	f.mu.Lock()
	f.heights[chainhash.Hash(b.Hash).String()] = b.Height
	for _, tx := range txs {
		var v int64
		for _, o := range tx.TxOut {
			v += o.Value
		}
		f.paid = append(f.paid, blockPayment{txid: tx.TxHash().String(), height: b.Height, amount: v})
	}
	f.mu.Unlock()
	f.recent = append(f.recent, b)
	info := wallet.BlockInfo{Height: b.Height, Hash: b.Hash, Time: 1700000000 + int64(b.Height),
		Recent: append([]wallet.BlockRef(nil), f.recent...)}
	idx := make([]int, len(txs))
	for i := range idx {
		idx[i] = i + 1
	}
	if err := f.w.FollowerBlock(ctx, info, txs, idx); err != nil {
		return err
	}
	return f.w.Checkpoint(ctx, f.recent)
}

// rollback takes the blocks above height off the wallet, as a reorg does.
func (f *blockFeed) rollback(ctx context.Context, height int32) error {
	if err := f.w.Rollback(ctx, height); err != nil {
		return err
	}
	for len(f.recent) > 0 && f.recent[len(f.recent)-1].Height > height {
		f.recent = f.recent[:len(f.recent)-1]
	}
	return nil
}

// known returns the blocks (heights by hash) and payments handed over so
// far.
func (f *blockFeed) known() (map[string]int32, []blockPayment) {
	f.mu.Lock()
	defer f.mu.Unlock()
	hs := make(map[string]int32, len(f.heights))
	for k, v := range f.heights {
		hs[k] = v
	}
	return hs, append([]blockPayment(nil), f.paid...)
}

// readWhile runs readers goroutines, each calling check(reader, i) for
// i = 0, 1, ... until the returned stop is called or check fails (a
// failure is reported with t.Error). stop waits for them.
func readWhile(t *testing.T, readers int, check func(reader, i int) error) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !done.Load() && i < 100_000; i++ {
				if err := check(r, i); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}
