package methods

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/chain"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testenv"
)

// Core's field order of the node calls' objects (src/rpc/blockchain.cpp
// blockheaderToJSON and blockToJSON, mempool.cpp entryToJSON and
// MempoolInfoToJSON, core_write.cpp TxToUniv, rawtransaction.cpp TxToJSON).
var (
	coreHeaderKeys = strings.Fields(`hash confirmations height version versionHex merkleroot time
mediantime nonce bits target difficulty chainwork nTx previousblockhash`)
	coreBlockKeys        = append(append([]string(nil), coreHeaderKeys...), "strippedsize", "size", "weight", "tx")
	coreMempoolEntryKeys = strings.Fields(`vsize weight time height descendantcount descendantsize
ancestorcount ancestorsize wtxid chunkweight fees depends spentby bip125-replaceable unbroadcast`)
	coreMempoolInfoKeys = strings.Fields(`loaded size bytes usage total_fee maxmempool mempoolminfee
minrelaytxfee incrementalrelayfee unbroadcastcount fullrbf permitbaremultisig maxdatacarriersize
limitclustercount limitclustersize`)
	coreTxKeys       = strings.Fields(`txid hash version size vsize weight locktime vin vout hex`)
	coreMinedTxKeys  = append(append([]string(nil), coreTxKeys...), "blockhash", "confirmations", "time", "blocktime")
	coreBlockTxKeys  = strings.Fields(`txid hash version size vsize weight locktime vin vout fee hex`)
	coreTxOutKeys    = strings.Fields(`bestblock confirmations value scriptPubKey coinbase`)
	coreScriptKeys   = strings.Fields(`asm desc hex address type`)
	coreNetInfoKeys  = strings.Fields(`version subversion protocolversion localservices localservicesnames localrelay timeoffset networkactive connections connections_in connections_out networks relayfee incrementalfee localaddresses warnings`)
	coreAcceptKeys   = strings.Fields(`txid wtxid allowed vsize fees`)
	coreChainTipKeys = strings.Fields(`height hash branchlen status`)
)

// wantKeys fails the test unless raw is an object with exactly keys, in
// order.
func wantKeys(t *testing.T, what string, raw json.RawMessage, keys []string) {
	t.Helper()
	if got := objectKeys(t, raw); strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Errorf("%s: fields\n%v\nwant\n%v", what, got, keys)
	}
}

// okCall sends a call that must succeed and decodes its result into out
// (nil: no decoding); it returns the raw result.
func okCall(t *testing.T, s *rpc.Server, method string, out any, params ...any) json.RawMessage {
	t.Helper()
	p, _ := json.Marshal(params)
	r := nodeCall(t, s, "/", method, p)
	if r.Error != nil {
		t.Fatalf("%s %s: %d %s", method, p, r.Status, r.Body)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			t.Fatalf("%s: %s: %v", method, r.Result, err)
		}
	}
	return r.Result
}

// errCall sends a call that must fail with code and message.
func errCall(t *testing.T, s *rpc.Server, code rpc.Code, msg, method string, params ...any) {
	t.Helper()
	p, _ := json.Marshal(params)
	r := nodeCall(t, s, "/", method, p)
	if r.Error == nil || r.Error.Code != code || r.Error.Message != msg {
		t.Errorf("%s %s: %s, want %d %q", method, p, r.Body, code, msg)
	}
}

// spendTo signs a one-input spend of a P2WPKH output of key.
func spendTo(t *testing.T, key *testenv.Key, prev chainhash.Hash, vout uint32, value int64, outs ...*wire.TxOut) *wire.MsgTx {
	t.Helper()
	tx := wire.NewMsgTx(2)
	in := wire.NewTxIn(wire.NewOutPoint(&prev, vout), nil, nil)
	in.Sequence = 0xfffffffd
	tx.AddTxIn(in)
	for _, o := range outs {
		tx.AddTxOut(o)
	}
	fetcher := txscript.NewCannedPrevOutputFetcher(key.WPKH.Script, value)
	wit, err := txscript.WitnessSignature(tx, txscript.NewTxSigHashes(tx, fetcher), 0, value,
		key.WPKH.Script, txscript.SigHashAll, key.Priv, true)
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = wit
	return tx
}

