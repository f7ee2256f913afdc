package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestReceivedWithBlock pays, in each block, one transaction to the same
// address of the wallet and to a fresh one (never handed out, so that it
// gets its label "" with the block), while clients read
// listreceivedbyaddress and getreceivedbylabel "". The addresses of a
// label and what they received are read in one view: a reply never counts
// a block's payment to the first address and leaves out the fresh address
// the same transaction paid.
func TestReceivedWithBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const blocks = 100
	n, w, addrs := newPaidWallet(t, blocks+1, nil)
	// amount is what the transaction of block h pays the fresh address;
	// the first one gets 1 sat a block.
	amount := func(h int64) int64 { return 1000 * h }
	// payees maps each transaction to the fresh address it paid.
	var mu sync.Mutex
	payees := map[string]string{}
	payee := func(txid string) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		a, ok := payees[txid]
		return a, ok
	}

	var done atomic.Bool
	var readers sync.WaitGroup
	check := func(reader int) {
		defer readers.Done()
		for i := 0; !done.Load() && i < 100_000; i++ {
			var err error
			if (i+reader)%2 == 0 {
				err = checkReceivedByAddress(n, t, addrs[0], payee)
			} else {
				err = checkReceivedByLabel(n, t, amount)
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

	first, err := address.Decode(addrs[0], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	var recent []wallet.BlockRef
	for h := int32(1); h <= blocks; h++ {
		fresh, err := address.Decode(addrs[h], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		tx := wire.NewMsgTx(2)
		var prev chainhash.Hash
		binary.BigEndian.PutUint32(prev[:], uint32(h))
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
		tx.AddTxOut(wire.NewTxOut(1, first))
		tx.AddTxOut(wire.NewTxOut(amount(int64(h)), fresh))
		mu.Lock()
		payees[tx.TxHash().String()] = addrs[h]
		mu.Unlock()
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
		recent = append(recent, wallet.BlockRef{Height: h, Hash: hash})
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
	if err := checkReceivedByLabel(n, t, amount); err != nil {
		t.Fatal(err)
	}
}

// checkReceivedByAddress checks one listreceivedbyaddress reply: each
// transaction counted for the first address has its fresh address listed,
// with that transaction.
func checkReceivedByAddress(n *walletNode, t testing.TB, first string, payee func(string) (string, bool)) error {
	r := n.call(t, "/wallet/w", "listreceivedbyaddress", json.RawMessage(`[0]`))
	if r.Error != nil {
		return fmt.Errorf("listreceivedbyaddress: %s", r.Error.Message)
	}
	var res []struct {
		Address string   `json:"address"`
		TxIDs   []string `json:"txids"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	txids := map[string][]string{}
	for _, e := range res {
		txids[e.Address] = e.TxIDs
	}
	for _, id := range txids[first] {
		a, ok := payee(id)
		if !ok {
			return fmt.Errorf("listreceivedbyaddress: unknown transaction %s", id)
		}
		if len(txids[a]) != 1 || txids[a][0] != id {
			return fmt.Errorf("listreceivedbyaddress: %s counted for %s, its other address %s listed with %v", id, first, a, txids[a])
		}
	}
	return nil
}

// checkReceivedByLabel checks one getreceivedbylabel "" reply: what the
// transactions of blocks 1 to k paid both addresses, for some k.
func checkReceivedByLabel(n *walletNode, t testing.TB, amount func(int64) int64) error {
	r := n.call(t, "/wallet/w", "getreceivedbylabel", json.RawMessage(`["", 0]`))
	if r.Error != nil {
		// No payment yet: the label has no address.
		if r.Error.Message == "Label not found in wallet" {
			return nil
		}
		return fmt.Errorf("getreceivedbylabel: %s", r.Error.Message)
	}
	var got json.Number
	if err := json.Unmarshal(r.Result, &got); err != nil {
		return err
	}
	total := sats(got)
	k := total % 1000 // the first address's 1 sat a block
	want := k
	for h := int64(1); h <= k; h++ {
		want += amount(h)
	}
	if total != want {
		return fmt.Errorf("getreceivedbylabel: %d sats, not what blocks 1 to %d paid (%d)", total, k, want)
	}
	return nil
}
