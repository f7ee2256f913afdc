package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// TestNewKey checks that a test key's parts agree with each other and that
// the derivation is deterministic and seed-dependent.
func TestNewKey(t *testing.T) {
	t.Parallel()
	k := NewKey("alice")
	if again := NewKey("alice"); again.WIF != k.WIF {
		t.Fatalf("NewKey not deterministic: %s vs %s", k.WIF, again.WIF)
	}
	if other := NewKey("bob"); other.WIF == k.WIF {
		t.Fatal("different seeds gave the same key")
	}

	wif, err := btcutil.DecodeWIF(k.WIF)
	if err != nil {
		t.Fatal(err)
	}
	if !wif.IsForNet(&chaincfg.RegressionNetParams) || !wif.CompressPubKey {
		t.Fatalf("WIF %s: not a compressed regtest key", k.WIF)
	}
	if !bytes.Equal(wif.SerializePubKey(), k.PubKey) {
		t.Fatal("WIF public key differs from PubKey")
	}

	outs := map[string]Output{"pkh": k.PKH, "wpkh": k.WPKH,
		"sh(wpkh)": k.SHWPKH, "tr": k.TR}
	for name, o := range outs {
		a, err := address.DecodeAddress(o.Address,
			&chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatalf("%s %s: %v", name, o.Address, err)
		}
		if !a.IsForNet(&chaincfg.RegressionNetParams) {
			t.Errorf("%s %s: not a regtest address", name, o.Address)
		}
	}
	if k.WPKH.Script[0] != 0x00 || len(k.WPKH.Script) != 22 {
		t.Errorf("wpkh script %x", k.WPKH.Script)
	}
	if k.TR.Script[0] != 0x51 || len(k.TR.Script) != 34 {
		t.Errorf("tr script %x", k.TR.Script)
	}
	if !bytes.Equal(k.WPKH.Script[2:], k.PKH.Script[3:23]) {
		t.Error("wpkh and pkh commit to different key hashes")
	}
}

// TestBtcdMine starts btcd, mines 101 blocks and checks the height and that
// the coinbases pay the mining key's script.
func TestBtcdMine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	b := StartBtcd(t, nil)
	if h := b.GetBlockCount(); h != 0 {
		t.Fatalf("fresh regtest chain at height %d", h)
	}
	hashes := b.Generate(101)
	if h := b.GetBlockCount(); h != 101 {
		t.Fatalf("height %d after mining 101 blocks", h)
	}
	if got := b.BestBlockHash(); got != hashes[100] {
		t.Fatalf("tip %s, last mined %s", got, hashes[100])
	}
	if got := b.BlockHash(1); got != hashes[0] {
		t.Fatalf("block 1 %s, first mined %s", got, hashes[0])
	}

	miner := MinerKey()
	cb := b.Coinbase(1)
	if !bytes.Equal(cb.Script, miner.WPKH.Script) {
		t.Fatalf("coinbase pays %x, want the miner's %x", cb.Script,
			miner.WPKH.Script)
	}
	if cb.Value != 50*1e8 {
		t.Fatalf("coinbase value %d", cb.Value)
	}

	// The verbose block lists the coinbase first, and the transaction
	// index serves it back with the same output script.
	var blk struct {
		Height int64    `json:"height"`
		Tx     []string `json:"tx"`
	}
	if err := b.CallResult(&blk, "getblock", hashes[0], 1); err != nil {
		t.Fatal(err)
	}
	if blk.Height != 1 || len(blk.Tx) == 0 || blk.Tx[0] != cb.TxID {
		t.Fatalf("verbose block 1: %+v, coinbase %s", blk, cb.TxID)
	}
	var tx struct {
		Vout []struct {
			ScriptPubKey struct {
				Hex string `json:"hex"`
			} `json:"scriptPubKey"`
		} `json:"vout"`
	}
	if err := b.CallResult(&tx, "getrawtransaction", cb.TxID, 1); err != nil {
		t.Fatal(err)
	}
	if len(tx.Vout) == 0 || tx.Vout[0].ScriptPubKey.Hex != miner.WPKH.ScriptHex {
		t.Fatalf("getrawtransaction %s: %+v", cb.TxID, tx)
	}

	// Filters are built by default.
	var filter string
	if err := b.CallResult(&filter, "getcfilter", hashes[0], 0); err != nil {
		t.Fatal(err)
	}
	if filter == "" {
		t.Fatal("getcfilter: empty filter for a block with a coinbase")
	}
}

// TestBtcdErrors checks that btcd's JSON-RPC errors reach the caller as
// *RPCError with their code, and that a bad transaction is rejected.
func TestBtcdErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	b := StartBtcd(t, &BtcdOptions{MiningAddr: NewKey("taproot").TR.Address})
	b.Generate(1)
	if cb := b.Coinbase(1); !bytes.Equal(cb.Script, NewKey("taproot").TR.Script) {
		t.Fatalf("coinbase pays %x, want the taproot key", cb.Script)
	}

	_, err := b.Call("nosuchmethod")
	var rerr *RPCError
	if !errors.As(err, &rerr) || rerr.Code != -32601 {
		t.Fatalf("unknown method: %v", err)
	}
	if _, err := b.SendRawTransaction("00"); !errors.As(err, &rerr) {
		t.Fatalf("bad transaction: %v", err)
	}

	bad := &Client{URL: b.URL, User: b.User, Pass: "wrong"}
	if _, err := bad.Call("getblockcount"); err == nil {
		t.Fatal("wrong password accepted")
	}
	var raw json.RawMessage
	if err := b.CallResult(&raw, "getblockcount"); err != nil {
		t.Fatal(err)
	}
}

