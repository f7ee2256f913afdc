package clienttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	btcaddr "github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// sparrowClient sends requests as Sparrow's Cormorant bitcoind client
// does: JSON-RPC 2.0 objects (simple-json-rpc's request form) posted with
// basic authentication, the wallet's calls to /wallet/cormorant.
type sparrowClient struct {
	t    *testing.T
	d    *testenv.Daemon
	path string
	id   int
}

// named marks the parameters of a call made by name, as Sparrow's
// BitcoindClientService declares them (@JsonRpcParam): they travel as one
// JSON object.
type named map[string]any

func (c *sparrowClient) post(method string, args ...any) rawReply {
	c.t.Helper()
	var params any = args
	if len(args) == 1 {
		if n, ok := args[0].(named); ok {
			params = n
		}
	}
	if args == nil {
		params = []any{}
	}
	c.id++
	r := postRaw(c.t, c.d, c.path, map[string]any{"jsonrpc": "2.0", "id": c.id,
		"method": method, "params": params})
	// Core v28 and later answer a 2.0 request in 2.0 form: the version
	// member, and either result or error, never both.
	_, hasErr := r.Members["error"]
	_, hasRes := r.Members["result"]
	if string(r.Members["jsonrpc"]) != `"2.0"` || hasErr == hasRes {
		c.t.Errorf("%s: reply members %v", method, r.Members)
	}
	return r
}

// try returns an error reply as an error.
func (c *sparrowClient) try(out any, method string, params ...any) error {
	c.t.Helper()
	r := c.post(method, params...)
	if e, ok := r.Members["error"]; ok && string(e) != "null" {
		return fmt.Errorf("%s: %s", method, e)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Members["result"], out)
}

func (c *sparrowClient) call(out any, method string, params ...any) {
	c.t.Helper()
	if err := c.try(out, method, params...); err != nil {
		c.t.Fatal(err)
	}
}

// sparrowTx is the part of a listsinceblock entry Sparrow reads.
type sparrowTx struct {
	Address         string   `json:"address"`
	ParentDescs     []string `json:"parent_descs"`
	Category        string   `json:"category"`
	Amount          float64  `json:"amount"`
	Confirmations   int64    `json:"confirmations"`
	BlockHash       string   `json:"blockhash"`
	BlockHeight     int64    `json:"blockheight"`
	TxID            string   `json:"txid"`
	WalletConflicts []string `json:"walletconflicts"`
	Replaceable     string   `json:"bip125-replaceable"`
}

type sinceBlock struct {
	Transactions []sparrowTx `json:"transactions"`
	LastBlock    string      `json:"lastblock"`
}

