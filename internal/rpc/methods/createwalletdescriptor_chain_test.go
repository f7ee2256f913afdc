package methods

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// TestCreateWalletDescriptorReceives: a blank wallet given an active
// descriptor of another wallet's HD key makes its bech32m descriptors with
// createwalletdescriptor, hands out an address of them and receives a
// payment to it on btcd; the other wallet, whose default tr() descriptor
// is the same, sees the same coin.
func TestCreateWalletDescriptorReceives(t *testing.T) {
	if testing.Short() {
		t.Skip("starts btcd and the daemon; skipped with -short")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b)
	src := createWallet(t, d, "src")
	w := createWallet(t, d, "blank", false, true)
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
	}
	var keys []struct {
		Xprv string `json:"xprv"`
	}
	call(src, &keys, "gethdkeys", map[string]any{"private": true})
	var imported []struct {
		Success bool `json:"success"`
	}
	call(w, &imported, "importdescriptors", []map[string]any{{
		"desc": descriptor.AddChecksum("pkh(" + keys[0].Xprv + "/44h/1h/0h/0/*)"), "timestamp": "now", "active": true}})
	if len(imported) != 1 || !imported[0].Success {
		t.Fatalf("import: %+v", imported)
	}
	var made struct {
		Descs []string `json:"descs"`
	}
	call(w, &made, "createwalletdescriptor", "bech32m")
	if len(made.Descs) != 2 || !strings.HasPrefix(made.Descs[0], "tr([") {
		t.Fatalf("createwalletdescriptor: %v", made.Descs)
	}
	var addr string
	call(w, &addr, "getnewaddress", "", "bech32m")
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	txid := b.Fund(wire.NewTxOut(123_456_789, spk))
	b.Generate(1)
	for _, c := range []*testenv.Client{w, src} {
		err := testenv.Poll(30*time.Second, func() error {
			var us []struct {
				TxID  string `json:"txid"`
				Desc  string `json:"desc"`
				Addr  string `json:"address"`
				Confs int64  `json:"confirmations"`
			}
			if err := c.CallResult(&us, "listunspent"); err != nil {
				return err
			}
			if len(us) != 1 || us[0].TxID != txid || us[0].Addr != addr || us[0].Confs != 1 || !strings.HasPrefix(us[0].Desc, "tr([") {
				return fmt.Errorf("listunspent %+v", us)
			}
			var bal json.Number
			if err := c.CallResult(&bal, "getbalance"); err != nil {
				return err
			}
			if bal != "1.23456789" {
				return fmt.Errorf("balance %s", bal)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.URL, err)
		}
	}
}
