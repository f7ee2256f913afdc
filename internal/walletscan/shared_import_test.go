package walletscan_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestSharedLeaderImportsInARow: on the node that leads a shared
// PostgreSQL wallet, importdescriptors with timestamp 0 records its rescan
// before running it, and the leader's poll (every 10 ms here) may start
// that record in the background first. Each of twelve imports in a row
// must still succeed and find its coin; the import used to fail now and
// then with Core's busy error ("Wallet is currently rescanning"), as the
// random accounting test on two shared nodes found (seed 11, setup).
func TestSharedLeaderImportsInARow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd, PostgreSQL and a node")
	}
	t.Parallel()
	dsn := pgtest.DSN(t)
	b := testenv.StartBtcd(t, nil)
	keys := make([]*testenv.Key, 12)
	var outs []*wire.TxOut
	for i := range keys {
		keys[i] = testenv.NewKey(fmt.Sprintf("shared leader import %d", i))
		outs = append(outs, wire.NewTxOut(100_000, keys[i].WPKH.Script))
	}
	b.Fund(outs...)
	b.Generate(1)
	d := startNode(t, t.TempDir(), b, "-walletdb="+dsn, "-walletdbshared", "-chainpoll=10")
	var ignore json.RawMessage
	call(t, d.client(""), &ignore, "createwallet", "w", true, true)
	w := d.client("w")
	waitSynced(t, w, b)
	for i, k := range keys {
		raw, err := importDesc(w, descriptor.AddChecksum("wpkh("+k.PubKeyHex+")"), 0, nil)
		if err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
		var res []struct {
			Success bool `json:"success"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || len(res) != 1 || !res[0].Success {
			t.Fatalf("import %d: %s", i, raw)
		}
		var us []unspent
		call(t, w, &us, "listunspent")
		if len(us) != i+1 {
			t.Fatalf("after import %d: %d coins listed", i, len(us))
		}
	}
}