// TestBtcdReorg connects two nodes, splits them, lets each mine its own
// branch and reconnects them: the longer branch wins on both.
func TestBtcdReorg(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts two btcd nodes")
	}
	t.Parallel()
	a := StartBtcd(t, nil)
	b := StartBtcd(t, &BtcdOptions{MiningAddr: NewKey("other miner").WPKH.Address})

	a.Connect(b)
	a.Generate(5)
	WaitSynced(t, a, b)

	a.Disconnect(b)
	a.Generate(1)
	bTip := b.Generate(3)[2]
	if a.BestBlockHash() == b.BestBlockHash() {
		t.Fatal("split nodes share a tip")
	}
	a.Connect(b)
	WaitSynced(t, a, b)
	if got := a.BestBlockHash(); got != bTip {
		t.Fatalf("after reconnect a's tip is %s, want b's %s", got, bTip)
	}
	if h := a.GetBlockCount(); h != 8 {
		t.Fatalf("height %d after reorg, want 8", h)
	}
}

// TestBtcdRestart checks that a restarted btcd comes back at genesis (btcd
// discards its regtest chain when it starts) and mines again.
func TestBtcdRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	b := StartBtcd(t, nil)
	b.Generate(3)
	b.Restart()
	if h := b.GetBlockCount(); h != 0 {
		t.Fatalf("btcd kept its chain across a restart: height %d", h)
	}
	b.Generate(1)
}

// TestBtcdSpend spends a mature coinbase paid to a test key (signed here with
// btcd's own signer) and checks that btcd accepts, relays and mines it:
// the harness carries a transaction from build to confirmation.
func TestBtcdSpend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	miner := MinerKey()
	b := StartBtcd(t, nil)
	coin := b.MatureCoinbases(1)[0]
	if h := b.GetBlockCount(); h != 1+CoinbaseMaturity {
		t.Fatalf("height %d", h)
	}

	dest := NewKey("spend destination")
	tx := UnsignedSpend(t, []Coin{coin}, wire.NewTxOut(coin.Value-10000, dest.TR.Script))
	fetcher := txscript.NewCannedPrevOutputFetcher(coin.Script, coin.Value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher), 0,
		coin.Value, coin.Script, txscript.SigHashAll, miner.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = wit

	txHex := TxHex(t, tx)
	if DecodeTx(t, txHex).TxHash() != tx.TxHash() {
		t.Fatal("hex round trip changed the transaction")
	}
	txid, err := b.SendRawTransaction(txHex)
	if err != nil {
		t.Fatalf("sendrawtransaction: %v", err)
	}
	if txid != tx.TxHash().String() {
		t.Fatalf("txid %s, want %s", txid, tx.TxHash())
	}
	if !b.InMempool(txid) || b.Confirmations(txid) != 0 {
		t.Fatal("spend not waiting in the mempool")
	}
	b.Generate(1)
	if b.InMempool(txid) || b.Confirmations(txid) != 1 {
		t.Fatal("spend not mined")
	}

	// Spending the same coin again is a double spend.
	if _, err := b.SendRawTransaction(txHex); err == nil {
		t.Fatal("btcd accepted a transaction already mined")
	}
}

// TestBtcdFund pays several scripts through Fund and checks the outputs
// once mined.
func TestBtcdFund(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	b := StartBtcd(t, nil)
	alice, bob := NewKey("fund alice"), NewKey("fund bob")
	txid1 := b.Fund(wire.NewTxOut(1e8, alice.WPKH.Script), wire.NewTxOut(2e8, bob.TR.Script))
	txid2 := b.Fund(wire.NewTxOut(3e8, alice.PKH.Script))
	if txid1 == txid2 || !b.InMempool(txid1) || !b.InMempool(txid2) {
		t.Fatal("funding transactions not both in the mempool")
	}
	b.Generate(1)
	for txid, want := range map[string][]string{
		txid1: {alice.WPKH.ScriptHex, bob.TR.ScriptHex, MinerKey().WPKH.ScriptHex},
		txid2: {alice.PKH.ScriptHex, MinerKey().WPKH.ScriptHex},
	} {
		if c := b.Confirmations(txid); c != 1 {
			t.Fatalf("%s: %d confirmations", txid, c)
		}
		var tx struct {
			Vout []struct {
				ScriptPubKey struct {
					Hex string `json:"hex"`
				} `json:"scriptPubKey"`
			} `json:"vout"`
		}
		if err := b.CallResult(&tx, "getrawtransaction", txid, 1); err != nil {
			t.Fatal(err)
		}
		if len(tx.Vout) != len(want) {
			t.Fatalf("%s: %d outputs, want %d", txid, len(tx.Vout), len(want))
		}
		for i, w := range want {
			if tx.Vout[i].ScriptPubKey.Hex != w {
				t.Errorf("%s output %d pays %s, want %s", txid, i, tx.Vout[i].ScriptPubKey.Hex, w)
			}
		}
	}
}
