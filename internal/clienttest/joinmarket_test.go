package clienttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// jmClient sends requests as JoinMarket's jsonrpc.py JsonRpc.queryHTTP
// does: an HTTP POST with basic authentication and a body of method,
// params and id only (no "jsonrpc" member); it reads the "error" member of
// every reply, success included, before the result.
type jmClient struct {
	t    *testing.T
	d    *testenv.Daemon
	path string
	id   int
}

func (c *jmClient) post(method string, params ...any) rawReply {
	c.t.Helper()
	if params == nil {
		params = []any{}
	}
	c.id++
	r := postRaw(c.t, c.d, c.path, map[string]any{"method": method, "params": params, "id": c.id})
	// queryHTTP treats any other status as a broken connection and
	// shuts JoinMarket down.
	if r.Status != 200 && r.Status != 404 && r.Status != 500 {
		c.t.Errorf("%s: HTTP %d, JoinMarket accepts only 200, 404 and 500", method, r.Status)
	}
	if _, ok := r.Members["jsonrpc"]; ok {
		c.t.Errorf("%s: reply to a request without jsonrpc has a jsonrpc member", method)
	}
	if string(r.Members["id"]) != fmt.Sprint(c.id) {
		c.t.Errorf("%s: reply id %s, want %d", method, r.Members["id"], c.id)
	}
	return r
}

// try is call for polling: an error reply is returned, not fatal.
func (c *jmClient) try(out any, method string, params ...any) error {
	c.t.Helper()
	r := c.post(method, params...)
	if e := r.Members["error"]; string(e) != "null" {
		return errorf("%s: %s", method, e)
	}
	return json.Unmarshal(r.Members["result"], out)
}

func (c *jmClient) call(out any, method string, params ...any) json.RawMessage {
	c.t.Helper()
	res := c.post(method, params...).result(c.t, method)
	if out != nil {
		decodeInto(c.t, method, res, out)
	}
	return res
}

// jmTx is the part of a listtransactions entry JoinMarket reads.
type jmTx struct {
	Address       string   `json:"address"`
	Category      string   `json:"category"`
	Amount        *float64 `json:"amount"`
	Label         *string  `json:"label"`
	Vout          *int     `json:"vout"`
	Confirmations *int64   `json:"confirmations"`
	BlockHash     string   `json:"blockhash"`
	TxID          string   `json:"txid"`
}