// TestNodeCallsBtcd answers every translated node call from a real btcd
// and checks Core's fields, their order and their values against what
// btcd itself reports: blocks and headers (hex and verbose, chainwork and
// median time), chain tips, filters, mempool entries with their parent and
// child, mempool info, UTXO lookups, raw transactions (mempool, mined,
// by block), acceptance tests and broadcasts with Core's fee and burn
// caps, merkle proofs and their verification, fee estimates, index info
// and the network info.
func TestNodeCallsBtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd")
	}
	t.Parallel()
	btcd, s := nodeServerOnBtcd(t)
	key := testenv.NewKey("nodecalls btcd")

	// A parent in the mempool.
	const paid = 50_000_000
	parentID := btcd.Fund(wire.NewTxOut(paid, key.WPKH.Script))
	parent, _ := chainhash.NewHashFromStr(parentID)
	tipHeight := btcd.GetBlockCount()
	tipHash := btcd.BestBlockHash()

	// No transaction mined yet: no fee estimate.
	if raw := okCall(t, s, "estimatesmartfee", nil, 2); string(raw) != `{"errors":["Insufficient data or no feerate found"],"blocks":0}` {
		t.Errorf("estimatesmartfee with no data: %s", raw)
	}

	// Blocks and headers.
	var s1 string
	okCall(t, s, "getbestblockhash", &s1)
	if s1 != tipHash {
		t.Errorf("getbestblockhash %s, want %s", s1, tipHash)
	}
	okCall(t, s, "getblockhash", &s1, 0)
	if s1 != chaincfg.RegressionNetParams.GenesisHash.String() {
		t.Errorf("getblockhash 0: %s", s1)
	}
	errCall(t, s, rpc.CodeInvalidParameter, "Block height out of range", "getblockhash", tipHeight+1)
	errCall(t, s, rpc.CodeInvalidParameter, "Block height out of range", "getblockhash", -1)
	errCall(t, s, rpc.CodeInvalidAddressOrKey, "Block not found", "getblockheader", strings.Repeat("0", 64))
	errCall(t, s, rpc.CodeInvalidParameter, "hash must be of length 64 (not 2, for 'zz')", "getblockheader", "zz")

	mid := btcd.BlockHash(tipHeight - 1)
	raw := okCall(t, s, "getblockheader", nil, mid)
	wantKeys(t, "getblockheader", raw, append(append([]string(nil), coreHeaderKeys...), "nextblockhash"))
	var hdr struct {
		Hash          string  `json:"hash"`
		Confirmations int64   `json:"confirmations"`
		Height        int64   `json:"height"`
		MedianTime    int64   `json:"mediantime"`
		Time          int64   `json:"time"`
		Bits          string  `json:"bits"`
		Target        string  `json:"target"`
		Difficulty    float64 `json:"difficulty"`
		ChainWork     string  `json:"chainwork"`
		NTx           int     `json:"nTx"`
		Prev          string  `json:"previousblockhash"`
		Next          string  `json:"nextblockhash"`
	}
	json.Unmarshal(raw, &hdr)
	var times []int64
	for h := tipHeight - 11; h < tipHeight; h++ {
		var bh struct {
			Time int64 `json:"time"`
		}
		btcd.CallResult(&bh, "getblockheader", btcd.BlockHash(h), true)
		times = append(times, bh.Time)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	// Every regtest block adds work 2 (bits 207fffff).
	if hdr.Hash != mid || hdr.Confirmations != 2 || hdr.Height != tipHeight-1 || hdr.Bits != "207fffff" ||
		hdr.Target != "7fffff0000000000000000000000000000000000000000000000000000000000" ||
		hdr.Difficulty != 4.656542373906925e-10 || hdr.ChainWork != fmt.Sprintf("%064x", 2*tipHeight) ||
		hdr.NTx != 1 || hdr.Prev != btcd.BlockHash(tipHeight-2) || hdr.Next != tipHash ||
		hdr.MedianTime != times[len(times)/2] {
		t.Errorf("getblockheader: %s (median time want %d)", raw, times[len(times)/2])
	}
	okCall(t, s, "getblockheader", &s1, mid, false)
	var btcdHex string
	btcd.CallResult(&btcdHex, "getblockheader", mid, false)
	if s1 != btcdHex {
		t.Errorf("getblockheader hex %s, want %s", s1, btcdHex)
	}
	raw = okCall(t, s, "getblockheader", nil, chaincfg.RegressionNetParams.GenesisHash.String())
	wantKeys(t, "getblockheader genesis", raw, append(append([]string(nil), coreHeaderKeys[:14]...), "nextblockhash"))

	// Chain tips and filters.
	raw = okCall(t, s, "getchaintips", nil)
	var tips []json.RawMessage
	json.Unmarshal(raw, &tips)
	if len(tips) != 1 || !sameJSON(tips[0], mustJSON(map[string]any{"height": tipHeight, "hash": tipHash,
		"branchlen": 0, "status": "active"})) {
		t.Errorf("getchaintips: %s", raw)
	} else {
		wantKeys(t, "getchaintips", tips[0], coreChainTipKeys)
	}
	var filt struct{ Filter, Header string }
	okCall(t, s, "getblockfilter", &filt, tipHash)
	var cf, cfh string
	btcd.CallResult(&cf, "getcfilter", tipHash, 0)
	btcd.CallResult(&cfh, "getcfilterheader", tipHash, 0)
	if filt.Filter != cf || filt.Header != cfh {
		t.Errorf("getblockfilter %+v, want %s %s", filt, cf, cfh)
	}
	errCall(t, s, rpc.CodeInvalidAddressOrKey, "Unknown filtertype", "getblockfilter", tipHash, "extended")

	// The mempool with the parent, then its child sent through descwallet.
	child := spendTo(t, key, *parent, 0, paid, wire.NewTxOut(paid-2_000, key.WPKH.Script))
	childHex := testenv.TxHex(t, child)
	childWeight := int64(child.SerializeSizeStripped()*3 + child.SerializeSize())
	childVSize := (childWeight + 3) / 4
	var accept []json.RawMessage
	raw = okCall(t, s, "testmempoolaccept", &accept, []string{childHex})
	if len(accept) != 1 {
		t.Fatalf("testmempoolaccept: %s", raw)
	}
	wantKeys(t, "testmempoolaccept", accept[0], coreAcceptKeys)
	var acc struct {
		TxID    string `json:"txid"`
		Allowed bool   `json:"allowed"`
		VSize   int64  `json:"vsize"`
		Fees    struct {
			Base     float64  `json:"base"`
			Rate     float64  `json:"effective-feerate"`
			Includes []string `json:"effective-includes"`
		} `json:"fees"`
	}
	json.Unmarshal(accept[0], &acc)
	if acc.TxID != child.TxHash().String() || !acc.Allowed || acc.VSize != childVSize || acc.Fees.Base != 0.00002 ||
		len(acc.Fees.Includes) != 1 || acc.Fees.Includes[0] != child.WitnessHash().String() {
		t.Errorf("testmempoolaccept: %s", accept[0])
	}
	okCall(t, s, "testmempoolaccept", &accept, []string{childHex}, 0.00001)
	if !strings.Contains(string(accept[0]), `"allowed":false`) || !strings.Contains(string(accept[0]), `"reject-reason":"max-fee-exceeded"`) {
		t.Errorf("testmempoolaccept over maxfeerate: %s", accept[0])
	}
	errCall(t, s, rpc.CodeVerifyError, "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)",
		"sendrawtransaction", childHex, 0.00001)
	errCall(t, s, rpc.CodeDeserialization, "TX decode failed. Make sure the tx has at least one input.",
		"sendrawtransaction", "00")
	burn := spendTo(t, key, *parent, 0, paid, wire.NewTxOut(1000, []byte{0x6a, 0x01, 0x01}),
		wire.NewTxOut(paid-5_000, key.WPKH.Script))
	errCall(t, s, rpc.CodeVerifyError, "Unspendable output exceeds maximum configured by user (maxburnamount)",
		"sendrawtransaction", testenv.TxHex(t, burn))
	okCall(t, s, "sendrawtransaction", &s1, childHex)
	if s1 != child.TxHash().String() || !btcd.InMempool(s1) {
		t.Fatalf("sendrawtransaction: %s", s1)
	}
	okCall(t, s, "sendrawtransaction", &s1, childHex)
	if s1 != child.TxHash().String() {
		t.Errorf("sendrawtransaction again: %s", s1)
	}

	var ids []string
	okCall(t, s, "getrawmempool", &ids)
	want := []string{parentID, child.TxHash().String()}
	sort.Strings(want)
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("getrawmempool %v, want %v", ids, want)
	}
	var pool map[string]json.RawMessage
	raw = okCall(t, s, "getrawmempool", &pool, true)
	type entry struct {
		VSize, Weight, Height          int64
		DescendantCount, AncestorCount int
		DescendantSize, AncestorSize   int64
		WTxID                          string
		Fees                           struct{ Base, Modified, Ancestor, Descendant, Chunk float64 }
		Depends, SpentBy               []string
		Replaceable                    bool `json:"bip125-replaceable"`
		Unbroadcast                    bool
	}
	var pe, ce entry
	json.Unmarshal(pool[parentID], &pe)
	json.Unmarshal(pool[child.TxHash().String()], &ce)
	wantKeys(t, "getrawmempool entry", pool[parentID], coreMempoolEntryKeys)
	if len(pool) != 2 || pe.DescendantCount != 2 || pe.AncestorCount != 1 || ce.AncestorCount != 2 ||
		ce.DescendantCount != 1 || len(pe.SpentBy) != 1 || pe.SpentBy[0] != child.TxHash().String() ||
		len(ce.Depends) != 1 || ce.Depends[0] != parentID || pe.Fees.Base != 0.0001 || ce.Fees.Base != 0.00002 ||
		pe.Fees.Descendant != 0.00012 || ce.Fees.Ancestor != 0.00012 || ce.VSize != childVSize || ce.Weight != childWeight ||
		ce.WTxID != child.WitnessHash().String() || !ce.Replaceable || ce.Height != tipHeight ||
		ce.AncestorSize != ce.VSize+pe.VSize {
		t.Errorf("getrawmempool verbose: %s", raw)
	}
	raw = okCall(t, s, "getmempoolentry", nil, child.TxHash().String())
	if !sameJSON(raw, pool[child.TxHash().String()]) {
		t.Errorf("getmempoolentry %s, want %s", raw, pool[child.TxHash().String()])
	}
	errCall(t, s, rpc.CodeInvalidAddressOrKey, "Transaction not in mempool", "getmempoolentry", strings.Repeat("1", 64))
	errCall(t, s, rpc.CodeInvalidParameter, "Verbose results cannot contain mempool sequence values.", "getrawmempool", true, true)
	raw = okCall(t, s, "getmempoolinfo", nil)
	wantKeys(t, "getmempoolinfo", raw, coreMempoolInfoKeys)
	var mi struct {
		Size     int     `json:"size"`
		Bytes    int64   `json:"bytes"`
		TotalFee float64 `json:"total_fee"`
	}
	json.Unmarshal(raw, &mi)
	if mi.Size != 2 || mi.Bytes != pe.VSize+ce.VSize || mi.TotalFee != 0.00012 {
		t.Errorf("getmempoolinfo: %s", raw)
	}

	// UTXO lookups and raw transactions in the mempool.
	raw = okCall(t, s, "gettxout", nil, child.TxHash().String(), 0)
	wantKeys(t, "gettxout", raw, coreTxOutKeys)
	var out struct {
		BestBlock     string  `json:"bestblock"`
		Confirmations int64   `json:"confirmations"`
		Value         float64 `json:"value"`
		ScriptPubKey  json.RawMessage
		Coinbase      bool
	}
	json.Unmarshal(raw, &out)
	wantKeys(t, "gettxout scriptPubKey", out.ScriptPubKey, coreScriptKeys)
	if out.BestBlock != tipHash || out.Confirmations != 0 || out.Value != 0.49998 ||
		!strings.Contains(string(out.ScriptPubKey), `"address":"`+key.WPKH.Address+`"`) ||
		!strings.Contains(string(out.ScriptPubKey), `"desc":"addr(`+key.WPKH.Address+`)#`) ||
		!strings.Contains(string(out.ScriptPubKey), `"type":"witness_v0_keyhash"`) {
		t.Errorf("gettxout: %s", raw)
	}
	errCall(t, s, rpc.CodeMisc, "JSON integer out of range", "gettxout", parentID, -1)
	if raw = okCall(t, s, "gettxout", nil, parentID, 0); string(raw) != "null" {
		t.Errorf("gettxout of an output spent in the mempool: %s", raw)
	}
	okCall(t, s, "getrawtransaction", &s1, child.TxHash().String())
	if s1 != childHex {
		t.Errorf("getrawtransaction %s", s1)
	}
	raw = okCall(t, s, "getrawtransaction", nil, child.TxHash().String(), true)
	wantKeys(t, "getrawtransaction mempool", raw, coreTxKeys)
	errCall(t, s, rpc.CodeInvalidAddressOrKey,
		"No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
		"getrawtransaction", strings.Repeat("1", 64))
	errCall(t, s, rpc.CodeInvalidAddressOrKey,
		"The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved",
		"getrawtransaction", chaincfg.RegressionNetParams.GenesisBlock.Header.MerkleRoot.String())

	// Mined: blocks with transactions, proofs.
	block := btcd.Generate(1)[0]
	raw = okCall(t, s, "getblock", nil, block)
	wantKeys(t, "getblock 1", raw, coreBlockKeys)
	var blk struct {
		Tx                         []json.RawMessage `json:"tx"`
		Size, StrippedSize, Weight int
		NTx                        int `json:"nTx"`
	}
	json.Unmarshal(raw, &blk)
	var bv struct {
		Size, StrippedSize, Weight int
		Tx                         []string
	}
	btcd.CallResult(&bv, "getblock", block, 1)
	if blk.Size != bv.Size || blk.StrippedSize != bv.StrippedSize || blk.Weight != bv.Weight || blk.NTx != 3 ||
		len(blk.Tx) != 3 || string(blk.Tx[1]) != `"`+parentID+`"` {
		t.Errorf("getblock 1: %s (btcd %+v)", raw, bv)
	}
	okCall(t, s, "getblock", &s1, block, 0)
	btcd.CallResult(&btcdHex, "getblock", block, 0)
	if s1 != btcdHex {
		t.Errorf("getblock 0 differs from btcd's")
	}
	raw = okCall(t, s, "getblock", nil, block, 2)
	json.Unmarshal(raw, &blk)
	wantKeys(t, "getblock 2 coinbase", blk.Tx[0], strings.Fields(`txid hash version size vsize weight locktime vin vout hex`))
	wantKeys(t, "getblock 2 tx", blk.Tx[2], coreBlockTxKeys)
	if !strings.Contains(string(blk.Tx[1]), `"fee":0.00010000`) || !strings.Contains(string(blk.Tx[2]), `"fee":0.00002000`) {
		t.Errorf("getblock 2 fees: %s", raw)
	}

	// Block statistics of the block with the parent (fee 10000) and the
	// child (fee 2000).
	raw = okCall(t, s, "getblockstats", nil, block)
	wantKeys(t, "getblockstats", raw, strings.Fields(`avgfee avgfeerate avgtxsize blockhash feerate_percentiles
height ins maxfee maxfeerate maxtxsize medianfee mediantime mediantxsize minfee minfeerate mintxsize outs
subsidy swtotal_size swtotal_weight swtxs time total_out total_size total_weight totalfee txs utxo_increase
utxo_size_inc utxo_increase_actual utxo_size_inc_actual`))
	var st map[string]any
	json.Unmarshal(raw, &st)
	var parentHex string
	btcd.CallResult(&parentHex, "getrawtransaction", parentID, 0)
	ptx := testenv.DecodeTx(t, parentHex)
	parentWeight := int64(ptx.SerializeSizeStripped()*3 + ptx.SerializeSize())
	height := float64(tipHeight + 1)
	wantStats := map[string]float64{"txs": 3, "ins": 2, "totalfee": 12000, "maxfee": 10000, "minfee": 2000,
		"medianfee": 6000, "avgfee": 6000, "total_weight": float64(parentWeight + childWeight),
		"avgfeerate": float64(12000 * 4 / (parentWeight + childWeight)), "height": height, "swtxs": 2,
		"subsidy": float64(int64(50e8) >> (int64(height) / 150)),
		// The parent spends the 50 BTC coinbase of block 1.
		"total_out":  float64(50e8 - 10_000 + paid - 2_000),
		"maxfeerate": float64(10000 * 4 / parentWeight), "minfeerate": float64(2000 * 4 / childWeight)}
	for k, v := range wantStats {
		if st[k] != v {
			t.Errorf("getblockstats %s = %v, want %v", k, st[k], v)
		}
	}
	// The child holds between a quarter and a half of the weight: the
	// 10th and 25th percentiles are its rate, the others the parent's.
	cr, pr := 2000*4/childWeight, 10000*4/parentWeight
	if got, want := fmt.Sprint(st["feerate_percentiles"]), fmt.Sprint([]any{float64(cr), float64(cr), float64(pr),
		float64(pr), float64(pr)}); got != want {
		t.Errorf("feerate_percentiles %s, want %s", got, want)
	}
	raw = okCall(t, s, "getblockstats", nil, tipHeight+1, []string{"totalfee", "avgfee", "totalfee"})
	if string(raw) != `{"avgfee":6000,"totalfee":12000}` {
		t.Errorf("getblockstats selected: %s", raw)
	}
	errCall(t, s, rpc.CodeInvalidParameter, "Invalid selected statistic 'nosuch'", "getblockstats", block, []string{"nosuch"})
	errCall(t, s, rpc.CodeInvalidParameter, "Target block height -1 is negative", "getblockstats", -1)
	errCall(t, s, rpc.CodeInvalidParameter, fmt.Sprintf("Target block height %d after current tip %d", tipHeight+2, tipHeight+1),
		"getblockstats", tipHeight+2)

	raw = okCall(t, s, "getrawtransaction", nil, child.TxHash().String(), 1)
	wantKeys(t, "getrawtransaction mined", raw, coreMinedTxKeys)
	if !strings.Contains(string(raw), `"blockhash":"`+block+`","confirmations":1,`) {
		t.Errorf("getrawtransaction mined: %s", raw)
	}
	// Verbosity 2: the fee and each input's prevout (Core's undo data).
	raw = okCall(t, s, "getrawtransaction", nil, child.TxHash().String(), 2)
	wantKeys(t, "getrawtransaction 2", raw, strings.Fields(`txid hash version size vsize weight locktime vin vout fee hex
blockhash confirmations time blocktime`))
	var v2 struct {
		Vin []json.RawMessage `json:"vin"`
		Fee float64           `json:"fee"`
	}
	json.Unmarshal(raw, &v2)
	wantKeys(t, "getrawtransaction 2 vin", v2.Vin[0], strings.Fields(`txid vout scriptSig txinwitness prevout sequence`))
	if v2.Fee != 0.00002 || !strings.Contains(string(v2.Vin[0]), fmt.Sprintf(`"prevout":{"generated":false,"height":%d,"value":0.50000000,"scriptPubKey":{"asm":"0 `, tipHeight+1)) ||
		!strings.Contains(string(v2.Vin[0]), `"address":"`+key.WPKH.Address+`","type":"witness_v0_keyhash"}}`) {
		t.Errorf("getrawtransaction 2: %s", raw)
	}
	raw = okCall(t, s, "getblock", nil, block, 3)
	json.Unmarshal(raw, &blk)
	if !strings.Contains(string(blk.Tx[1]), `"prevout":{"generated":true,"height":1,"value":50.00000000,`) ||
		!strings.Contains(string(blk.Tx[1]), `"fee":0.00010000`) || strings.Contains(string(blk.Tx[0]), `"prevout"`) {
		t.Errorf("getblock 3: %s", raw)
	}

	raw = okCall(t, s, "getrawtransaction", nil, child.TxHash().String(), 1, block)
	wantKeys(t, "getrawtransaction in block", raw, append([]string{"in_active_chain"}, coreMinedTxKeys...))
	errCall(t, s, rpc.CodeInvalidAddressOrKey,
		"No such transaction found in the provided block. Use gettransaction for wallet transactions.",
		"getrawtransaction", child.TxHash().String(), 0, tipHash)
	raw = okCall(t, s, "gettxout", nil, child.TxHash().String(), 0, false)
	if !strings.Contains(string(raw), `"bestblock":"`+block+`","confirmations":1,`) {
		t.Errorf("gettxout mined: %s", raw)
	}

	var proof string
	okCall(t, s, "gettxoutproof", &proof, []string{child.TxHash().String(), parentID})
	var proved []string
	okCall(t, s, "verifytxoutproof", &proved, proof)
	if strings.Join(proved, ",") != parentID+","+child.TxHash().String() {
		t.Errorf("verifytxoutproof: %v", proved)
	}
	okCall(t, s, "gettxoutproof", &s1, []string{parentID}, block)
	okCall(t, s, "verifytxoutproof", &proved, s1)
	if len(proved) != 1 || proved[0] != parentID {
		t.Errorf("verifytxoutproof of one: %v", proved)
	}
	pb, _ := hex.DecodeString(s1)
	p, err := chain.DecodeMerkleProof(pb)
	if err != nil || p.Header.BlockHash().String() != block || p.NumTx != 3 {
		t.Errorf("proof header or count wrong: %v", err)
	}
	p.Header.Nonce++
	errCall(t, s, rpc.CodeInvalidAddressOrKey, "Block not found in chain", "verifytxoutproof", hex.EncodeToString(p.Serialize()))
	errCall(t, s, rpc.CodeMisc, "DataStream::read(): end of data: iostream error", "verifytxoutproof", s1[:100])
	errCall(t, s, rpc.CodeInvalidParameter, "Invalid parameter, duplicated txid: "+parentID, "gettxoutproof", []string{parentID, parentID})
	errCall(t, s, rpc.CodeInvalidAddressOrKey, "Not all transactions found in specified or retrieved block",
		"gettxoutproof", []string{parentID}, tipHash)
	errCall(t, s, rpc.CodeInvalidParameter, "Parameter 'txids' cannot be empty", "gettxoutproof", []string{})

	// Fees, indexes, network.
	// btcd estimates from the blocks it saw: the child's block gives it
	// its fee rate.
	var fee struct {
		FeeRate float64 `json:"feerate"`
		Blocks  int     `json:"blocks"`
	}
	raw = okCall(t, s, "estimatesmartfee", &fee, 6)
	wantKeys(t, "estimatesmartfee", raw, []string{"feerate", "blocks"})
	if rate := float64(2000*1000) / float64(childVSize) / 1e8; fee.Blocks != 6 || fee.FeeRate < rate-2e-8 || fee.FeeRate > rate+2e-8 {
		t.Errorf("estimatesmartfee: %s", raw)
	}
	errCall(t, s, rpc.CodeInvalidParameter, "Invalid conf_target, must be between 1 and 1008", "estimatesmartfee", 0)
	raw = okCall(t, s, "getindexinfo", nil)
	h := btcd.GetBlockCount()
	if !sameJSON(raw, mustJSON(map[string]any{"txindex": map[string]any{"synced": true, "best_block_height": h},
		"basic block filter index": map[string]any{"synced": true, "best_block_height": h}})) {
		t.Errorf("getindexinfo: %s", raw)
	}
	raw = okCall(t, s, "getnetworkinfo", nil)
	wantKeys(t, "getnetworkinfo", raw, coreNetInfoKeys)
	if !strings.HasPrefix(string(raw), `{"version":300000,"subversion":"/Satoshi:30.0.0/descwallet:`) {
		t.Errorf("getnetworkinfo: %s", raw)
	}
	// A wallet's path answers the same.
	if r := nodeCall(t, s, "/wallet/w1", "getbestblockhash", nil); string(r.Result) != `"`+block+`"` {
		t.Errorf("getbestblockhash on a wallet path: %s", r.Body)
	}
}
