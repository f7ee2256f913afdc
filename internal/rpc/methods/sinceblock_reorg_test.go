package methods

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chainhash/v2"
)

// TestSinceBlockAcrossReorg asks listsinceblock for the wallet's tip while
// a reorg replaces that block between the lookup of the block asked for
// and the listing (sinceBlockHook). Listing from the replaced block's
// height in the new chain would name the new tip as lastblock and leave
// out the payment of the block that replaced it: a client polling from
// lastblock would never see that payment. Core answers from one view: the
// block asked for is off the chain, so the listing starts at the fork
// point (or, with no node to place the block, "Block not found").
func TestSinceBlockAcrossReorg(t *testing.T) {
	// Not parallel: sinceBlockHook is the package's.
	ctx := context.Background()
	n, w, addrs := newPaidWallet(t, 10, nil)

	// Block h of branch b pays the wallet h*100+b sats.
	feed := newBlockFeed(w)
	for h := int32(1); h <= 5; h++ {
		if err := feed.connect(ctx, feedBlock(h, 0), feedTx(uint32(h), 0, payTo(t, addrs[h%10], int64(h)*100))); err != nil {
			t.Fatal(err)
		}
	}
	asked := chainhash.Hash(feed.recent[4].Hash)
	newTip, newPay := feedBlock(5, 1), feedTx(5, 1, payTo(t, addrs[5], 501))

	type sinceReply struct {
		Transactions []struct {
			TxID          string `json:"txid"`
			Confirmations int64  `json:"confirmations"`
		} `json:"transactions"`
		LastBlock string `json:"lastblock"`
	}
	// listed returns the confirmations of txid in a reply, -1 when it is
	// not listed.
	listed := func(res sinceReply, txid chainhash.Hash) int64 {
		for _, e := range res.Transactions {
			if e.TxID == txid.String() {
				return e.Confirmations
			}
		}
		return -1
	}

	// The reorg: block 5 is replaced by one with another payment, between
	// the lookup of block 5 and the listing.
	reorged := false
	sinceBlockHook = func() {
		if reorged {
			return
		}
		reorged = true
		// The handler's goroutine: errors only.
		if err := feed.rollback(ctx, 4); err != nil {
			t.Error(err)
		}
		if err := feed.connect(ctx, newTip, newPay); err != nil {
			t.Error(err)
		}
	}
	defer func() { sinceBlockHook = nil }()
	params, _ := json.Marshal([]any{asked.String()})
	r := n.call(t, "/wallet/w", "listsinceblock", params)
	if !reorged {
		t.Fatal("the hook did not run")
	}
	if r.Error != nil {
		// With no node to place the block that left the chain, Core's
		// answer once the reorg happened.
		if r.Error.Code != -5 || r.Error.Message != "Block not found" {
			t.Fatalf("listsinceblock across the reorg: error %d %s", r.Error.Code, r.Error.Message)
		}
	} else {
		var res sinceReply
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		if res.LastBlock == chainhash.Hash(newTip.Hash).String() && listed(res, newPay.TxHash()) != 1 {
			t.Fatalf("listsinceblock across the reorg: lastblock is the new block 5, its payment is not listed: %s", r.Result)
		}
	}
	sinceBlockHook = nil

	// After the reorg, from the fork point: the new block's payment.
	params, _ = json.Marshal([]any{chainhash.Hash(feed.recent[3].Hash).String()})
	r = n.call(t, "/wallet/w", "listsinceblock", params)
	var res sinceReply
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("listsinceblock from block 4: %s", r.Result)
	}
	if res.LastBlock != chainhash.Hash(newTip.Hash).String() || listed(res, newPay.TxHash()) != 1 {
		t.Fatalf("listsinceblock from block 4: %s", r.Result)
	}
}