// TestJoinMarketFlow replays JoinMarket's use of a Bitcoin Core backend,
// call by call, against descwalletd following a real btcd, after
// JoinMarket-Org/joinmarket-clientserver jmclient/jmclient/
// blockchaininterface.py (BitcoinCoreInterface: wallet setup, address
// imports labelled with the wallet name, listtransactions paging,
// query_utxo_set through gettxout, pushtx through sendrawtransaction, the
// merkle proof calls), jsonrpc.py (the request form) and
// wallet_service.py (the monitor loop), as in its descriptor-wallet
// releases (v0.9.10 on), where imports are importdescriptors of addr()
// descriptors. The revision of blockchaininterface.py read for this is
// commit 0274c72198c114d5b31b039c0664414fd667cd26, an older one with the
// same paging loop (pages of 1000 until a short page) and importaddress in
// place of importdescriptors.
func TestJoinMarketFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and descwalletd")
	}
	t.Parallel()
	btcd, d := followingDaemon(t)
	// JoinMarket names its watch-only Core wallet and labels its
	// addresses "joinmarket-wallet-" followed by six hex digits of a hash
	// of the wallet.
	const walletName = "jm_watchonly"
	const label = "joinmarket-wallet-3f5a1c"
	node := &jmClient{t: t, d: d}

	// Wallet setup: the chain is checked, the wallet loaded when it is
	// not listed, and created (watch-only, blank, descriptors) when the
	// load fails.
	var bci struct {
		Chain  string `json:"chain"`
		Blocks *int64 `json:"blocks"`
		Pruned *bool  `json:"pruned"`
	}
	node.call(&bci, "getblockchaininfo")
	if bci.Chain != "regtest" || bci.Blocks == nil || bci.Pruned == nil {
		t.Fatalf("getblockchaininfo: %+v", bci)
	}
	var loaded []string
	node.call(&loaded, "listwallets")
	if slices.Contains(loaded, walletName) {
		t.Fatalf("listwallets before creation: %q", loaded)
	}
	if code, msg := node.post("loadwallet", walletName).rpcError(t, "loadwallet"); code != -18 {
		t.Fatalf("loadwallet of a missing wallet: %d %q, want code -18", code, msg)
	}
	var created struct {
		Name string `json:"name"`
	}
	node.call(&created, "createwallet", walletName, true, true, "", false, true)
	if created.Name != walletName {
		t.Fatalf("createwallet: %+v", created)
	}
	node.call(&loaded, "listwallets")
	if !slices.Contains(loaded, walletName) {
		t.Fatalf("listwallets after creation: %q", loaded)
	}
	w := &jmClient{t: t, d: d, path: walletPath(walletName)}
	// A restart finds the wallet on disk but not loaded: loadwallet, then
	// getwalletinfo says whether imports are descriptors.
	var unloaded struct{}
	node.call(&unloaded, "unloadwallet", walletName)
	node.call(&loaded, "listwallets")
	if slices.Contains(loaded, walletName) {
		t.Fatalf("listwallets after unloadwallet: %q", loaded)
	}
	node.call(&created, "loadwallet", walletName)
	var winfo struct {
		Descriptors *bool `json:"descriptors"`
		Scanning    *bool `json:"scanning"`
	}
	w.call(&winfo, "getwalletinfo")
	if created.Name != walletName || winfo.Descriptors == nil || !*winfo.Descriptors ||
		winfo.Scanning == nil || *winfo.Scanning {
		t.Fatalf("loadwallet %+v, getwalletinfo %+v", created, winfo)
	}
	// import_addresses_if_needed: the label is not there yet.
	var labels []string
	w.call(&labels, "listlabels")
	if slices.Contains(labels, label) {
		t.Fatalf("listlabels before the import: %q", labels)
	}

	// Address import: addr() descriptors with their checksum, the label,
	// a timestamp of "now" for fresh addresses.
	keys := []*testenv.Key{testenv.NewKey("jm 0/0"), testenv.NewKey("jm 0/1"), testenv.NewKey("jm 1/0")}
	var reqs []map[string]any
	for _, k := range keys {
		var info struct {
			Checksum string `json:"checksum"`
		}
		node.call(&info, "getdescriptorinfo", "addr("+k.WPKH.Address+")")
		reqs = append(reqs, map[string]any{"desc": "addr(" + k.WPKH.Address + ")#" + info.Checksum,
			"timestamp": "now", "label": label})
	}
	var imported []struct {
		Success bool `json:"success"`
	}
	w.call(&imported, "importdescriptors", reqs)
	if len(imported) != len(keys) {
		t.Fatalf("importdescriptors: %d results", len(imported))
	}
	for i, r := range imported {
		if !r.Success {
			t.Fatalf("importdescriptors request %d failed", i)
		}
	}
	// is_address_imported and is_address_labeled read the labels.
	for _, k := range keys {
		var ai struct {
			IsWatchOnly *bool    `json:"iswatchonly"`
			IsMine      bool     `json:"ismine"`
			Labels      []string `json:"labels"`
		}
		w.call(&ai, "getaddressinfo", k.WPKH.Address)
		if !ai.IsMine || !slices.Equal(ai.Labels, []string{label}) {
			t.Fatalf("getaddressinfo %s: %+v", k.WPKH.Address, ai)
		}
	}

	w.call(&labels, "listlabels")
	var byLabel map[string]struct {
		Purpose string `json:"purpose"`
	}
	w.call(&byLabel, "getaddressesbylabel", label)
	if !slices.Contains(labels, label) || len(byLabel) != len(keys) {
		t.Fatalf("listlabels %q, getaddressesbylabel %+v", labels, byLabel)
	}
	for _, k := range keys {
		if byLabel[k.WPKH.Address].Purpose != "receive" {
			t.Fatalf("getaddressesbylabel: %s missing: %+v", k.WPKH.Address, byLabel)
		}
	}

	// Three deposits, each in its own transaction, then a block.
	var funded []string
	for i, k := range keys {
		funded = append(funded, btcd.Fund(wire.NewTxOut(int64(1_000_000*(i+1)), k.WPKH.Script)))
	}
	block := btcd.Generate(1)[0]

	// The monitor loop pages listtransactions("*", n, skip, true) until a
	// page comes back shorter than n. JoinMarket's page is 100 entries; a
	// page of 2 here makes three deposits take two pages.
	const page = 2
	list := func() []jmTx {
		var all []jmTx
		for skip := 0; ; skip += page {
			var got []jmTx
			w.call(&got, "listtransactions", "*", page, skip, true)
			all = append(all, got...)
			if len(got) < page {
				return all
			}
		}
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		txs := list()
		confirmed := 0
		for _, tx := range txs {
			if tx.Confirmations != nil && *tx.Confirmations >= 1 {
				confirmed++
			}
		}
		if len(txs) != len(keys) || confirmed != len(keys) {
			return errorf("listtransactions: %d entries, %d confirmed", len(txs), confirmed)
		}
		return nil
	})
	txs := list()
	for i, k := range keys {
		idx := slices.IndexFunc(txs, func(x jmTx) bool { return x.TxID == funded[i] })
		if idx < 0 {
			t.Fatalf("deposit %s missing from listtransactions", funded[i])
		}
		tx := txs[idx]
		if tx.Address != k.WPKH.Address || tx.Category != "receive" || tx.Amount == nil ||
			*tx.Amount != float64(i+1)/100 || tx.Label == nil || *tx.Label != label ||
			tx.Vout == nil || tx.BlockHash != block {
			t.Fatalf("deposit %d: %+v", i, tx)
		}
	}
	// The page after the last is empty.
	var empty []jmTx
	w.call(&empty, "listtransactions", "*", page, len(keys), true)
	if len(empty) != 0 {
		t.Fatalf("listtransactions past the end: %+v", empty)
	}

	// sync_addresses_fast: the used addresses are those listaddressgroupings
	// shows with the wallet's label third; the coins are listunspent's
	// (JoinMarket's default listunspent_args, none) with that label, their
	// heights from confirmations.
	var groups [][][]any
	w.call(&groups, "listaddressgroupings")
	used := map[string]bool{}
	for _, g := range groups {
		for _, item := range g {
			if len(item) >= 3 && item[2] == label {
				used[item[0].(string)] = true
			}
		}
	}
	var unspent []struct {
		TxID          string  `json:"txid"`
		Address       string  `json:"address"`
		Label         *string `json:"label"`
		Amount        float64 `json:"amount"`
		Confirmations int64   `json:"confirmations"`
	}
	w.call(&unspent, "listunspent")
	mine := 0
	for _, u := range unspent {
		if u.Label != nil && *u.Label == label && u.Confirmations == 1 {
			mine++
		}
	}
	if len(used) != len(keys) || mine != len(keys) {
		t.Fatalf("listaddressgroupings %v (used %v), listunspent %+v", groups, used, unspent)
	}
	// The fee estimate (targets 1 then 2 when 1 has none), the mempool
	// floor and the RBF policy, the median time of the tip.
	for _, target := range []int{1, 2} {
		var est struct {
			FeeRate *float64 `json:"feerate"`
			Errors  []string `json:"errors"`
			Blocks  *int     `json:"blocks"`
		}
		node.call(&est, "estimatesmartfee", target)
		if est.Blocks == nil || (est.FeeRate == nil) == (len(est.Errors) == 0) {
			t.Fatalf("estimatesmartfee %d: %+v", target, est)
		}
	}
	var mpi map[string]any
	node.call(&mpi, "getmempoolinfo")
	if _, ok := mpi["mempoolminfee"].(float64); !ok {
		t.Fatalf("getmempoolinfo: %v", mpi)
	}
	var chainInfo struct {
		MedianTime int64 `json:"mediantime"`
	}
	node.call(&chainInfo, "getblockchaininfo")
	if chainInfo.MedianTime == 0 {
		t.Fatalf("getblockchaininfo: no mediantime")
	}

	// query_utxo_set: gettxout(txid, n, include_mempool) for each coin.
	type txOut struct {
		Value         float64 `json:"value"`
		Confirmations int64   `json:"confirmations"`
		ScriptPubKey  struct {
			Hex     string `json:"hex"`
			Address string `json:"address"`
		} `json:"scriptPubKey"`
	}
	coins := make([]*wire.OutPoint, len(keys))
	for i, k := range keys {
		raw := btcd.MustCall("getrawtransaction", funded[i], 0)
		var hexTx string
		decodeInto(t, "getrawtransaction", raw, &hexTx)
		vout := findVout(t, testenv.DecodeTx(t, hexTx), k.WPKH.Script)
		coins[i] = outPoint(t, funded[i], vout)
		var out *txOut
		node.call(&out, "gettxout", funded[i], vout, false)
		if out == nil || out.Value != float64(i+1)/100 || out.Confirmations != 1 ||
			out.ScriptPubKey.Hex != k.WPKH.ScriptHex || out.ScriptPubKey.Address != k.WPKH.Address {
			t.Fatalf("gettxout %s:%d: %+v", funded[i], vout, out)
		}
	}

	// pushtx: a transaction signed by JoinMarket itself spends the first
	// deposit to the third address and to an outside one.
	outside := testenv.NewKey("jm outside")
	spend := wire.NewMsgTx(2)
	spend.AddTxIn(wire.NewTxIn(coins[0], nil, nil))
	spend.AddTxOut(wire.NewTxOut(600_000, outside.WPKH.Script))
	spend.AddTxOut(wire.NewTxOut(390_000, keys[2].WPKH.Script))
	signWPKH(t, keys[0], spend, []int64{1_000_000})
	var accepted []struct {
		Allowed bool `json:"allowed"`
	}
	node.call(&accepted, "testmempoolaccept", []string{testenv.TxHex(t, spend)})
	if len(accepted) != 1 || !accepted[0].Allowed {
		t.Fatalf("testmempoolaccept: %+v", accepted)
	}
	var sent string
	node.call(&sent, "sendrawtransaction", testenv.TxHex(t, spend))
	if sent != spend.TxHash().String() {
		t.Fatalf("sendrawtransaction: %s, want %s", sent, spend.TxHash())
	}
	// The spent coin is gone from the mempool view, the new one is there.
	if res := node.call(nil, "gettxout", funded[0], coins[0].Index, true); string(res) != "null" {
		t.Fatalf("gettxout of the spent coin with the mempool: %s", res)
	}
	var change *txOut
	node.call(&change, "gettxout", sent, 1, true)
	if change == nil || change.Confirmations != 0 || change.Value != 0.0039 {
		t.Fatalf("gettxout of the unconfirmed change: %+v", change)
	}

	// The tx watcher: gettransaction until confirmed.
	type wtx struct {
		Confirmations int64  `json:"confirmations"`
		Hex           string `json:"hex"`
		BlockHash     string `json:"blockhash"`
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		var got wtx
		if err := w.try(&got, "gettransaction", sent); err != nil {
			return err
		}
		if got.Hex != testenv.TxHex(t, spend) {
			return errorf("gettransaction hex %q", got.Hex)
		}
		return nil
	})
	mined := btcd.Generate(1)[0]
	testenv.Eventually(t, 60*time.Second, func() error {
		var got wtx
		if err := w.try(&got, "gettransaction", sent); err != nil {
			return err
		}
		if got.Confirmations != 1 || got.BlockHash != mined {
			return errorf("gettransaction: %+v", got)
		}
		return nil
	})
	// The spend appears in the next listtransactions pass: a send to the
	// outside address, and a send and a receive for the wallet's own
	// output, which has a label and so is no change (Core's
	// CachedTxIsChange through the address book).
	txs = list()
	var cats []string
	for _, tx := range txs {
		if tx.TxID == sent {
			cats = append(cats, tx.Category+":"+tx.Address)
		}
	}
	slices.Sort(cats)
	want := []string{"receive:" + keys[2].WPKH.Address, "send:" + keys[2].WPKH.Address,
		"send:" + outside.WPKH.Address}
	slices.Sort(want)
	if !slices.Equal(cats, want) {
		t.Fatalf("listtransactions entries of the spend: %q, want %q", cats, want)
	}

	// The merkle proof of the mined spend verifies to its txid.
	var proof string
	node.call(&proof, "gettxoutproof", []string{sent})
	var proven []string
	node.call(&proven, "verifytxoutproof", proof)
	if !slices.Equal(proven, []string{sent}) {
		t.Fatalf("verifytxoutproof: %q, want [%s]", proven, sent)
	}
	var proof2 string
	node.call(&proof2, "gettxoutproof", []string{sent}, mined)
	if proof2 != proof {
		t.Fatalf("gettxoutproof with the block hash differs")
	}
	// verify_tx_merkle_branch: JoinMarket keeps the proof without its
	// header and puts back the raw header of the block at that height.
	var height int64
	w.call(&height, "getblockcount")
	var atHeight, rawHeader string
	node.call(&atHeight, "getblockhash", height)
	node.call(&rawHeader, "getblockheader", atHeight, false)
	node.call(&proven, "verifytxoutproof", rawHeader+proof[160:])
	if atHeight != mined || !slices.Equal(proven, []string{sent}) {
		t.Fatalf("verifytxoutproof of the rebuilt proof: %q (block %s, mined %s)", proven, atHeight, mined)
	}
	// The rescan of a recovery sync, then its status.
	var rescan struct {
		StartHeight int64 `json:"start_height"`
		StopHeight  int64 `json:"stop_height"`
	}
	w.call(&rescan, "rescanblockchain", height-1)
	w.call(&winfo, "getwalletinfo")
	if rescan.StartHeight != height-1 || rescan.StopHeight != height || *winfo.Scanning {
		t.Fatalf("rescanblockchain %+v, getwalletinfo %+v", rescan, winfo)
	}
	// An address of another wallet is not imported (no label).
	var ai struct {
		Labels []string `json:"labels"`
	}
	w.call(&ai, "getaddressinfo", outside.WPKH.Address)
	if ai.Labels == nil || len(ai.Labels) != 0 {
		t.Fatalf("getaddressinfo of an outside address: %+v", ai)
	}
}
