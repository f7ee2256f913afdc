package methods

import (
	"encoding/json"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testenv"
)

// This file holds the setup the chain tests share: a daemon following a
// btcd, wallets on it, and a spendHarness over wallet "w".

// btcdArgs are the daemon arguments that make it follow b, then extra.
func btcdArgs(b *testenv.Btcd, extra ...string) []string {
	return append([]string{"-chainbackend=btcd", "-chainrpcconnect=" + b.RPCAddr,
		"-chainrpcuser=" + b.User, "-chainrpcpassword=" + b.Pass}, extra...)
}

// startOnBtcd starts a daemon following b, with the extra arguments.
func startOnBtcd(t *testing.T, b *testenv.Btcd, extra ...string) *testenv.Daemon {
	t.Helper()
	return testenv.StartDaemon(t, &testenv.DaemonOptions{Args: btcdArgs(b, extra...)})
}

// walletClient is the client of the daemon's wallet name.
func walletClient(d *testenv.Daemon, name string) *testenv.Client {
	return &testenv.Client{URL: d.URL + "wallet/" + name, User: d.User, Pass: d.Pass}
}

// createWallet calls createwallet with args (the name first) and returns
// the new wallet's client.
func createWallet(t *testing.T, d *testenv.Daemon, args ...any) *testenv.Client {
	t.Helper()
	var res json.RawMessage
	if err := d.CallResult(&res, "createwallet", args...); err != nil {
		t.Fatalf("createwallet %v: %v", args, err)
	}
	return walletClient(d, args[0].(string))
}

// nodeServerOnBtcd starts btcd and serves the method table in process
// with a chain client of that btcd as the backend (no wallets).
func nodeServerOnBtcd(t *testing.T) (*testenv.Btcd, *rpc.Server) {
	t.Helper()
	b := testenv.StartBtcd(t, nil)
	c, err := chain.New(chain.Config{Kind: chain.KindBtcd, Net: &chaincfg.RegressionNetParams,
		Host: b.RPCAddr, User: b.User, Password: b.Pass})
	if err != nil {
		t.Fatal(err)
	}
	return b, nodeServer(t, c)
}

// newSpendHarness starts btcd and a daemon following it (with the extra
// arguments) and returns the harness over its new wallet "w".
func newSpendHarness(t *testing.T, extra ...string) *spendHarness {
	t.Helper()
	b := testenv.StartBtcd(t, nil)
	d := startOnBtcd(t, b, extra...)
	return &spendHarness{t: t, b: b, d: d, w: createWallet(t, d, "w"), blocks: map[chainhash.Hash]*wire.MsgBlock{}}
}

// newScript returns the script of a new address of the wallet
// (getnewaddress with params: label, address type).
func (h *spendHarness) newScript(params ...any) []byte {
	h.t.Helper()
	var a string
	h.call(&a, "getnewaddress", params...)
	spk, err := address.Decode(a, &chaincfg.RegressionNetParams)
	if err != nil {
		h.t.Fatal(err)
	}
	return spk
}
