package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/wallet"
)

// TestUsedScriptWithBlock runs a wallet with the avoid_reuse flag through
// blocks that pay an address twice, then spend one of the two coins, while
// clients read getbalances. As Core, the wallet marks an address used when
// a transaction spends from it, under the same lock as it records the
// transaction: a reply whose lastprocessedblock counts the spend shows the
// other coin as used, never as trusted (which coin selection would then
// spend, reusing the address).
func TestUsedScriptWithBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pairs = 60
	n, w, addrs := newPaidWallet(t, pairs+1, func(wallet.TxNotice) { runtime.Gosched() })
	if r := n.call(t, "/wallet/w", "setwalletflag", json.RawMessage(`["avoid_reuse", true]`)); r.Error != nil {
		t.Fatalf("setwalletflag: %s", r.Error.Message)
	}
	foreign, err := address.Decode("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}

	// At height 2k-1 address k gets two coins of 1000+k sats; at 2k one
	// of them is spent: the other is used from then on.
	const coin = 1000
	feed := newBlockFeed(w)
	stop := readWhile(t, 2, func(int, int) error { return checkUsedBalances(n, t) })
	for k := int32(1); k <= pairs; k++ {
		pay := feedTx(uint32(k), 0, payTo(t, addrs[k], coin+int64(k)), payTo(t, addrs[k], coin+int64(k)))
		if err := feed.connect(ctx, feedBlock(2*k-1, 0), pay); err != nil {
			t.Fatal(err)
		}
		id := pay.TxHash()
		spend := wire.NewMsgTx(2)
		spend.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&id, 0), nil, nil))
		spend.AddTxOut(wire.NewTxOut(coin, foreign))
		if err := feed.connect(ctx, feedBlock(2*k, 0), spend); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if err := checkUsedBalances(n, t); err != nil {
		t.Fatal(err)
	}
	if hs, _ := feed.known(); len(hs) != 2*pairs {
		t.Fatalf("%d blocks", len(hs))
	}
}

// checkUsedBalances checks one getbalances reply against the blocks up to
// its lastprocessedblock: the coins of the addresses spent from are used,
// those of the others trusted.
func checkUsedBalances(n *walletNode, t testing.TB) error {
	r := n.call(t, "/wallet/w", "getbalances", nil)
	if r.Error != nil {
		return fmt.Errorf("getbalances: %s", r.Error.Message)
	}
	var res struct {
		Mine struct {
			Trusted json.Number `json:"trusted"`
			Used    json.Number `json:"used"`
		} `json:"mine"`
		Last struct {
			Height int32 `json:"height"`
		} `json:"lastprocessedblock"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return err
	}
	var trusted, used int64
	for k := int32(1); 2*k-1 <= res.Last.Height; k++ {
		if 2*k <= res.Last.Height {
			used += 1000 + int64(k)
		} else {
			trusted += 2 * (1000 + int64(k))
		}
	}
	if got, gotUsed := sats(res.Mine.Trusted), sats(res.Mine.Used); got != trusted || gotUsed != used {
		return fmt.Errorf("getbalances at block %d: trusted %d used %d, want %d and %d", res.Last.Height, got, gotUsed, trusted, used)
	}
	return nil
}
