package clienttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	btcaddr "github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcutil/v2/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// specterClient sends requests as Specter Desktop's BitcoinRPC does
// (src/cryptoadvance/specter/rpc.py): every call, single or not, is a
// JSON-RPC 2.0 batch posted with basic authentication, ids counting from
// 0, a call without arguments sending "params": []; a wallet's calls go to
// "<path>/wallet/<name>" with the name as it is, slashes included.
type specterClient struct {
	t    *testing.T
	d    *testenv.Daemon
	path string
}

// wallet is BitcoinRPC.wallet: the same client on a wallet's path.
func (c *specterClient) wallet(name string) *specterClient {
	return &specterClient{t: c.t, d: c.d, path: c.path + "/wallet/" + name}
}

// multi posts calls as one batch (BitcoinRPC.multi) and returns the
// replies member by member, after checking the batch reply is Core's:
// HTTP 200, one JSON-RPC 2.0 reply per call in order, each with either a
// result or an error.
func (c *specterClient) multi(calls ...[]any) []map[string]json.RawMessage {
	c.t.Helper()
	payload := make([]map[string]any, len(calls))
	for i, call := range calls {
		args := call[1:]
		if len(args) == 1 && args[0] == nil {
			args = []any{}
		}
		payload[i] = map[string]any{"method": call[0], "params": args, "jsonrpc": "2.0", "id": i}
	}
	body, resp, data := postJSON(c.t, c.d, c.path, "application/json", payload)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("batch %s: HTTP %d %s", body, resp.StatusCode, data)
	}
	var replies []map[string]json.RawMessage
	if err := json.Unmarshal(data, &replies); err != nil || len(replies) != len(calls) {
		c.t.Fatalf("batch %s: reply %s (%v)", body, data, err)
	}
	for i, r := range replies {
		_, hasErr := r["error"]
		_, hasRes := r["result"]
		if string(r["jsonrpc"]) != `"2.0"` || string(r["id"]) != fmt.Sprint(i) || hasErr == hasRes {
			c.t.Errorf("batch reply %d to %s: members %v", i, calls[i][0], r)
		}
	}
	return replies
}

// try is BitcoinRPC's attribute call (__getattr__): a batch of one call,
// an error when its reply holds one.
func (c *specterClient) try(out any, method string, args ...any) error {
	c.t.Helper()
	r := c.multi(append([]any{method}, args...))[0]
	if e, ok := r["error"]; ok && string(e) != "null" {
		return fmt.Errorf("%s: %s", method, e)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r["result"], out)
}

func (c *specterClient) call(out any, method string, args ...any) {
	c.t.Helper()
	if err := c.try(out, method, args...); err != nil {
		c.t.Fatal(err)
	}
}

// specterTx is the part of listtransactions' entries Specter's TxFetcher
// reads.
type specterTx struct {
	TxID            string   `json:"txid"`
	Address         string   `json:"address"`
	Category        string   `json:"category"`
	Amount          float64  `json:"amount"`
	Confirmations   int64    `json:"confirmations"`
	BlockHash       string   `json:"blockhash"`
	BlockHeight     int64    `json:"blockheight"`
	Time            int64    `json:"time"`
	WalletConflicts []string `json:"walletconflicts"`
}

