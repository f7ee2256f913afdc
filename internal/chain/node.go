package chain

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// This file holds the calls a wallet client sends to the node through the
// wallet's endpoint (getblockheader, getchaintips, getrawmempool, ...):
// Call forwards one call as it came (bitcoind answers it itself), the
// typed calls below read what btcd knows so that the RPC layer can answer
// in Core's shapes.

// maxForwardParams bounds the params of a forwarded call.
const maxForwardParams = 32 << 20

// Call sends one JSON-RPC call with params as the client wrote them (an
// array or an object; nil sends none) and returns the result as the backend
// wrote it. A JSON-RPC error is ErrRPC wrapping the backend's *RPCError.
func (c *Client) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if len(params) > maxForwardParams || (params != nil && !json.Valid(params)) {
		return nil, chainErr(ErrBadReply, fmt.Sprintf("%s: %s: params not forwardable",
			c.c.name, method), nil)
	}
	cl := &call{Method: method, Raw: params}
	if params == nil {
		cl.Raw = json.RawMessage("[]")
	}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return nil, err
	}
	if cl.Err != nil {
		return nil, chainErr(ErrRPC, fmt.Sprintf("%s: %s", c.c.name, method), cl.Err)
	}
	if len(cl.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return cl.Result, nil
}

// one sends a single call and decodes its result into out (nil: ignore).
func (c *Client) one(ctx context.Context, method, subject string, out any, params ...any) error {
	cl := &call{Method: method, Params: params}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return err
	}
	if cl.Err != nil {
		return c.callErr(method, subject, cl.Err)
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(cl.Result))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return c.resultErr(method, subject, cl.Result, err)
	}
	return nil
}

// BlockPlace is where a block stands relative to the best chain.
type BlockPlace struct {
	// Height is the block's height.
	Height int32
	// Confirmations is the number of best-chain blocks from it to the tip,
	// itself included; -1 for a block off the best chain.
	Confirmations int64
	// Next is the best chain's next block, nil at the tip or off the best
	// chain.
	Next *chainhash.Hash
}

// BlockPlace returns the height, confirmations and successor of block hash
// (getblockheader <hash> true, which both nodes answer).
func (c *Client) BlockPlace(ctx context.Context, hash chainhash.Hash) (BlockPlace, error) {
	var res struct {
		Hash          string `json:"hash"`
		Height        int32  `json:"height"`
		Confirmations int64  `json:"confirmations"`
		Next          string `json:"nextblockhash"`
	}
	subject := hash.String()
	if err := c.one(ctx, "getblockheader", subject, &res, subject, true); err != nil {
		return BlockPlace{}, err
	}
	if res.Hash != subject || res.Height < 0 {
		return BlockPlace{}, chainErr(ErrBadReply, fmt.Sprintf("%s: getblockheader %s: header of %s at height %d",
			c.c.name, subject, res.Hash, res.Height), nil)
	}
	p := BlockPlace{Height: res.Height, Confirmations: res.Confirmations}
	if res.Next != "" {
		h, err := chainhash.NewHashFromStr(res.Next)
		if err != nil {
			return BlockPlace{}, chainErr(ErrBadReply, c.c.name+": getblockheader "+subject, err)
		}
		p.Next = h
	}
	return p, nil
}

// workCache holds the cumulative proof of work of a prefix of the best
// chain, computed once from its headers and extended as the chain grows.
type workCache struct {
	mu     sync.Mutex
	hashes []chainhash.Hash
	work   []*big.Int
}

