package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// TestChangeIndexKeptChain follows Core's use of change indexes: a
// funding keeps the change address it reserved once it succeeds, whether
// or not the transaction has change (Core's KeepDestination), and Core's
// second attempt avoiding partial spends reserves a fresh one when the
// first attempt had no change. So a payment with change uses one index, a
// changeless payment two, and getrawchangeaddress hands out the index
// after them.
func TestChangeIndexKeptChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	h := newSpendHarness(t)
	h.b.Fund(wire.NewTxOut(50_000_000, h.newScript("", "bech32")))
	h.b.Generate(1)
	h.check("receive")
	stranger := testenv.NewKey("change index stranger")

	changeIndex := func(step string, want string) {
		t.Helper()
		var addr string
		h.call(&addr, "getrawchangeaddress", "bech32")
		var info struct {
			HDKeyPath string `json:"hdkeypath"`
		}
		h.call(&info, "getaddressinfo", addr)
		if !strings.HasSuffix(info.HDKeyPath, want) {
			t.Errorf("%s: getrawchangeaddress at %s, want .../%s", step, info.HDKeyPath, want)
		}
	}

	// With change: the change output takes index 0, the second attempt
	// reuses it; getrawchangeaddress reserves index 1.
	var txid string
	h.call(&txid, "sendtoaddress", stranger.WPKH.Address, 0.1, "", "", false, nil, nil, nil, nil, 2)
	tx := h.rawTx(txid)
	if len(tx.TxOut) != 2 {
		t.Fatalf("payment with change has %d outputs", len(tx.TxOut))
	}
	changeIndex("after a payment with change", "1/1")

	// Without change: the whole balance to a P2WPKH address (so the
	// change type is bech32 again), fee taken from the amount. Both
	// attempts reserve an index (2 and 3) and keep it.
	var bal json.Number
	h.call(&bal, "getbalance", "*", 0)
	h.call(&txid, "sendtoaddress", stranger.WPKH.Address, bal, "", "", true, nil, nil, nil, nil, 2)
	if n := len(h.rawTx(txid).TxOut); n != 1 {
		t.Fatalf("payment of the whole balance has %d outputs", n)
	}
	changeIndex("after a changeless payment", "1/4")
}