// TestSpecterFlow replays Specter Desktop's calls, as its code makes them,
// against descwalletd following a real btcd. Taken from
// cryptoadvance/specter-desktop at commit
// 2a4088374444c2dfba44a2cf0dc7e628716c1917 (v2.1.11 and 8 commits):
// rpc.py (BitcoinRPC.multi: every call a JSON-RPC 2.0 batch; the
// attribute call reading r.get("error") and then r["result"]), node.py
// (check_info: the status batch, whose every result it reads, then
// getblockfilter of the genesis block), devices/bitcoin_core.py (the hot
// wallet: createwallet under "<rpc_path>_hotstorage/<alias>" with keys,
// blank, descriptors; getwalletinfo, getdeploymentinfo for taproot;
// importdescriptors of the tprv descriptors, range [0, 1000], timestamp
// now; sign_psbt through walletprocesspsbt(psbt, True, "ALL")),
// wallet/wallet.py (Wallet.create: the watch-only wallet
// createwallet(name, True, True, "", False, True) and the active
// receive/change import with watchonly: true; check_unused with
// getreceivedbyaddress; check_utxo with listlockunspent and listunspent;
// getbalances; createpsbt through walletcreatefundedpsbt with
// changeAddress, subtractFeeFromOutputs, add_inputs, feeRate and
// bip32derivs, the locktime from getchaintips; save_pending_psbt locking
// the inputs; psbt_from_txid through gettransaction, converttopsbt and
// utxoupdatepsbt with the wallet's descriptors, the start of a fee bump),
// wallet/tx_fetcher.py (listtransactions paged by 1000 with
// include_watchonly, then gettransaction and getaddressinfo batches),
// specter.py (combine, finalize, broadcast) and
// server_endpoints/wallets/wallets_api.py (testmempoolaccept before
// sendrawtransaction). Specter derives addresses and checksums itself
// (embit); the test uses deriveaddresses and descriptor.AddChecksum for
// that.
func TestSpecterFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	btcd, d := followingDaemon(t)
	btcd.Fund(wire.NewTxOut(1000, testenv.NewKey("specter warm-up").WPKH.Script))
	btcd.Generate(1)
	node := &specterClient{t: t, d: d}

	// Node checks (Node.check_info): one batch, every result read.
	replies := node.multi([]any{"getblockchaininfo", nil}, []any{"getnetworkinfo", nil},
		[]any{"getmempoolinfo", nil}, []any{"uptime", nil}, []any{"getblockhash", 0},
		[]any{"scantxoutset", "status", []any{}})
	for i, r := range replies {
		if _, ok := r["result"]; !ok {
			t.Fatalf("status batch call %d: %v", i, r)
		}
	}
	var bci struct {
		Chain  string `json:"chain"`
		Blocks int64  `json:"blocks"`
	}
	decodeInto(t, "getblockchaininfo", replies[0]["result"], &bci)
	var ni struct {
		Version    int    `json:"version"`
		Subversion string `json:"subversion"`
	}
	decodeInto(t, "getnetworkinfo", replies[1]["result"], &ni)
	var mpi struct {
		Size *int64 `json:"size"`
	}
	decodeInto(t, "getmempoolinfo", replies[2]["result"], &mpi)
	var uptime int64
	decodeInto(t, "uptime", replies[3]["result"], &uptime)
	var genesis string
	decodeInto(t, "getblockhash", replies[4]["result"], &genesis)
	if bci.Chain != "regtest" || bci.Blocks < 100 || ni.Version < 210000 || ni.Subversion == "" ||
		mpi.Size == nil || uptime < 0 || genesis != chaincfg.RegressionNetParams.GenesisHash.String() ||
		string(replies[5]["result"]) != "null" {
		t.Fatalf("status batch: %s", replies)
	}
	// Specter's test of the block filter index: an error only sets
	// blockfilterindex false.
	_ = node.try(nil, "getblockfilter", genesis)
	var dir struct {
		Wallets []struct {
			Name string `json:"name"`
		} `json:"wallets"`
	}
	node.call(&dir, "listwalletdir")
	var loaded []string
	node.call(&loaded, "listwallets")

	// Keys of a BIP84 testnet account; Specter turns the mnemonic into
	// the root key itself.
	seed := make([]byte, 32)
	copy(seed, "specter desktop hot wallet seed")
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
	mpub, err := master.ECPubKey()
	if err != nil {
		t.Fatal(err)
	}
	fingerprint := fmt.Sprintf("%08x", btcaddr.Hash160(mpub.SerializeCompressed())[:4])

	// The hot wallet's key store (BitcoinCore.setup_device and
	// add_hot_wallet_keys).
	const hotName = "specter_hotstorage/hot1"
	var created struct {
		Name string `json:"name"`
	}
	node.call(&created, "createwallet", hotName, false, true, "", false, true)
	if created.Name != hotName {
		t.Fatalf("createwallet: %+v", created)
	}
	hot := node.wallet(hotName)
	var wi struct {
		Descriptors bool `json:"descriptors"`
	}
	hot.call(&wi, "getwalletinfo")
	if !wi.Descriptors {
		t.Fatalf("getwalletinfo: descriptors %v", wi.Descriptors)
	}
	hot.call(&ni, "getnetworkinfo")
	// Taproot: getdeploymentinfo; btcd does not report deployments, and
	// Specter then keeps to wpkh, as its except branch does.
	var dep struct {
		Deployments map[string]struct {
			Active bool `json:"active"`
		} `json:"deployments"`
	}
	_ = hot.try(&dep, "getdeploymentinfo")
	var hotImport []struct {
		Success bool `json:"success"`
	}
	hot.call(&hotImport, "importdescriptors", []map[string]any{
		{"desc": descriptor.AddChecksum("wpkh(" + master.String() + "/84h/1h/0h/0/*)"), "range": []int{0, 1000}, "timestamp": "now"},
		{"desc": descriptor.AddChecksum("wpkh(" + master.String() + "/84h/1h/0h/1/*)"), "range": []int{0, 1000}, "timestamp": "now"},
	})
	if len(hotImport) != 2 || !hotImport[0].Success || !hotImport[1].Success {
		t.Fatalf("hot importdescriptors: %+v", hotImport)
	}

	// The watch-only wallet (Wallet.create): receive and change branches
	// of the combined descriptor, active, with watchonly as Specter still
	// sends it.
	const walletName = "specter/mywallet"
	node.call(&created, "createwallet", walletName, true, true, "", false, true)
	w := node.wallet(walletName)
	descs := make([]string, 2)
	for branch := range descs {
		descs[branch] = descriptor.AddChecksum(fmt.Sprintf("wpkh([%s/84h/1h/0h]%s/%d/*)", fingerprint, xpub.String(), branch))
	}
	var imported []struct {
		Success bool `json:"success"`
	}
	w.call(&imported, "importdescriptors", []map[string]any{
		{"desc": descs[0], "internal": false, "timestamp": "now", "watchonly": true, "active": true},
		{"desc": descs[1], "internal": true, "timestamp": "now", "watchonly": true, "active": true},
	})
	if len(imported) != 2 || !imported[0].Success || !imported[1].Success {
		t.Fatalf("importdescriptors: %+v", imported)
	}
	addr := func(branch, index int) (string, []byte) {
		var addrs []string
		node.call(&addrs, "deriveaddresses", descs[branch], []int{index, index})
		spk, err := address.Decode(addrs[0], &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return addrs[0], spk
	}
	recv0, recv0Script := addr(0, 0)
	recv1, recv1Script := addr(0, 1)
	change0, _ := addr(1, 0)

	// Deposits to receive addresses 0 and 1, mined.
	depTxID := btcd.Fund(wire.NewTxOut(3_000_000, recv0Script), wire.NewTxOut(1_500_000, recv1Script))
	block := btcd.Generate(1)[0]

	// Refresh (Wallet.update, TxFetcher): listtransactions paged by
	// 1000 with include_watchonly, then the gettransaction and
	// getaddressinfo batches.
	var txs []specterTx
	testenv.Eventually(t, 60*time.Second, func() error {
		txs = nil
		if err := w.try(&txs, "listtransactions", "*", 1000, 0, true); err != nil {
			return err
		}
		if len(txs) != 2 || txs[0].Confirmations != 1 {
			return errorf("listtransactions: %+v", txs)
		}
		return nil
	})
	for _, tx := range txs {
		want := map[string]float64{recv0: 0.03, recv1: 0.015}[tx.Address]
		if tx.TxID != depTxID || tx.Category != "receive" || tx.Amount != want || tx.BlockHash != block ||
			tx.BlockHeight == 0 || tx.WalletConflicts == nil {
			t.Fatalf("listtransactions entry %+v", tx)
		}
	}
	var page []specterTx
	w.call(&page, "listtransactions", "*", 1000, 1000, true)
	if len(page) != 0 {
		t.Fatalf("second page: %+v", page)
	}
	for _, r := range w.multi([]any{"gettransaction", depTxID}) {
		var gt struct {
			Details []struct {
				Address  string `json:"address"`
				Category string `json:"category"`
			} `json:"details"`
			Hex         string `json:"hex"`
			BlockHeight int64  `json:"blockheight"`
		}
		decodeInto(t, "gettransaction", r["result"], &gt)
		if len(gt.Details) != 2 || gt.Details[0].Category != "receive" || gt.Hex == "" || gt.BlockHeight == 0 {
			t.Fatalf("gettransaction: %s", r["result"])
		}
	}
	for i, r := range w.multi([]any{"getaddressinfo", recv0}, []any{"getaddressinfo", recv1}) {
		var ai struct {
			IsMine bool   `json:"ismine"`
			Desc   string `json:"desc"`
		}
		decodeInto(t, "getaddressinfo", r["result"], &ai)
		if !ai.IsMine || ai.Desc == "" || !bytes.Contains([]byte(ai.Desc), []byte(fmt.Sprintf("/0/%d]", i))) {
			t.Fatalf("getaddressinfo %d: %s", i, r["result"])
		}
	}
	// Labels (wallet/addresslist.py): set_label through setlabel, and
	// AddressList.add(check_rpc) reading every label but "" back through
	// listlabels and a getaddressesbylabel batch.
	var none any
	w.call(&none, "setlabel", recv1, "coffee")
	var labels []string
	w.call(&labels, "listlabels")
	labels = slices.DeleteFunc(labels, func(l string) bool { return l == "" })
	if !slices.Equal(labels, []string{"coffee"}) {
		t.Fatalf("listlabels: %q", labels)
	}
	byLabel := w.multi([]any{"getaddressesbylabel", "coffee"})
	var labelled map[string]json.RawMessage
	decodeInto(t, "getaddressesbylabel", byLabel[0]["result"], &labelled)
	if _, ok := labelled[recv1]; !ok || len(labelled) != 1 {
		t.Fatalf("getaddressesbylabel: %s", byLabel[0]["result"])
	}
	// check_unused: receive 0 has received, so Specter moves on.
	var received float64
	w.call(&received, "getreceivedbyaddress", recv0, 0)
	if received != 0.03 {
		t.Fatalf("getreceivedbyaddress: %v", received)
	}
	w.call(&received, "getreceivedbyaddress", change0, 0)
	if received != 0 {
		t.Fatalf("getreceivedbyaddress of unused change: %v", received)
	}
	var since struct {
		Transactions []specterTx `json:"transactions"`
		LastBlock    string      `json:"lastblock"`
	}
	w.call(&since, "listsinceblock")
	if len(since.Transactions) != 2 || since.LastBlock != block {
		t.Fatalf("listsinceblock: %+v", since)
	}
	var bal struct {
		Mine struct {
			Trusted          float64 `json:"trusted"`
			UntrustedPending float64 `json:"untrusted_pending"`
			Immature         float64 `json:"immature"`
		} `json:"mine"`
	}
	w.call(&bal, "getbalances")
	if bal.Mine.Trusted != 0.045 || bal.Mine.UntrustedPending != 0 {
		t.Fatalf("getbalances: %+v", bal)
	}
	// check_utxo: locked coins, then every unspent output.
	var locked []struct {
		TxID string `json:"txid"`
		Vout int    `json:"vout"`
	}
	w.call(&locked, "listlockunspent")
	if len(locked) != 0 {
		t.Fatalf("listlockunspent: %+v", locked)
	}
	var utxos []struct {
		TxID    string  `json:"txid"`
		Vout    int     `json:"vout"`
		Address string  `json:"address"`
		Amount  float64 `json:"amount"`
	}
	w.call(&utxos, "listunspent", 0)
	if len(utxos) != 2 {
		t.Fatalf("listunspent: %+v", utxos)
	}

	specterRescan(t, node, descs, depTxID)
	specterSpend(t, btcd, node, w, hot, descs, change0)
}