// ChainWork returns the total proof of work of the chain ending at block
// hash, at height (Core's chainwork). It reads the headers of the best
// chain up to height once and keeps their sums; a block off the best chain
// is walked back to where it joins.
func (c *Client) ChainWork(ctx context.Context, hash chainhash.Hash, height int32) (*big.Int, error) {
	w := &c.work
	w.mu.Lock()
	defer w.mu.Unlock()
	cached := func(h int32, hash chainhash.Hash) bool {
		return h >= 0 && int(h) < len(w.hashes) && w.hashes[h] == hash
	}
	if !cached(height, hash) {
		// The chain may move while its headers are read: try again
		// once. A height above the best chain's tip (a side branch
		// longer than the best chain) is not an error here: the walk
		// below reaches the cache.
		err := c.extendWork(ctx, height)
		if errors.Is(err, errChainMoved) {
			err = c.extendWork(ctx, height)
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	// A block off the best chain: add up its branch back to the chain.
	total := new(big.Int)
	cur, h := hash, height
	for steps := 0; h >= 0 && !cached(h, cur); steps++ {
		if steps > maxSideBranch {
			return nil, chainErr(ErrNotFound, fmt.Sprintf("%s: block %s: side branch longer than %d blocks",
				c.c.name, hash, maxSideBranch), nil)
		}
		hdr, err := c.Header(ctx, cur)
		if err != nil {
			return nil, err
		}
		total.Add(total, calcWork(hdr.Bits))
		cur, h = hdr.PrevBlock, h-1
	}
	if h >= 0 {
		total.Add(total, w.work[h])
	}
	return total, nil
}

// errChainMoved reports a best chain that changed while extendWork read
// it.
var errChainMoved = chainErr(ErrBadReply, "best chain changed while its headers were read", nil)

// maxSideBranch bounds how far ChainWork walks back a block off the best
// chain.
const maxSideBranch = 10000

// calcWork is the expected number of hashes to find a block of compact
// target bits: 2^256 / (target + 1), 0 for a target that is not positive.
func calcWork(bits uint32) *big.Int {
	target := compactToBig(bits)
	if target.Sign() <= 0 {
		return new(big.Int)
	}
	num := new(big.Int).Lsh(big.NewInt(1), 256)
	return num.Div(num, target.Add(target, big.NewInt(1)))
}

// compactToBig decodes compact target bits (negative targets stay
// negative).
func compactToBig(bits uint32) *big.Int {
	mant := int64(bits & 0x007fffff)
	exp := uint(bits >> 24)
	n := big.NewInt(mant)
	if exp <= 3 {
		n.Rsh(n, 8*(3-exp))
	} else {
		n.Lsh(n, 8*(exp-3))
	}
	if bits&0x00800000 != 0 {
		n.Neg(n)
	}
	return n
}

// extendWork grows the cache through height along the best chain. A cached
// block that left the best chain (a reorganization) is dropped first.
func (c *Client) extendWork(ctx context.Context, height int32) error {
	w := &c.work
	// Drop cached blocks the best chain no longer holds, stepping back
	// twice as far each time.
	for back := 1; len(w.hashes) > 0; back *= 2 {
		n := len(w.hashes)
		hs, err := c.BlockHashes(ctx, []int32{int32(n - 1)})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err == nil && hs[0] == w.hashes[n-1] {
			break
		}
		n = max(0, n-back)
		w.hashes, w.work = w.hashes[:n], w.work[:n]
	}
	const step = 2000
	for from := int32(len(w.hashes)); from <= height; from += step {
		to := min(height, from+step-1)
		heights := make([]int32, 0, to-from+1)
		for h := from; h <= to; h++ {
			heights = append(heights, h)
		}
		hashes, err := c.BlockHashes(ctx, heights)
		if err != nil {
			return err
		}
		hdrs, err := c.Headers(ctx, hashes)
		if err != nil {
			return err
		}
		for i, hdr := range hdrs {
			prev := new(big.Int)
			if n := len(w.hashes); n > 0 {
				if hdr.PrevBlock != w.hashes[n-1] {
					// The chain moved while we read it: drop
					// the top of the cache and start over.
					keep := max(0, n-64)
					w.hashes, w.work = w.hashes[:keep], w.work[:keep]
					return errChainMoved
				}
				prev = w.work[n-1]
			}
			w.hashes = append(w.hashes, hashes[i])
			w.work = append(w.work, new(big.Int).Add(prev, calcWork(hdr.Bits)))
		}
	}
	return nil
}

// ChainTip is one entry of getchaintips.
type ChainTip struct {
	Height    int32
	Hash      chainhash.Hash
	BranchLen int32
	Status    string
}

// ChainTips returns the backend's chain tips (getchaintips, which both
// nodes answer in the same shape).
func (c *Client) ChainTips(ctx context.Context) ([]ChainTip, error) {
	var res []struct {
		Height    int32  `json:"height"`
		Hash      string `json:"hash"`
		BranchLen int32  `json:"branchlen"`
		Status    string `json:"status"`
	}
	if err := c.one(ctx, "getchaintips", "", &res); err != nil {
		return nil, err
	}
	out := make([]ChainTip, len(res))
	for i, r := range res {
		h, err := chainhash.NewHashFromStr(r.Hash)
		if err != nil || len(r.Hash) != 64 {
			return nil, chainErr(ErrBadReply, c.c.name+": getchaintips: hash "+r.Hash, err)
		}
		out[i] = ChainTip{Height: r.Height, Hash: *h, BranchLen: r.BranchLen, Status: r.Status}
	}
	return out, nil
}

// FilterHeader returns the BIP158 basic filter header of block hash
// (btcd's getcfilterheader <hash> 0; bitcoind's getblockfilter).
func (c *Client) FilterHeader(ctx context.Context, hash chainhash.Hash) (chainhash.Hash, error) {
	subject := hash.String()
	if c.kind == KindBitcoind {
		var res struct {
			Header string `json:"header"`
		}
		if err := c.one(ctx, "getblockfilter", subject, &res, subject, "basic"); err != nil {
			return chainhash.Hash{}, err
		}
		h, err := chainhash.NewHashFromStr(res.Header)
		if err != nil || len(res.Header) != 64 {
			return chainhash.Hash{}, chainErr(ErrBadReply, c.c.name+": getblockfilter "+subject, err)
		}
		return *h, nil
	}
	var res string
	if err := c.one(ctx, "getcfilterheader", subject, &res, subject, 0); err != nil {
		return chainhash.Hash{}, err
	}
	h, err := chainhash.NewHashFromStr(res)
	if err != nil || len(res) != 64 {
		return chainhash.Hash{}, chainErr(ErrNotFound, c.c.name+": getcfilterheader "+subject+": no filter header", err)
	}
	return *h, nil
}

// TxPlace is where a transaction was found.
type TxPlace struct {
	// Block is the block holding it; zero for a mempool transaction.
	Block chainhash.Hash
	// Confirmations counts the blocks from Block to the tip; 0 in the
	// mempool.
	Confirmations int64
	// Time and BlockTime are the block's time; 0 in the mempool.
	Time, BlockTime int64
}

// RawTransaction returns transaction txid from the mempool or, with a
// transaction index, the chain (getrawtransaction <txid> 1), and where it
// is.
func (c *Client) RawTransaction(ctx context.Context, txid chainhash.Hash) (*wire.MsgTx, TxPlace, error) {
	cl := &call{Method: "getrawtransaction", Params: []any{txid.String(), 1}}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return nil, TxPlace{}, err
	}
	return c.rawTxResult(cl, txid)
}

// RawTransactions looks up several transactions as RawTransaction does, in
// batches; an entry is nil when the backend does not know the transaction.
func (c *Client) RawTransactions(ctx context.Context, ids []chainhash.Hash) ([]*wire.MsgTx, []TxPlace, error) {
	calls := make([]*call, len(ids))
	for i, id := range ids {
		calls[i] = &call{Method: "getrawtransaction", Params: []any{id.String(), 1}}
	}
	// Verbose replies are several times the size of the transaction.
	if err := c.run(ctx, calls, txsPerBatch/5); err != nil {
		return nil, nil, err
	}
	txs := make([]*wire.MsgTx, len(ids))
	places := make([]TxPlace, len(ids))
	for i, cl := range calls {
		if cl.Err != nil && cl.Err.Code == -5 {
			continue
		}
		tx, p, err := c.rawTxResult(cl, ids[i])
		if err != nil {
			return nil, nil, err
		}
		txs[i], places[i] = tx, p
	}
	return txs, places, nil
}

// rawTxResult decodes the reply to getrawtransaction <txid> 1.
func (c *Client) rawTxResult(cl *call, txid chainhash.Hash) (*wire.MsgTx, TxPlace, error) {
	subject := txid.String()
	if cl.Err != nil {
		return nil, TxPlace{}, c.callErr(cl.Method, subject, cl.Err)
	}
	var res struct {
		Hex           string `json:"hex"`
		BlockHash     string `json:"blockhash"`
		Confirmations int64  `json:"confirmations"`
		Time          int64  `json:"time"`
		BlockTime     int64  `json:"blocktime"`
	}
	if err := json.Unmarshal(cl.Result, &res); err != nil {
		return nil, TxPlace{}, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	raw, err := hex.DecodeString(res.Hex)
	if err != nil || len(raw) > MaxTxBytes {
		return nil, TxPlace{}, chainErr(ErrBadReply, c.c.name+": getrawtransaction "+subject+": hex", err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil || tx.TxHash() != txid {
		return nil, TxPlace{}, chainErr(ErrBadReply, c.c.name+": getrawtransaction "+subject+
			": not the transaction asked for", err)
	}
	p := TxPlace{Confirmations: res.Confirmations, Time: res.Time, BlockTime: res.BlockTime}
	if res.BlockHash != "" {
		h, err := chainhash.NewHashFromStr(res.BlockHash)
		if err != nil {
			return nil, TxPlace{}, chainErr(ErrBadReply, c.c.name+": getrawtransaction "+subject, err)
		}
		p.Block = *h
	}
	return &tx, p, nil
}

// MempoolEntry is what the backend reports of one mempool transaction.
type MempoolEntry struct {
	TxID    chainhash.Hash
	VSize   int64
	Weight  int64
	Fee     int64 // satoshis
	Time    int64
	Height  int64
	Depends []chainhash.Hash
}

// MempoolEntries returns every mempool transaction with its size, fee,
// time, height and in-mempool parents (btcd's getrawmempool true), at most
// MaxMempoolIDs of them.
func (c *Client) MempoolEntries(ctx context.Context) ([]MempoolEntry, error) {
	var res map[string]struct {
		VSize   int64       `json:"vsize"`
		Weight  int64       `json:"weight"`
		Fee     json.Number `json:"fee"`
		Time    int64       `json:"time"`
		Height  int64       `json:"height"`
		Depends []string    `json:"depends"`
	}
	if err := c.one(ctx, "getrawmempool", "", &res, true); err != nil {
		return nil, err
	}
	if len(res) > MaxMempoolIDs {
		return nil, chainErr(ErrBadReply, fmt.Sprintf("%s: getrawmempool: more than %d transactions",
			c.c.name, MaxMempoolIDs), nil)
	}
	out := make([]MempoolEntry, 0, len(res))
	for id, r := range res {
		h, err := chainhash.NewHashFromStr(id)
		if err != nil || len(id) != 64 {
			return nil, chainErr(ErrBadReply, c.c.name+": getrawmempool: txid "+id, err)
		}
		fee, err := satoshis(r.Fee)
		if err != nil {
			return nil, chainErr(ErrBadReply, c.c.name+": getrawmempool: fee of "+id, err)
		}
		e := MempoolEntry{TxID: *h, VSize: r.VSize, Weight: r.Weight, Fee: fee, Time: r.Time, Height: r.Height}
		for _, d := range r.Depends {
			dh, err := chainhash.NewHashFromStr(d)
			if err != nil || len(d) != 64 {
				return nil, chainErr(ErrBadReply, c.c.name+": getrawmempool: depends "+d, err)
			}
			e.Depends = append(e.Depends, *dh)
		}
		out = append(out, e)
	}
	return out, nil
}

// AcceptResult is the backend's verdict on one transaction of a
// testmempoolaccept.
type AcceptResult struct {
	TxID, WTxID  chainhash.Hash
	Allowed      bool
	VSize        int64
	Fee          int64 // satoshis, when allowed
	RejectReason string
}

// TestMempoolAccept asks whether the backend would accept txs into its
// mempool (testmempoolaccept, with no fee-rate cap: callers check it).
func (c *Client) TestMempoolAccept(ctx context.Context, txs []*wire.MsgTx) ([]AcceptResult, error) {
	hexes := make([]string, len(txs))
	for i, tx := range txs {
		var buf bytes.Buffer
		if err := tx.Serialize(&buf); err != nil {
			return nil, err
		}
		hexes[i] = hex.EncodeToString(buf.Bytes())
	}
	var res []struct {
		TxID   string `json:"txid"`
		WTxID  string `json:"wtxid"`
		Allow  bool   `json:"allowed"`
		VSize  int64  `json:"vsize"`
		Reason string `json:"reject-reason"`
		Fees   *struct {
			Base json.Number `json:"base"`
		} `json:"fees"`
	}
	if err := c.one(ctx, "testmempoolaccept", "", &res, hexes, 0); err != nil {
		return nil, err
	}
	if len(res) != len(txs) {
		return nil, chainErr(ErrBadReply, fmt.Sprintf("%s: testmempoolaccept: %d results for %d transactions",
			c.c.name, len(res), len(txs)), nil)
	}
	out := make([]AcceptResult, len(res))
	for i, r := range res {
		a := AcceptResult{TxID: txs[i].TxHash(), WTxID: txs[i].WitnessHash(), Allowed: r.Allow,
			VSize: r.VSize, RejectReason: r.Reason}
		if r.Fees != nil {
			fee, err := satoshis(r.Fees.Base)
			if err != nil {
				return nil, chainErr(ErrBadReply, c.c.name+": testmempoolaccept: fee", err)
			}
			a.Fee = fee
		}
		out[i] = a
	}
	return out, nil
}

// SendRawTransactionUnchecked submits tx without the backend's own
// high-fee check (btcd's allowhighfees; the caller applied Core's
// maxfeerate).
func (c *Client) SendRawTransactionUnchecked(ctx context.Context, tx *wire.MsgTx) (chainhash.Hash, error) {
	if c.kind != KindBtcd {
		return c.SendRawTransaction(ctx, tx)
	}
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		return chainhash.Hash{}, err
	}
	var res string
	subject := tx.TxHash().String()
	if err := c.one(ctx, "sendrawtransaction", subject, &res, hex.EncodeToString(buf.Bytes()), true); err != nil {
		return chainhash.Hash{}, err
	}
	h, err := chainhash.NewHashFromStr(res)
	if err != nil {
		return chainhash.Hash{}, chainErr(ErrBadReply, c.c.name+": sendrawtransaction "+subject, err)
	}
	return *h, nil
}

// EstimateFee returns the backend's fee-rate estimate for confirmation
// within blocks, in satoshis per 1000 virtual bytes, or -1 when it has none
// (btcd's estimatefee).
func (c *Client) EstimateFee(ctx context.Context, blocks int) (int64, error) {
	var res json.Number
	if err := c.one(ctx, "estimatefee", "", &res, blocks); err != nil {
		if errors.Is(err, ErrRPC) {
			// btcd answers an error while it has too little data.
			return -1, nil
		}
		return 0, err
	}
	r, ok := new(big.Rat).SetString(string(res))
	if !ok {
		return 0, chainErr(ErrBadReply, c.c.name+": estimatefee: "+string(res), nil)
	}
	if r.Sign() <= 0 {
		return -1, nil
	}
	r.Mul(r, big.NewRat(1e8, 1))
	sat, _ := r.Float64()
	if sat > 21e14 {
		return 0, chainErr(ErrBadReply, c.c.name+": estimatefee: "+string(res), nil)
	}
	return int64(sat + 0.5), nil
}

// ConnectionCount returns the backend's number of peers.
func (c *Client) ConnectionCount(ctx context.Context) (int64, error) {
	var n int64
	if err := c.one(ctx, "getconnectioncount", "", &n); err != nil {
		return 0, err
	}
	return n, nil
}

// MempoolSpender returns the mempool transaction spending op, nil when none
// does (gettxspendingprevout, which both nodes answer).
func (c *Client) MempoolSpender(ctx context.Context, op wire.OutPoint) (*chainhash.Hash, error) {
	var res []struct {
		SpendingTxID string `json:"spendingtxid"`
	}
	arg := []map[string]any{{"txid": op.Hash.String(), "vout": op.Index}}
	if err := c.one(ctx, "gettxspendingprevout", op.String(), &res, arg); err != nil {
		return nil, err
	}
	if len(res) != 1 {
		return nil, chainErr(ErrBadReply, c.c.name+": gettxspendingprevout "+op.String()+": not one result", nil)
	}
	if res[0].SpendingTxID == "" {
		return nil, nil
	}
	h, err := chainhash.NewHashFromStr(res[0].SpendingTxID)
	if err != nil {
		return nil, chainErr(ErrBadReply, c.c.name+": gettxspendingprevout "+op.String(), err)
	}
	return h, nil
}
