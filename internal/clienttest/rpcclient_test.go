package clienttest

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/rpcclient"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// rawParams encodes each value as one JSON-RPC parameter.
func rawParams(t *testing.T, vals ...any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(vals))
	for i, v := range vals {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestBtcdRPCClient drives the daemon with btcd's rpcclient in HTTP POST
// mode, both one call at a time and as a JSON-RPC batch, then through its
// typed calls, as Go programs built on it (LND, btcwallet) make them.
func TestBtcdRPCClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts descwalletd")
	}
	t.Parallel()
	d := startDaemon(t, "rpcuser", "rpcpass")
	cfg := &rpcclient.ConnConfig{
		Host:         "127.0.0.1:" + strconv.Itoa(d.Port),
		User:         "rpcuser",
		Pass:         "rpcpass",
		HTTPPostMode: true,
		DisableTLS:   true,
	}
	c, err := rpcclient.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()

	res, err := c.RawRequest("echo", rawParams(t, "a", 1, []any{true, nil}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `["a",1,[true,null]]` {
		t.Fatalf("echo: %s", res)
	}
	res, err = c.RawRequest("echojson", rawParams(t, map[string]any{"x": 1.5}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `[{"x":1.5}]` {
		t.Fatalf("echojson: %s", res)
	}
	res, err = c.RawRequest("uptime", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(string(res)); err != nil || n < 0 {
		t.Fatalf("uptime: %s", res)
	}

	// A JSON-RPC error arrives as btcjson.RPCError with Core's code.
	_, err = c.RawRequest("nosuchmethod", nil)
	var rerr *btcjson.RPCError
	if !errors.As(err, &rerr) || rerr.Code != -32601 || rerr.Message != "Method not found" {
		t.Fatalf("unknown method: %#v", err)
	}
	_, err = c.RawRequest("echo", rawParams(t, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	if !errors.As(err, &rerr) || rerr.Code != -1 {
		t.Fatalf("too many parameters: %#v", err)
	}

	// Wrong credentials fail the call.
	bad := *cfg
	bad.Pass = "wrong"
	bc, err := rpcclient.New(&bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Shutdown()
	if _, err := bc.RawRequest("echo", nil); err == nil {
		t.Fatal("wrong password accepted")
	}

	// Batch mode: the requests go out together as one JSON array and each
	// future gets its own reply.
	batch, err := rpcclient.NewBatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Shutdown()
	f1 := batch.RawRequestAsync("echo", rawParams(t, "one"))
	f2 := batch.RawRequestAsync("nosuchmethod", nil)
	f3 := batch.RawRequestAsync("echojson", rawParams(t, []int{3}))
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
	if r, err := f1.Receive(); err != nil || string(r) != `["one"]` {
		t.Fatalf("batch echo: %s %v", r, err)
	}
	if _, err := f2.Receive(); !errors.As(err, &rerr) || rerr.Code != -32601 {
		t.Fatalf("batch unknown method: %#v", err)
	}
	if r, err := f3.Receive(); err != nil || string(r) != `[[3]]` {
		t.Fatalf("batch echojson: %s %v", r, err)
	}
}

// TestBtcdRPCClientTyped drives descwalletd following btcd through
// rpcclient's typed calls (btcd v0.26.2), whose replies are decoded into
// btcjson's structures. rpcclient picks the request forms of
// sendrawtransaction and testmempoolaccept from the bitcoind release it
// reads in getnetworkinfo's subversion ("/Satoshi:<release>/").
func TestBtcdRPCClientTyped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	btcd, d := followingDaemon(t)
	conn := func(path string) *rpcclient.Client {
		c, err := rpcclient.New(&rpcclient.ConnConfig{Host: "127.0.0.1:" + strconv.Itoa(d.Port) + path,
			User: d.User, Pass: d.Pass, HTTPPostMode: true, DisableTLS: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Shutdown)
		return c
	}
	c := conn("")
	v, err := c.BackendVersion()
	if err != nil || v.String() != rpcclient.BitcoindPost25.String() {
		t.Fatalf("BackendVersion: %v %v, want %v", v, err, rpcclient.BitcoindPost25)
	}
	if bci, err := c.GetBlockChainInfo(); err != nil || bci.Chain != "regtest" {
		t.Fatalf("GetBlockChainInfo: %+v %v", bci, err)
	}
	if _, err := c.CreateWallet("typed"); err != nil {
		t.Fatalf("CreateWallet: %v", err)
	}
	w := conn("/wallet/typed")
	addr, err := w.GetNewAddress("")
	if err != nil {
		t.Fatalf("GetNewAddress: %v", err)
	}
	script, err := txscript.PayToAddrScript(addr)
	if err != nil {
		t.Fatal(err)
	}
	dep := btcd.Fund(wire.NewTxOut(5_000_000, script))
	btcd.Generate(1)
	testenv.Eventually(t, 60*time.Second, func() error {
		unspent, err := w.ListUnspent()
		if err != nil || len(unspent) != 1 || unspent[0].TxID != dep || unspent[0].Amount != 0.05 ||
			unspent[0].Confirmations != 1 {
			return errorf("ListUnspent: %+v %v", unspent, err)
		}
		return nil
	})
	if b, err := w.GetBalances(); err != nil || b.Mine.Trusted != 0.05 {
		t.Fatalf("GetBalances: %+v %v", b, err)
	}
	depHash, err := chainhash.NewHashFromStr(dep)
	if err != nil {
		t.Fatal(err)
	}
	if gt, err := w.GetTransaction(depHash); err != nil || gt.Amount != 0.05 || gt.Confirmations != 1 ||
		len(gt.Details) != 1 {
		t.Fatalf("GetTransaction: %+v %v", gt, err)
	}
	if lt, err := w.ListTransactions("*"); err != nil || len(lt) != 1 || lt[0].Category != "receive" {
		t.Fatalf("ListTransactions: %+v %v", lt, err)
	}
	if _, err := c.EstimateSmartFee(6, &btcjson.EstimateModeConservative); err != nil {
		t.Fatalf("EstimateSmartFee: %v", err)
	}
	// A payment built, signed and finalized by the wallet, checked with
	// testmempoolaccept and sent with sendrawtransaction (both in the
	// forms of a bitcoind of 25 or later: maxfeerate, not allowhighfees).
	outside := testenv.NewKey("rpcclient payee")
	feeRate := btcutil.Amount(2000).ToBTC() // BTC/kvB
	funded, err := w.WalletCreateFundedPsbt(nil, []btcjson.PsbtOutput{{outside.WPKH.Address: 0.01}}, nil,
		&btcjson.WalletCreateFundedPsbtOpts{FeeRate: &feeRate}, nil)
	if err != nil {
		t.Fatalf("WalletCreateFundedPsbt: %v", err)
	}
	processed, err := w.WalletProcessPsbt(funded.Psbt, nil, rpcclient.SigHashAll, nil)
	if err != nil || !processed.Complete {
		t.Fatalf("WalletProcessPsbt: %+v %v", processed, err)
	}
	raw, err := c.RawRequest("finalizepsbt", rawParams(t, processed.Psbt))
	if err != nil {
		t.Fatalf("finalizepsbt: %v", err)
	}
	var final struct {
		Hex string `json:"hex"`
	}
	decodeInto(t, "finalizepsbt", raw, &final)
	tx := testenv.DecodeTx(t, final.Hex)
	accepted, err := c.TestMempoolAccept([]*wire.MsgTx{tx}, 0)
	if err != nil || len(accepted) != 1 || !accepted[0].Allowed {
		t.Fatalf("TestMempoolAccept: %+v %v", accepted, err)
	}
	sent, err := c.SendRawTransaction(tx, false)
	if err != nil || *sent != tx.TxHash() {
		t.Fatalf("SendRawTransaction: %v %v", sent, err)
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		entry, err := c.GetMempoolEntry(sent.String())
		if err != nil || entry.VSize <= 0 {
			return errorf("GetMempoolEntry: %+v %v", entry, err)
		}
		return nil
	})
	if rt, err := c.GetRawTransactionVerbose(sent); err != nil || rt.Txid != sent.String() {
		t.Fatalf("GetRawTransactionVerbose: %+v %v", rt, err)
	}
	if out, err := c.GetTxOut(sent, 0, true); err != nil || out == nil || out.Confirmations != 0 {
		t.Fatalf("GetTxOut: %+v %v", out, err)
	}
	mined := btcd.Generate(1)[0]
	minedHash, err := chainhash.NewHashFromStr(mined)
	if err != nil {
		t.Fatal(err)
	}
	if blk, err := c.GetBlockVerbose(minedHash); err != nil || len(blk.Tx) != 2 {
		t.Fatalf("GetBlockVerbose: %+v %v", blk, err)
	}
	if hdr, err := c.GetBlockHeaderVerbose(minedHash); err != nil || hdr.Hash != mined {
		t.Fatalf("GetBlockHeaderVerbose: %+v %v", hdr, err)
	}
}