// specterRescan replays Specter's import of an existing wallet
// (util/wallet_importer.py: the wallet created, its descriptors imported
// with timestamp "now", then rescan_as_needed, rescanblockchain from the
// wallet's first block with no_wait, which posts the call with a timeout
// of 1 ms and hangs up) and the progress polling (Wallet.rescan_progress
// reads getwalletinfo's scanning: false, or its progress). Core runs the
// rescan to its end whatever the client does.
func specterRescan(t *testing.T, node *specterClient, descs []string, depTxID string) {
	const name = "specter/restored"
	var created struct {
		Name string `json:"name"`
	}
	node.call(&created, "createwallet", name, true, true, "", false, true)
	w := node.wallet(name)
	var imported []struct {
		Success bool `json:"success"`
	}
	w.call(&imported, "importdescriptors", []map[string]any{
		{"desc": descs[0], "internal": false, "timestamp": "now", "watchonly": true, "active": true},
		{"desc": descs[1], "internal": true, "timestamp": "now", "watchonly": true, "active": true},
	})
	if len(imported) != 2 || !imported[0].Success || !imported[1].Success {
		t.Fatalf("importdescriptors: %+v", imported)
	}
	var txs []specterTx
	w.call(&txs, "listtransactions", "*", 1000, 0, true)
	if len(txs) != 0 {
		t.Fatalf("listtransactions before the rescan: %+v", txs)
	}
	// no_wait: the request goes out whole (requests sends it before its
	// read timeout runs), the client gives up 1 ms later and closes its
	// connection without reading the reply.
	body := `[{"method":"rescanblockchain","params":[0],"jsonrpc":"2.0","id":0}]`
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(node.d.Port))
	if err != nil {
		t.Fatal(err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(node.d.User + ":" + node.d.Pass))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", w.path, auth, len(body), body)
	time.Sleep(time.Millisecond)
	conn.Close()
	testenv.Eventually(t, 60*time.Second, func() error {
		var wi struct {
			Scanning json.RawMessage `json:"scanning"`
		}
		if err := w.try(&wi, "getwalletinfo"); err != nil {
			return err
		}
		if string(wi.Scanning) != "false" {
			var p struct {
				Duration *int64   `json:"duration"`
				Progress *float64 `json:"progress"`
			}
			if err := json.Unmarshal(wi.Scanning, &p); err != nil || p.Duration == nil || p.Progress == nil {
				t.Fatalf("getwalletinfo scanning %s", wi.Scanning)
			}
			return errorf("scanning: %s", wi.Scanning)
		}
		txs = nil
		if err := w.try(&txs, "listtransactions", "*", 1000, 0, true); err != nil {
			return err
		}
		if len(txs) != 2 {
			return errorf("listtransactions after the rescan: %+v", txs)
		}
		return nil
	})
	for _, tx := range txs {
		if tx.TxID != depTxID || tx.Category != "receive" || tx.Confirmations < 1 {
			t.Fatalf("rescanned entry %+v", tx)
		}
	}
}

