package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
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
	feed := newBlockFeed(w)
	stop := readWhile(t, 2, func(reader, i int) error {
		switch (i + reader) % 3 {
		case 0:
			return checkSinceBlock(n, t, feed.known)
		case 1:
			return checkBalances(n, t, feed.known)
		default:
			return checkTransaction(n, t, feed.known, i)
		}
	})
	const blocks = 150
	for h := int32(1); h <= blocks; h++ {
		if err := feed.connect(ctx, feedBlock(h, 0), feedTx(uint32(h), 0, payTo(t, addrs[h%10], 10_000+int64(h)))); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	// The readers ran: the last reply names the last block.
	hs, _ := feed.known()
	var since struct {
		LastBlock string `json:"lastblock"`
	}
	if r := n.call(t, "/wallet/w", "listsinceblock", nil); json.Unmarshal(r.Result, &since) != nil || hs[since.LastBlock] != blocks {
		t.Fatalf("listsinceblock at the end: %s", r.Result)
	}
}

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
