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
// basic authentication, parameters as a JSON array (BitcoindClientService
// is declared @JsonRpcParams(ParamsType.ARRAY) since Sparrow 1.7.2, for
// btc-rpc-proxy; an absent optional argument travels as null), every call,
// node calls included, to the wallet's URL /wallet/cormorant
// (BitcoindTransport builds one URL, used before the wallet exists too).
type sparrowClient struct {
	t    *testing.T
	d    *testenv.Daemon
	path string
	id   int
}

func (c *sparrowClient) post(method string, args ...any) rawReply {
	c.t.Helper()
	if args == nil {
		args = []any{}
	}
	c.id++
	r := postRaw(c.t, c.d, c.path, map[string]any{"jsonrpc": "2.0", "id": c.id,
		"method": method, "params": args})
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
// calls, their parameter order and the reply fields read come from
// sparrowwallet/sparrow at commit e7ae9ccae55145025d4ce055064f9086f8275a1c,
// src/main/java/com/sparrowwallet/sparrow/net/cormorant/:
// bitcoind/BitcoindClientService.java (the calls, array parameters),
// BitcoindTransport.java (one URL, /wallet/cormorant, for every call),
// the reply records there (NetworkInfo, BlockchainInfo, WalletInfo,
// ListSinceBlock, ListTransaction, ListDescriptorResult, MempoolEntry,
// FeeInfo, MempoolInfo, VerboseBlockHeader), ImportRangedDescriptor.java
// and BitcoindClient.java (initialize: version and chain checks, the
// wallet loaded with loadwallet and created when that answers -18, the
// first listsinceblock with a null block; addDescriptors: listdescriptors
// then importdescriptors, the receive descriptor active, the change one
// internal; updateStore: entries mapped through parent_descs, the spent
// outputs of a send read through gettransaction's hex; the mempool sync and
// poll task), and electrum/ElectrumServerService.java (headers, block
// stats, transactions verbose and not, fee estimates, broadcasts with
// maxfeerate 0).
func TestSparrowFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	btcd, d := followingDaemon(t)
	// One client: every call goes to the wallet's URL, before the wallet
	// exists as after.
	w := &sparrowClient{t: t, d: d, path: walletPath("cormorant")}

	// Start-up checks (initialize).
	var ni struct {
		Version       int     `json:"version"`
		NetworkActive *bool   `json:"networkactive"`
		RelayFee      float64 `json:"relayfee"`
	}
	w.call(&ni, "getnetworkinfo")
	if ni.Version < 240000 || ni.NetworkActive == nil || ni.RelayFee <= 0 {
		t.Fatalf("getnetworkinfo: %+v", ni)
	}
	var bci struct {
		Chain         string          `json:"chain"`
		Blocks        int64           `json:"blocks"`
		Headers       int64           `json:"headers"`
		BestBlockHash string          `json:"bestblockhash"`
		Pruned        *bool           `json:"pruned"`
		PruneHeight   json.RawMessage `json:"pruneheight"`
		IBD           *bool           `json:"initialblockdownload"`
		Progress      *float64        `json:"verificationprogress"`
	}
	w.call(&bci, "getblockchaininfo")
	if bci.Chain != "regtest" || bci.Pruned == nil || *bci.Pruned || bci.PruneHeight != nil ||
		bci.BestBlockHash == "" || bci.IBD == nil || bci.Headers != bci.Blocks ||
		bci.Progress == nil {
		t.Fatalf("getblockchaininfo: %+v", bci)
	}
	// Its tip: the best block's verbose header.
	var tip struct {
		Hash       string `json:"hash"`
		Height     int64  `json:"height"`
		Version    int32  `json:"version"`
		MerkleRoot string `json:"merkleroot"`
		Time       int64  `json:"time"`
		Nonce      int64  `json:"nonce"`
		Bits       string `json:"bits"`
		Prev       string `json:"previousblockhash"`
	}
	w.call(&tip, "getblockheader", bci.BestBlockHash)
	if tip.Hash != bci.BestBlockHash || tip.Height != bci.Blocks || tip.Time == 0 || tip.Bits == "" ||
		tip.MerkleRoot == "" || (tip.Prev == "") != (tip.Height == 0) {
		t.Fatalf("getblockheader of the tip: %+v, chain %+v", tip, bci)
	}

	// The wallet: not loaded, the load answers -18 (RPC_WALLET_NOT_FOUND),
	// so Sparrow creates it: watch-only, blank, no passphrase, avoid_reuse,
	// descriptors, loaded on start-up, no external signer.
	var loaded []string
	w.call(&loaded, "listwallets")
	if loaded == nil || slices.Contains(loaded, "cormorant") {
		t.Fatalf("listwallets: %q", loaded)
	}
	if code, msg := w.post("loadwallet", "cormorant", true).rpcError(t, "loadwallet"); code != -18 {
		t.Fatalf("loadwallet of a missing wallet: %d %q, want -18", code, msg)
	}
	var created struct {
		Name    string  `json:"name"`
		Warning *string `json:"warning"`
	}
	w.call(&created, "createwallet", "cormorant", true, true, "", true, true, true, false)
	if created.Name != "cormorant" {
		t.Fatalf("createwallet: %+v", created)
	}
	// A second start finds it loaded: -35 from loadwallet, which Sparrow
	// only tolerates because it checks listwallets first.
	w.call(&loaded, "listwallets")
	if !slices.Contains(loaded, "cormorant") {
		t.Fatalf("listwallets: %q", loaded)
	}
	if code, _ := w.post("loadwallet", "cormorant", true).rpcError(t, "loadwallet"); code != -35 {
		t.Fatalf("loadwallet of a loaded wallet: code %d, want -35", code)
	}
	// The first sync: listsinceblock with a null block hash.
	var since sinceBlock
	w.call(&since, "listsinceblock", nil, 1, true, true, true)
	if len(since.Transactions) != 0 || since.LastBlock != bci.BestBlockHash {
		t.Fatalf("listsinceblock of the new wallet: %+v", since)
	}
	var wi struct {
		WalletName string `json:"walletname"`
		Scanning   *bool  `json:"scanning"`
	}
	w.call(&wi, "getwalletinfo")
	if wi.WalletName != "cormorant" || wi.Scanning == nil || *wi.Scanning {
		t.Fatalf("getwalletinfo: %+v", wi)
	}

	// A BIP84 account as Sparrow describes it: receive and change
	// descriptors with key origin. (getdescriptorinfo, deriveaddresses
	// and signrawtransactionwithkey are the test's own calls: Sparrow
	// computes checksums, addresses and signatures itself.)
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
		w.call(&info, "getdescriptorinfo", raw)
		descs[branch] = info.Descriptor
	}
	// addDescriptors: what the wallet holds (nothing yet), then the
	// import: receive active, change inactive and internal, each with the
	// end of its range as one number and "now" for a new wallet.
	var listed struct {
		Descriptors []struct {
			Desc      string `json:"desc"`
			Timestamp int64  `json:"timestamp"`
			Active    bool   `json:"active"`
			Internal  bool   `json:"internal"`
			Range     []int  `json:"range"`
		} `json:"descriptors"`
	}
	w.call(&listed, "listdescriptors", false)
	if len(listed.Descriptors) != 0 {
		t.Fatalf("listdescriptors of the blank wallet: %+v", listed)
	}
	var imported []struct {
		Success  bool     `json:"success"`
		Warnings []string `json:"warnings"`
	}
	w.call(&imported, "importdescriptors", []map[string]any{
		{"desc": descs[0], "active": true, "timestamp": "now", "internal": false, "range": 1000},
		{"desc": descs[1], "active": false, "timestamp": "now", "internal": true, "range": 1000},
	})
	if len(imported) != 2 || !imported[0].Success || !imported[1].Success {
		t.Fatalf("importdescriptors: %+v", imported)
	}
	// "internal" shows for active descriptors only, as in Core: the
	// change descriptor, imported inactive, has none.
	w.call(&listed, "listdescriptors", false)
	if len(listed.Descriptors) != 2 {
		t.Fatalf("listdescriptors: %+v", listed)
	}
	for _, ld := range listed.Descriptors {
		i := slices.Index(descs, ld.Desc)
		if i < 0 || !slices.Equal(ld.Range, []int{0, 1000}) || ld.Timestamp <= 0 ||
			ld.Active != (i == 0) || ld.Internal {
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
		w.call(&addrs, "deriveaddresses", descs[branch], []uint32{index, index})
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

	// The sync after the import: listsinceblock with a null block,
	// entries mapped to the account by parent_descs.
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", nil, 1, true, true, true); err != nil {
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

	// The Electrum server's own calls: the genesis hash, the new block's
	// raw header and stats, the deposit as raw hex and verbose.
	var genesis string
	w.call(&genesis, "getblockhash", 0)
	if genesis != chaincfg.RegressionNetParams.GenesisHash.String() {
		t.Fatalf("getblockhash 0: %s", genesis)
	}
	var height int64
	var header string
	w.call(&header, "getblockheader", block, false)
	if len(header) != 160 {
		t.Fatalf("getblockheader %s false: %q", block, header)
	}
	var stats struct {
		BlockHash string `json:"blockhash"`
		Height    int64  `json:"height"`
		Txs       int    `json:"txs"`
		Time      int64  `json:"time"`
	}
	w.call(&height, "getblockcount")
	w.call(&stats, "getblockstats", height)
	if stats.BlockHash != block || stats.Height != height || stats.Txs != 2 || stats.Time == 0 {
		t.Fatalf("getblockstats %d: %+v", height, stats)
	}
	var verbose struct {
		TxID          string `json:"txid"`
		Hex           string `json:"hex"`
		BlockHash     string `json:"blockhash"`
		Confirmations int64  `json:"confirmations"`
	}
	w.call(&verbose, "getrawtransaction", dep, true)
	if verbose.TxID != dep || verbose.Hex == "" || verbose.BlockHash != block || verbose.Confirmations != 1 {
		t.Fatalf("getrawtransaction verbose: %+v", verbose)
	}
	// Without txindex Sparrow falls back on the wallet's copy, decoded.
	var wtx struct {
		Hex           string `json:"hex"`
		Confirmations int64  `json:"confirmations"`
		BlockHash     string `json:"blockhash"`
		Time          int64  `json:"time"`
		BlockTime     int64  `json:"blocktime"`
		Decoded       *struct {
			TxID string `json:"txid"`
		} `json:"decoded"`
	}
	w.call(&wtx, "gettransaction", dep, true, true)
	if wtx.Hex != verbose.Hex || wtx.Decoded == nil || wtx.Decoded.TxID != dep || wtx.Confirmations != 1 ||
		wtx.BlockHash != block || wtx.Time == 0 || wtx.BlockTime == 0 {
		t.Fatalf("gettransaction verbose: %+v", wtx)
	}

	// Fee estimates for Sparrow's targets: a rate, or Core's errors when
	// the node has no data (regtest); the relay fee floor.
	for _, target := range []int{1, 2, 3, 4, 5, 10, 25, 50} {
		var est struct {
			FeeRate *float64 `json:"feerate"`
			Errors  []string `json:"errors"`
			Blocks  int      `json:"blocks"`
		}
		w.call(&est, "estimatesmartfee", target)
		if (est.FeeRate == nil || *est.FeeRate <= 0) && len(est.Errors) == 0 {
			t.Fatalf("estimatesmartfee %d: neither a rate nor errors: %+v", target, est)
		}
	}
	var mpi struct {
		MinRelayTxFee *float64 `json:"minrelaytxfee"`
	}
	w.call(&mpi, "getmempoolinfo")
	if mpi.MinRelayTxFee == nil || *mpi.MinRelayTxFee <= 0 {
		t.Fatalf("getmempoolinfo: %+v", mpi)
	}
	var uptime int64
	w.call(&uptime, "uptime")

	// Broadcast (blockchain.transaction.broadcast, maxfeerate 0) of a
	// transaction signed outside the watch-only wallet: the deposit to
	// receive 0 pays an outside address and change 1/0, signaling
	// replacement.
	depTx := testenv.DecodeTx(t, verbose.Hex)
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
	w.call(&signed, "signrawtransactionwithkey", testenv.TxHex(t, spend), []string{recvWIF},
		[]map[string]any{{"txid": dep, "vout": vout, "scriptPubKey": fmt.Sprintf("%x", recvScript),
			"amount": 0.02}})
	if !signed.Complete {
		t.Fatalf("signrawtransactionwithkey: %+v", signed)
	}
	var sent string
	w.call(&sent, "sendrawtransaction", signed.Hex, 0)
	if sent != spend.TxHash().String() {
		t.Fatalf("sendrawtransaction: %s, want %s", sent, spend.TxHash())
	}

	// Mempool polling: the txids, the fee-rate histogram from the verbose
	// mempool, then the entry of the wallet's transaction (no unconfirmed
	// parent: vsize equals ancestorsize).
	testenv.Eventually(t, 60*time.Second, func() error {
		var txids []string
		if err := w.try(&txids, "getrawmempool"); err != nil {
			return err
		}
		var pool map[string]json.RawMessage
		if err := w.try(&pool, "getrawmempool", true); err != nil {
			return err
		}
		if _, ok := pool[sent]; !ok || !slices.Contains(txids, sent) {
			return errorf("getrawmempool: %s missing", sent)
		}
		return nil
	})
	var entry struct {
		VSize        int64 `json:"vsize"`
		AncestorSize int64 `json:"ancestorsize"`
		Fees         struct {
			Base     float64 `json:"base"`
			Ancestor float64 `json:"ancestor"`
		} `json:"fees"`
		Replaceable bool `json:"bip125-replaceable"`
	}
	w.call(&entry, "getmempoolentry", sent)
	if entry.VSize <= 0 || entry.AncestorSize != entry.VSize || entry.Fees.Base != 0.00001 ||
		entry.Fees.Ancestor != 0.00001 || !entry.Replaceable {
		t.Fatalf("getmempoolentry: %+v", entry)
	}

	// The wallet sees its unconfirmed spend since the synced block, and
	// Sparrow reads the spent outputs of a send from gettransaction's hex.
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", syncedTo, 1, true, true, true); err != nil {
			return err
		}
		for _, tx := range since.Transactions {
			if tx.TxID == sent && tx.Category == "send" && tx.Confirmations == 0 {
				return nil
			}
		}
		return errorf("listsinceblock: spend %s not seen: %+v", sent, since.Transactions)
	})
	var sendTx map[string]any
	w.call(&sendTx, "gettransaction", sent, true, false)
	if sendTx["hex"] != signed.Hex {
		t.Fatalf("gettransaction %s: hex %v", sent, sendTx["hex"])
	}
	if _, ok := sendTx["decoded"]; ok {
		t.Fatalf("gettransaction with verbose false has decoded")
	}

	// A fee bump made elsewhere: the same coin pays a higher fee, signed
	// here and sent through btcd; the replacement is mined.
	bump := wire.NewMsgTx(2)
	bin := wire.NewTxIn(outPoint(t, dep, vout), nil, nil)
	bin.Sequence = 0xfffffffd
	bump.AddTxIn(bin)
	bump.AddTxOut(wire.NewTxOut(1_000_000, outside.WPKH.Script))
	bump.AddTxOut(wire.NewTxOut(990_000, changeScript))
	w.call(&signed, "signrawtransactionwithkey", testenv.TxHex(t, bump), []string{recvWIF},
		[]map[string]any{{"txid": dep, "vout": vout, "scriptPubKey": fmt.Sprintf("%x", recvScript),
			"amount": 0.02}})
	bumped, err := btcd.SendRawTransaction(signed.Hex)
	if err != nil {
		t.Fatalf("btcd sendrawtransaction of the bump: %v", err)
	}
	mined := btcd.Generate(1)[0]

	// Sparrow's next sync sees the replacement confirmed in the new block
	// and the replaced transaction with -1 confirmations, each naming the
	// other in walletconflicts, which is how Sparrow shows a fee bump made
	// elsewhere; the change of each version is mapped to the change
	// descriptor.
	testenv.Eventually(t, 60*time.Second, func() error {
		since = sinceBlock{}
		if err := w.try(&since, "listsinceblock", syncedTo, 1, true, true, true); err != nil {
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
	// The poll task reads the new tip's header, and getwalletinfo for a
	// rescan in progress (none).
	w.call(&tip, "getblockheader", since.LastBlock)
	w.call(&wi, "getwalletinfo")
	if tip.Hash != mined || wi.Scanning == nil || *wi.Scanning {
		t.Fatalf("poll: header %+v, getwalletinfo %+v", tip, wi)
	}
}

// mustHex returns a transaction's hex as btcd reports it.
func mustHex(t *testing.T, b *testenv.Btcd, txid string) []byte {
	t.Helper()
	var h string
	decodeInto(t, "getrawtransaction", b.MustCall("getrawtransaction", txid, 0), &h)
	return []byte(h)
}
