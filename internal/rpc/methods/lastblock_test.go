package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
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

// TestLastBlockAgreesWithReply reads listsinceblock, getbalances and
// gettransaction while blocks arrive, and checks that the block each reply
// names (lastblock, lastprocessedblock) is the one its transactions and
// balances were computed at. A client that stores lastblock and asks
// again from it must not miss a transaction because the block holding it
// was processed between the two halves of a reply.
func TestLastBlockAgreesWithReply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, w, addrs := newPaidWallet(t, 10, nil)

	// What the writer has made known: block heights by hash, and each
	// block's one payment.
	var mu sync.Mutex
	heights := map[string]int32{}
	var paid []blockPayment
	known := func() (map[string]int32, []blockPayment) {
		mu.Lock()
		defer mu.Unlock()
		hs := make(map[string]int32, len(heights))
		for k, v := range heights {
			hs[k] = v
		}
		return hs, append([]blockPayment(nil), paid...)
	}

	const blocks = 150
	var done atomic.Bool
	var readers sync.WaitGroup
	check := func(reader int) {
		defer readers.Done()
		for i := 0; !done.Load() && i < 100_000; i++ {
			var err error
			switch (i + reader) % 3 {
			case 0:
				err = checkSinceBlock(n, t, known)
			case 1:
				err = checkBalances(n, t, known)
			case 2:
				err = checkTransaction(n, t, known, i)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}
	readers.Add(2)
	go check(0)
	go check(1)

	var recent []wallet.BlockRef
	for h := int32(1); h <= blocks; h++ {
		spk, err := address.Decode(addrs[h%10], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		tx := wire.NewMsgTx(2)
		var prev chainhash.Hash
		binary.BigEndian.PutUint32(prev[:], uint32(h))
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
		tx.AddTxOut(wire.NewTxOut(10_000+int64(h), spk))
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
		recent = append(recent, wallet.BlockRef{Height: h, Hash: hash})
		mu.Lock()
		heights[hash.String()] = h
		paid = append(paid, blockPayment{txid: tx.TxHash().String(), height: h, amount: 10_000 + int64(h)})
		mu.Unlock()
		// The block carries the state it leaves the wallet at, as the
		// chain follower's last block of a round does: its transaction
		// and the new tip are written and shown together.
		info := wallet.BlockInfo{Height: h, Hash: hash, Time: 1700000000 + int64(h), Recent: append([]wallet.BlockRef(nil), recent...)}
		if err := w.FollowerBlock(ctx, info, []*wire.MsgTx{tx}, []int{1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Checkpoint(ctx, recent); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	readers.Wait()
	// The readers ran: the last reply names the last block.
	hs, _ := known()
	var since struct {
		LastBlock string `json:"lastblock"`
	}
	if r := n.call(t, "/wallet/w", "listsinceblock", nil); json.Unmarshal(r.Result, &since) != nil || hs[since.LastBlock] != blocks {
		t.Fatalf("listsinceblock at the end: %s", r.Result)
	}
}

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

// blockPayment is a payment to the wallet and the block holding it.
type blockPayment struct {
	txid   string
	height int32
	amount int64
}

// knownBlocks returns the blocks (heights by hash) and payments made so far.
type knownBlocks func() (map[string]int32, []blockPayment)

// checkSinceBlock checks one listsinceblock reply: every payment in a
// block at or below lastblock is listed with the depth lastblock gives it,
// and none above it is.
func checkSinceBlock(n *walletNode, t testing.TB, known knownBlocks) error {
	r := n.call(t, "/wallet/w", "listsinceblock", nil)
	hs, paid := known()
	if r.Error != nil {
		return fmt.Errorf("listsinceblock: %s", r.Error.Message)
	}
	var res struct {
		Transactions []struct {
			TxID          string `json:"txid"`
			Confirmations int64  `json:"confirmations"`
			BlockHeight   int32  `json:"blockheight"`
		} `json:"transactions"`
		LastBlock string `json:"lastblock"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	last, ok := hs[res.LastBlock]
	if !ok {
		if len(res.Transactions) != 0 {
			return fmt.Errorf("listsinceblock: lastblock %s before any block, %d entries", res.LastBlock, len(res.Transactions))
		}
		return nil
	}
	listed := map[string]int64{}
	for _, e := range res.Transactions {
		listed[e.TxID] = e.Confirmations
	}
	for _, p := range paid {
		c, ok := listed[p.txid]
		switch {
		case p.height <= last && (!ok || c != int64(last-p.height+1)):
			return fmt.Errorf("listsinceblock: lastblock at %d, payment of block %d listed %v with %d confirmations", last, p.height, ok, c)
		case p.height > last && ok:
			return fmt.Errorf("listsinceblock: lastblock at %d, payment of block %d listed", last, p.height)
		}
	}
	return nil
}

// checkBalances checks one getbalances reply: the trusted balance is what
// the blocks up to lastprocessedblock paid.
func checkBalances(n *walletNode, t testing.TB, known knownBlocks) error {
	r := n.call(t, "/wallet/w", "getbalances", nil)
	_, paid := known()
	if r.Error != nil {
		return fmt.Errorf("getbalances: %s", r.Error.Message)
	}
	var res struct {
		Mine struct {
			Trusted json.Number `json:"trusted"`
		} `json:"mine"`
		Last struct {
			Height int32 `json:"height"`
		} `json:"lastprocessedblock"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	var want int64
	for _, p := range paid {
		if p.height <= res.Last.Height {
			want += p.amount
		}
	}
	if got := sats(res.Mine.Trusted); got != want {
		return fmt.Errorf("getbalances: trusted %d at block %d, the blocks up to it paid %d", got, res.Last.Height, want)
	}
	return nil
}

// checkTransaction checks one gettransaction reply of the latest payment:
// its confirmations count to lastprocessedblock.
func checkTransaction(n *walletNode, t testing.TB, known knownBlocks, i int) error {
	_, paid := known()
	if len(paid) == 0 {
		return nil
	}
	p := paid[len(paid)-1-i%min(len(paid), 3)]
	params, _ := json.Marshal([]any{p.txid})
	r := n.call(t, "/wallet/w", "gettransaction", params)
	if r.Error != nil {
		// Not recorded yet.
		return nil
	}
	var res struct {
		Confirmations int64 `json:"confirmations"`
		Last          struct {
			Height int32 `json:"height"`
		} `json:"lastprocessedblock"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	if res.Confirmations != int64(res.Last.Height-p.height+1) {
		return fmt.Errorf("gettransaction: payment of block %d has %d confirmations at lastprocessedblock %d", p.height, res.Confirmations, res.Last.Height)
	}
	return nil
}
