package methods

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
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

	// pay returns block h of a branch and its transaction paying the
	// wallet h*100+branch sats.
	pay := func(h int32, branch byte) (wallet.BlockRef, *wire.MsgTx) {
		spk, err := address.Decode(addrs[h%10], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		tx := wire.NewMsgTx(2)
		var prev chainhash.Hash
		binary.BigEndian.PutUint32(prev[:], uint32(h))
		prev[4] = branch
		tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
		tx.AddTxOut(wire.NewTxOut(int64(h)*100+int64(branch), spk))
		var hash chainhash.Hash
		binary.BigEndian.PutUint32(hash[:], uint32(h)+1)
		hash[4] = branch
		return wallet.BlockRef{Height: h, Hash: hash}, tx
	}
	var recent []wallet.BlockRef
	connect := func(b wallet.BlockRef, tx *wire.MsgTx) error {
		recent = append(recent, b)
		info := wallet.BlockInfo{Height: b.Height, Hash: b.Hash, Time: 1700000000 + int64(b.Height),
			Recent: append([]wallet.BlockRef(nil), recent...)}
		if err := w.FollowerBlock(ctx, info, []*wire.MsgTx{tx}, []int{1}); err != nil {
			return err
		}
		return w.Checkpoint(ctx, recent)
	}
	for h := int32(1); h <= 5; h++ {
		if err := connect(pay(h, 0)); err != nil {
			t.Fatal(err)
		}
	}
	asked := chainhash.Hash(recent[4].Hash)
	newTip, newPay := pay(5, 1)

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
		if err := w.Rollback(ctx, 4); err != nil {
			t.Error(err)
		}
		recent = recent[:4]
		if err := connect(newTip, newPay); err != nil {
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
	params, _ = json.Marshal([]any{chainhash.Hash(recent[3].Hash).String()})
	r = n.call(t, "/wallet/w", "listsinceblock", params)
	var res sinceReply
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("listsinceblock from block 4: %s", r.Result)
	}
	if res.LastBlock != chainhash.Hash(newTip.Hash).String() || listed(res, newPay.TxHash()) != 1 {
		t.Fatalf("listsinceblock from block 4: %s", r.Result)
	}
}