// specterSpend replays Specter's spend (Wallet.createpsbt, the hot
// wallet's sign_psbt, Specter.combine, finalize, testmempoolaccept,
// broadcast) and the start of its fee bump (psbt_from_txid).
func specterSpend(t *testing.T, btcd *testenv.Btcd, node, w, hot *specterClient, descs []string, change0 string) {
	outside := testenv.NewKey("specter payee")
	var tips []struct {
		Height int64 `json:"height"`
	}
	node.call(&tips, "getchaintips")
	locktime := tips[0].Height
	for _, tip := range tips {
		locktime = min(locktime, tip.Height)
	}
	// Wallet.createpsbt's options: includeWatching and replaceable (rbf)
	// first, then the change address, the outputs paying the fee,
	// add_inputs (Core 21 and later) and the rate in BTC/kvB.
	options := map[string]any{"includeWatching": true, "replaceable": true, "changeAddress": change0,
		"subtractFeeFromOutputs": []int{}, "add_inputs": true, "feeRate": 0.00002}
	var funded struct {
		PSBT      string  `json:"psbt"`
		Fee       float64 `json:"fee"`
		ChangePos int     `json:"changepos"`
	}
	w.call(&funded, "walletcreatefundedpsbt", []any{}, []map[string]any{{outside.WPKH.Address: 0.01}}, locktime, options, true)
	if funded.PSBT == "" || funded.Fee <= 0 || funded.ChangePos < 0 {
		t.Fatalf("walletcreatefundedpsbt: %+v", funded)
	}
	// Specter rescales feeRate by its own reading of the PSBT's rate and
	// asks again.
	options["feeRate"] = 0.000025
	w.call(&funded, "walletcreatefundedpsbt", []any{}, []map[string]any{{outside.WPKH.Address: 0.01}}, locktime, options, true)
	var decoded struct {
		Tx struct {
			LockTime int64 `json:"locktime"`
			Vin      []struct {
				TxID string `json:"txid"`
				Vout int    `json:"vout"`
			} `json:"vin"`
		} `json:"tx"`
		Inputs []struct {
			WitnessUTXO *struct {
				Amount float64 `json:"amount"`
			} `json:"witness_utxo"`
			Bip32Derivs []struct {
				Pubkey            string `json:"pubkey"`
				MasterFingerprint string `json:"master_fingerprint"`
				Path              string `json:"path"`
			} `json:"bip32_derivs"`
		} `json:"inputs"`
		Outputs []struct {
			Bip32Derivs []struct {
				Path string `json:"path"`
			} `json:"bip32_derivs"`
		} `json:"outputs"`
		Fee float64 `json:"fee"`
	}
	node.call(&decoded, "decodepsbt", funded.PSBT)
	if decoded.Tx.LockTime != locktime || len(decoded.Inputs) == 0 || decoded.Inputs[0].WitnessUTXO == nil ||
		len(decoded.Inputs[0].Bip32Derivs) != 1 || len(decoded.Outputs[funded.ChangePos].Bip32Derivs) != 1 ||
		decoded.Fee != funded.Fee {
		t.Fatalf("decodepsbt of the funded PSBT: %+v", decoded)
	}
	// save_pending_psbt locks the inputs.
	utxoDict := make([]map[string]any, len(decoded.Tx.Vin))
	for i, in := range decoded.Tx.Vin {
		utxoDict[i] = map[string]any{"txid": in.TxID, "vout": in.Vout}
	}
	var ok bool
	w.call(&ok, "lockunspent", false, utxoDict)
	var locked []struct {
		TxID string `json:"txid"`
		Vout int    `json:"vout"`
	}
	w.call(&locked, "listlockunspent")
	if !ok || len(locked) != len(utxoDict) {
		t.Fatalf("lockunspent %v, listlockunspent %+v", ok, locked)
	}

	// The hot wallet signs (sign_psbt: the PSBT must change).
	var signed struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
	}
	hot.call(&signed, "walletprocesspsbt", funded.PSBT, true, "ALL")
	if signed.PSBT == funded.PSBT || !signed.Complete {
		t.Fatalf("walletprocesspsbt: complete %v, changed %v", signed.Complete, signed.PSBT != funded.PSBT)
	}
	if _, err := base64.StdEncoding.DecodeString(signed.PSBT); err != nil {
		t.Fatal(err)
	}
	var combined string
	node.call(&combined, "combinepsbt", []string{funded.PSBT, signed.PSBT})
	var final struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	node.call(&final, "finalizepsbt", combined)
	if !final.Complete || final.Hex == "" {
		t.Fatalf("finalizepsbt: %+v", final)
	}
	var accept []struct {
		TxID    string `json:"txid"`
		Allowed bool   `json:"allowed"`
	}
	w.call(&accept, "testmempoolaccept", []string{final.Hex})
	if len(accept) != 1 || !accept[0].Allowed {
		t.Fatalf("testmempoolaccept: %+v", accept)
	}
	var txid string
	node.call(&txid, "sendrawtransaction", final.Hex)
	if txid != accept[0].TxID {
		t.Fatalf("sendrawtransaction: %s, testmempoolaccept %s", txid, accept[0].TxID)
	}
	// delete_spent_pending_psbts unlocks the inputs; Core may answer that
	// they are spent, which Specter logs and ignores.
	_ = w.try(nil, "lockunspent", true, utxoDict)

	// The wallet sees its spend; the refresh reads it back.
	var sent []specterTx
	testenv.Eventually(t, 60*time.Second, func() error {
		sent = nil
		if err := w.try(&sent, "listtransactions", "*", 1000, 0, true); err != nil {
			return err
		}
		for _, tx := range sent {
			if tx.TxID == txid && tx.Category == "send" && tx.Address == outside.WPKH.Address && tx.Amount == -0.01 {
				return nil
			}
		}
		return errorf("listtransactions: spend %s not seen: %+v", txid, sent)
	})

	// The start of a fee bump (psbt_from_txid): the transaction's hex,
	// turned back into a PSBT and filled from the wallet's descriptors.
	var gt struct {
		Hex string `json:"hex"`
	}
	w.call(&gt, "gettransaction", txid)
	var unsignedPSBT string
	w.call(&unsignedPSBT, "converttopsbt", gt.Hex, true)
	var updated string
	w.call(&updated, "utxoupdatepsbt", unsignedPSBT, descs)
	node.call(&decoded, "decodepsbt", updated)
	for i, in := range decoded.Inputs {
		if in.WitnessUTXO == nil || len(in.Bip32Derivs) != 1 || !slices.Contains([]string{"m/84h/1h/0h/0/0", "m/84h/1h/0h/0/1"}, in.Bip32Derivs[0].Path) {
			t.Fatalf("utxoupdatepsbt input %d: %+v", i, in)
		}
	}
	// The bump itself: the same inputs, no others, a higher rate.
	orig := testenv.DecodeTx(t, gt.Hex)
	inputs := make([]map[string]any, len(orig.TxIn))
	for i, in := range orig.TxIn {
		inputs[i] = map[string]any{"txid": in.PreviousOutPoint.Hash.String(), "vout": in.PreviousOutPoint.Index}
	}
	options = map[string]any{"includeWatching": true, "replaceable": true, "changeAddress": change0,
		"subtractFeeFromOutputs": []int{}, "add_inputs": false, "feeRate": 0.0001}
	var bump struct {
		PSBT string  `json:"psbt"`
		Fee  float64 `json:"fee"`
	}
	w.call(&bump, "walletcreatefundedpsbt", inputs, []map[string]any{{outside.WPKH.Address: 0.01}}, orig.LockTime, options, true)
	hot.call(&signed, "walletprocesspsbt", bump.PSBT, true, "ALL")
	node.call(&final, "finalizepsbt", signed.PSBT)
	w.call(&accept, "testmempoolaccept", []string{final.Hex})
	if len(accept) != 1 || !accept[0].Allowed || bump.Fee <= funded.Fee {
		t.Fatalf("bump: fee %v (was %v), testmempoolaccept %+v", bump.Fee, funded.Fee, accept)
	}
	var bumped string
	node.call(&bumped, "sendrawtransaction", final.Hex)
	mined := btcd.Generate(1)[0]
	blk := btcd.Block(mined)
	found := false
	for _, tx := range blk.Transactions {
		found = found || tx.TxHash().String() == bumped
	}
	if !found {
		t.Fatalf("the bump %s is not in block %s", bumped, mined)
	}
}
