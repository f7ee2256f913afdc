package methods

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestSharedMempoolLeft runs two daemons with -walletdbshared on one btcd
// and one database: when the leader's mempool read shows that a wallet
// transaction left the mempool (a fee bump replaced it), the node that
// does not lead (and never reads the mempool) counts it out too, its
// getbalances, listunspent and listtransactions then equal the leader's.
func TestSharedMempoolLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd, PostgreSQL and two daemons")
	}
	t.Parallel()
	dsn := pgtest.DSN(t)
	b := testenv.StartBtcd(t, nil)
	args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + b.RPCAddr, "-chainrpcuser=" + b.User,
		"-chainrpcpassword=" + b.Pass, "-walletdb=" + dsn, "-walletdbshared", "-chainpoll=200"}
	na := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args})
	testenv.Eventually(t, 20*time.Second, func() error {
		if leaderEpoch(t, dsn) == 0 {
			return errors.New("no leader yet")
		}
		return nil
	})
	nb := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args})
	wc := func(d *testenv.Daemon) *testenv.Client {
		return &testenv.Client{URL: d.URL + "wallet/w", User: d.Client.User, Pass: d.Client.Pass}
	}
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	const tprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	var ignore json.RawMessage
	call(na.Client, &ignore, "createwallet", "w", false, true)
	var res []struct {
		Success bool `json:"success"`
	}
	call(wc(na), &res, "importdescriptors", []map[string]any{
		{"desc": descriptor.AddChecksum("wpkh(" + tprv + "/31/*)"), "timestamp": "now", "active": true, "internal": false},
		{"desc": descriptor.AddChecksum("wpkh(" + tprv + "/32/*)"), "timestamp": "now", "active": true, "internal": true},
	})
	if len(res) != 2 || !res[0].Success || !res[1].Success {
		t.Fatalf("importdescriptors: %+v", res)
	}
	call(nb.Client, &ignore, "loadwallet", "w")
	var addr string
	call(wc(na), &addr, "getnewaddress")
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	b.Fund(wire.NewTxOut(1_000_000, spk))
	b.Generate(1)
	type balances struct {
		Mine struct {
			Trusted          float64 `json:"trusted"`
			UntrustedPending float64 `json:"untrusted_pending"`
		} `json:"mine"`
	}
	testenv.Eventually(t, 20*time.Second, func() error {
		var bal balances
		if err := wc(nb).CallResult(&bal, "getbalances"); err != nil {
			return err
		}
		if bal.Mine.Trusted != 0.01 {
			return fmt.Errorf("non-leader's balances before the payment: %+v", bal)
		}
		return nil
	})

	// A payment to outside, then its fee bump, both made on the leader.
	var dest []string
	call(na.Client, &dest, "deriveaddresses", descriptor.AddChecksum("wpkh("+tprv+"/33/*)"), []int{0, 0})
	var orig string
	call(wc(na), &orig, "sendtoaddress", dest[0], 0.004)
	var bump struct {
		TxID string `json:"txid"`
	}
	call(wc(na), &bump, "bumpfee", orig)

	// Once the leader's mempool read saw the original leave, the other
	// node answers as the leader does.
	same := func(method string, params ...any) error {
		ra, err := wc(na).Call(method, params...)
		if err != nil {
			return fmt.Errorf("leader %s: %v", method, err)
		}
		rb, err := wc(nb).Call(method, params...)
		if err != nil {
			return fmt.Errorf("non-leader %s: %v", method, err)
		}
		ra, rb = withoutTimeReceived(t, ra), withoutTimeReceived(t, rb)
		if !bytes.Equal(ra, rb) {
			return fmt.Errorf("%s differs:\nleader     %s\nnon-leader %s", method, ra, rb)
		}
		return nil
	}
	testenv.Eventually(t, 10*time.Second, func() error {
		var bal balances
		if err := wc(na).CallResult(&bal, "getbalances"); err != nil {
			return err
		}
		// The leader's own view: the replacement's change is trusted
		// (the original no longer spends the coin).
		if bal.Mine.Trusted <= 0 || bal.Mine.Trusted >= 0.006 {
			return fmt.Errorf("leader's balances after the bump: %+v", bal)
		}
		for _, m := range []struct {
			name   string
			params []any
		}{{"getbalances", nil}, {"listunspent", nil}, {"listtransactions", nil}} {
			if err := same(m.name, m.params...); err != nil {
				return err
			}
		}
		return nil
	})
}