// TestSparrowFlow replays Sparrow's Cormorant server over a Bitcoin Core
// wallet, call by call, against descwalletd following a real btcd. The
// calls and their named parameters come from sparrowwallet/sparrow,
// src/main/java/com/sparrowwallet/sparrow/net/cormorant/bitcoind/
// BitcoindClientService.java and ImportRangedDescriptor.java at commit
// 08cf01a5c683aa375d287f37b1463a5f78fd0d2f; their order (start-up checks
// of the node version and chain, the "cormorant" wallet created
// watch-only and blank with descriptors, ranged imports, the
// listsinceblock sync that maps entries to wallets through parent_descs,
// mempool polling, fee estimates, broadcasts, replacements) follows
// BitcoindClient.java in the same folder (read at commit
// 00f50013853ffd54c5de2f02b4f6fd7e04efc2d0: initialize, importDescriptors,
// addDescriptors, updateStore and the poll task).
func TestSparrowFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	btcd, d := followingDaemon(t)
	node := &sparrowClient{t: t, d: d}

	// Start-up checks.
	var ni struct {
		Version  int     `json:"version"`
		RelayFee float64 `json:"relayfee"`
	}
	node.call(&ni, "getnetworkinfo")
	if ni.Version < 240000 || ni.RelayFee <= 0 {
		t.Fatalf("getnetworkinfo: %+v", ni)
	}
	var bci struct {
		Chain         string `json:"chain"`
		Blocks        int64  `json:"blocks"`
		BestBlockHash string `json:"bestblockhash"`
		Pruned        *bool  `json:"pruned"`
		IBD           *bool  `json:"initialblockdownload"`
	}
	node.call(&bci, "getblockchaininfo")
	if bci.Chain != "regtest" || bci.Pruned == nil || *bci.Pruned || bci.BestBlockHash == "" ||
		bci.IBD == nil {
		t.Fatalf("getblockchaininfo: %+v", bci)
	}
	// Its tip: the best block's verbose header.
	var tip struct {
		Hash   string `json:"hash"`
		Height int64  `json:"height"`
		Time   int64  `json:"time"`
	}
	node.call(&tip, "getblockheader", named{"blockhash": bci.BestBlockHash})
	if tip.Hash != bci.BestBlockHash || tip.Height != bci.Blocks || tip.Time == 0 {
		t.Fatalf("getblockheader of the tip: %+v, chain %+v", tip, bci)
	}

	// The wallet: not in listwalletdir, so created with Sparrow's
	// arguments (watch-only, blank, no passphrase, avoid_reuse off,
	// descriptors, load on start-up).
	var dir struct {
		Wallets []struct {
			Name string `json:"name"`
		} `json:"wallets"`
	}
	node.call(&dir, "listwalletdir")
	for _, w := range dir.Wallets {
		if w.Name == "cormorant" {
			t.Fatalf("listwalletdir: cormorant already there")
		}
	}
	var created struct {
		Name string `json:"name"`
	}
	node.call(&created, "createwallet", named{"wallet_name": "cormorant", "disable_private_keys": true,
		"blank": true, "passphrase": "", "avoid_reuse": false, "descriptors": true, "load_on_startup": true,
		"external_signer": false})
	if created.Name != "cormorant" {
		t.Fatalf("createwallet: %+v", created)
	}
	var loaded []string
	node.call(&loaded, "listwallets")
	if !slices.Contains(loaded, "cormorant") {
		t.Fatalf("listwallets: %q", loaded)
	}
	w := &sparrowClient{t: t, d: d, path: walletPath("cormorant")}

	// A BIP84 account as Sparrow describes it: receive and change
	// descriptors with key origin. (getdescriptorinfo, deriveaddresses,
	// listwallets and signrawtransactionwithkey are the test's own calls,
	// made positionally: Sparrow computes checksums, addresses and
	// signatures itself.)
	seed := make([]byte, 32)
	copy(seed, "sparrow cormorant flow seed")
	master, err := hdkeychain.NewMaster(seed, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	acct := master
	for _, i := range []uint32{84, 1, 0} {
		if acct, err = acct.Derive(hdkeychain.HardenedKeyStart + i); err != nil {
			t.Fatal(err)
		}
	}
	xpub, err := acct.Neuter()
	if err != nil {
		t.Fatal(err)
	}
	fp, err := master.ECPubKey()
	if err != nil {
		t.Fatal(err)
	}
	fingerprint := fmt.Sprintf("%08x", btcaddr.Hash160(fp.SerializeCompressed())[:4])
	descs := make([]string, 2)
	for branch := range descs {
		raw := fmt.Sprintf("wpkh([%s/84h/1h/0h]%s/%d/*)", fingerprint, xpub.String(), branch)
		var info struct {
			Descriptor string `json:"descriptor"`
		}
		node.call(&info, "getdescriptorinfo", raw)
		descs[branch] = info.Descriptor
	}
	var imported []struct {
		Success bool `json:"success"`
	}
	w.call(&imported, "importdescriptors", named{"requests": []map[string]any{
		{"desc": descs[0], "active": false, "range": 1000, "timestamp": "now", "internal": false},
		{"desc": descs[1], "active": false, "range": 1000, "timestamp": "now", "internal": true},
	}})
	if len(imported) != 2 || !imported[0].Success || !imported[1].Success {
		t.Fatalf("importdescriptors: %+v", imported)
	}
	var listed struct {
		Descriptors []struct {
			Desc  string `json:"desc"`
			Range []int  `json:"range"`
		} `json:"descriptors"`
	}
	w.call(&listed, "listdescriptors", named{"private": false})
	if len(listed.Descriptors) != 2 {
		t.Fatalf("listdescriptors: %+v", listed)
	}
	for _, ld := range listed.Descriptors {
		if !slices.Contains(descs, ld.Desc) || !slices.Equal(ld.Range, []int{0, 1000}) {
			t.Fatalf("listdescriptors entry %+v", ld)
		}
	}

	// Keys and addresses of receive 0 and 999, change 0.
	child := func(branch, index uint32) (string, []byte, string) {
		k, err := acct.Derive(branch)
		if err == nil {
			k, err = k.Derive(index)
		}
		if err != nil {
			t.Fatal(err)
		}
		var addrs []string
		node.call(&addrs, "deriveaddresses", descs[branch], []uint32{index, index})
		spk, err := address.Decode(addrs[0], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		priv, err := k.ECPrivKey()
		if err != nil {
			t.Fatal(err)
		}
		wif, err := btcutil.NewWIF(priv, &chaincfg.RegressionNetParams, true)
		if err != nil {
			t.Fatal(err)
		}
		return addrs[0], spk, wif.String()
	}
	recvAddr, recvScript, recvWIF := child(0, 0)
	farAddr, farScript, _ := child(0, 999)
	changeAddr, changeScript, _ := child(1, 0)

	// Deposits to the first and the last address of the range.
	dep := btcd.Fund(wire.NewTxOut(2_000_000, recvScript), wire.NewTxOut(500_000, farScript))
	block := btcd.Generate(1)[0]

	// Sync from the wallet's birth: listsinceblock with no block, entries
	// mapped to the account by parent_descs.
	var since sinceBlock
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", named{"target_confirmations": 1,
			"include_watchonly": true, "include_removed": true, "include_change": true}); err != nil {
			return err
		}
		if len(since.Transactions) != 2 || since.LastBlock != block {
			return errorf("listsinceblock: %d entries, lastblock %s", len(since.Transactions), since.LastBlock)
		}
		return nil
	})
	for _, tx := range since.Transactions {
		want := map[string]float64{recvAddr: 0.02, farAddr: 0.005}
		if tx.TxID != dep || tx.Category != "receive" || tx.Amount != want[tx.Address] ||
			tx.Confirmations != 1 || tx.BlockHash != block ||
			!slices.Equal(tx.ParentDescs, []string{descs[0]}) {
			t.Fatalf("listsinceblock entry %+v", tx)
		}
	}
	syncedTo := since.LastBlock

	// Fee estimates for Sparrow's targets: a rate, or Core's errors when
	// the node has no data (regtest).
	for _, target := range []int{1, 2, 3, 4, 5, 10, 25, 50} {
		var est struct {
			FeeRate *float64 `json:"feerate"`
			Errors  []string `json:"errors"`
			Blocks  int      `json:"blocks"`
		}
		node.call(&est, "estimatesmartfee", named{"conf_target": target})
		if (est.FeeRate == nil || *est.FeeRate <= 0) && len(est.Errors) == 0 {
			t.Fatalf("estimatesmartfee %d: neither a rate nor errors: %+v", target, est)
		}
	}

	// Broadcast of a transaction signed outside the watch-only wallet:
	// the deposit to receive 0 pays an outside address and change 1/0,
	// signaling replacement.
	depTx := testenv.DecodeTx(t, string(mustHex(t, btcd, dep)))
	vout := findVout(t, depTx, recvScript)
	outside := testenv.NewKey("sparrow outside")
	spend := wire.NewMsgTx(2)
	in := wire.NewTxIn(outPoint(t, dep, vout), nil, nil)
	in.Sequence = 0xfffffffd
	spend.AddTxIn(in)
	spend.AddTxOut(wire.NewTxOut(1_000_000, outside.WPKH.Script))
	spend.AddTxOut(wire.NewTxOut(999_000, changeScript))
	var signed struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	node.call(&signed, "signrawtransactionwithkey", testenv.TxHex(t, spend), []string{recvWIF},
		[]map[string]any{{"txid": dep, "vout": vout, "scriptPubKey": fmt.Sprintf("%x", recvScript),
			"amount": 0.02}})
	if !signed.Complete {
		t.Fatalf("signrawtransactionwithkey: %+v", signed)
	}
	var sent string
	node.call(&sent, "sendrawtransaction", named{"hexstring": signed.Hex, "maxfeerate": 0.1})
	if sent != spend.TxHash().String() {
		t.Fatalf("sendrawtransaction: %s, want %s", sent, spend.TxHash())
	}

	// Mempool polling: the fee-rate histogram from the verbose mempool,
	// then the entry of the wallet's transaction.
	testenv.Eventually(t, 60*time.Second, func() error {
		var pool map[string]json.RawMessage
		if err := node.try(&pool, "getrawmempool", named{"verbose": true}); err != nil {
			return err
		}
		if _, ok := pool[sent]; !ok {
			return errorf("getrawmempool: %s missing", sent)
		}
		return nil
	})
	var entry struct {
		VSize int64 `json:"vsize"`
		Fees  struct {
			Base float64 `json:"base"`
		} `json:"fees"`
		Replaceable bool `json:"bip125-replaceable"`
	}
	node.call(&entry, "getmempoolentry", named{"txid": sent})
	if entry.VSize <= 0 || entry.Fees.Base != 0.00001 || !entry.Replaceable {
		t.Fatalf("getmempoolentry: %+v", entry)
	}
	var mpi struct {
		MempoolMinFee *float64 `json:"mempoolminfee"`
	}
	node.call(&mpi, "getmempoolinfo")
	if mpi.MempoolMinFee == nil {
		t.Fatal("getmempoolinfo: no mempoolminfee")
	}

	// The wallet sees its unconfirmed spend since the synced block.
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", named{"blockhash": syncedTo,
			"target_confirmations": 1, "include_watchonly": true, "include_removed": true, "include_change": true}); err != nil {
			return err
		}
		for _, tx := range since.Transactions {
			if tx.TxID == sent && tx.Category == "send" && tx.Confirmations == 0 {
				return nil
			}
		}
		return errorf("listsinceblock: spend %s not seen: %+v", sent, since.Transactions)
	})

	// A fee bump made elsewhere: the same coin pays a higher fee, signed
	// here and sent through btcd; the replacement is mined.
	bump := wire.NewMsgTx(2)
	bin := wire.NewTxIn(outPoint(t, dep, vout), nil, nil)
	bin.Sequence = 0xfffffffd
	bump.AddTxIn(bin)
	bump.AddTxOut(wire.NewTxOut(1_000_000, outside.WPKH.Script))
	bump.AddTxOut(wire.NewTxOut(990_000, changeScript))
	node.call(&signed, "signrawtransactionwithkey", testenv.TxHex(t, bump), []string{recvWIF},
		[]map[string]any{{"txid": dep, "vout": vout, "scriptPubKey": fmt.Sprintf("%x", recvScript),
			"amount": 0.02}})
	bumped, err := btcd.SendRawTransaction(signed.Hex)
	if err != nil {
		t.Fatalf("btcd sendrawtransaction of the bump: %v", err)
	}
	mined := btcd.Generate(1)[0]

	// Sparrow's next sync (include_change set, as Sparrow asks) sees the
	// replacement confirmed in the new block and the replaced
	// transaction with -1 confirmations, each naming the other in
	// walletconflicts, which is how Sparrow shows a fee bump made
	// elsewhere; the change of each version is mapped to the change
	// descriptor.
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", named{"blockhash": syncedTo,
			"target_confirmations": 1, "include_watchonly": true, "include_removed": true, "include_change": true}); err != nil {
			return err
		}
		if since.LastBlock != mined {
			return errorf("listsinceblock lastblock %s, want %s", since.LastBlock, mined)
		}
		var sawBump, sawReplaced bool
		for _, tx := range since.Transactions {
			if tx.Category != "send" || tx.Address != outside.WPKH.Address {
				continue
			}
			switch tx.TxID {
			case bumped:
				if tx.Confirmations != 1 || tx.BlockHash != mined || tx.Amount != -0.01 ||
					!slices.Equal(tx.WalletConflicts, []string{sent}) {
					return errorf("replacement %+v", tx)
				}
				sawBump = true
			case sent:
				if tx.Confirmations != -1 || !slices.Equal(tx.WalletConflicts, []string{bumped}) {
					return errorf("replaced %+v", tx)
				}
				sawReplaced = true
			}
		}
		if !sawBump || !sawReplaced {
			return errorf("listsinceblock: replacement %s (%v) or replaced %s (%v) missing", bumped, sawBump, sent, sawReplaced)
		}
		return nil
	})
	for _, tx := range since.Transactions {
		if tx.Address == changeAddr && tx.Category == "receive" && !slices.Equal(tx.ParentDescs, []string{descs[1]}) {
			t.Fatalf("change entry %+v", tx)
		}
	}
}

// mustHex returns a transaction's hex as btcd reports it.
func mustHex(t *testing.T, b *testenv.Btcd, txid string) []byte {
	t.Helper()
	var h string
	decodeInto(t, "getrawtransaction", b.MustCall("getrawtransaction", txid, 0), &h)
	return []byte(h)
}
