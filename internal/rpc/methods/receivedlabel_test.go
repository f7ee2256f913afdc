package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
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

	feed := newBlockFeed(w)
	stop := readWhile(t, 2, func(reader, i int) error {
		if (i+reader)%2 == 0 {
			return checkReceivedByAddress(n, t, addrs[0], payee)
		}
		return checkReceivedByLabel(n, t, amount)
	})
	for h := int32(1); h <= blocks; h++ {
		tx := feedTx(uint32(h), 0, payTo(t, addrs[0], 1), payTo(t, addrs[h], amount(int64(h))))
		mu.Lock()
		payees[tx.TxHash().String()] = addrs[h]
		mu.Unlock()
		if err := feed.connect(ctx, feedBlock(h, 0), tx); err != nil {
			t.Fatal(err)
		}
	}
	stop()
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
