package chain

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/safego"
)

// Requests per batch for each kind of call. Blocks are few per batch so that
// a batch of maximal blocks in hex stays within maxReplyBytes.
const (
	hashesPerBatch  = 500
	headersPerBatch = 500
	filtersPerBatch = 200
	blocksPerBatch  = 16
)

// Client is a Backend over JSON-RPC to a btcd or a bitcoind.
type Client struct {
	kind Kind
	net  *chaincfg.Params
	c    *conn
	work workCache
}

var _ Backend = (*Client)(nil)

// New returns a client for the backend cfg describes. It does not contact
// the backend; Check does.
func New(cfg Config) (*Client, error) {
	switch cfg.Kind {
	case KindBtcd, KindBitcoind:
	default:
		return nil, fmt.Errorf("chain: unknown backend %q (want bitcoind or btcd)",
			cfg.Kind)
	}
	if cfg.Net == nil {
		return nil, fmt.Errorf("chain: no network")
	}
	c, err := newConn(&cfg)
	if err != nil {
		return nil, err
	}
	return &Client{kind: cfg.Kind, net: cfg.Net, c: c}, nil
}

// Kind tells which node the client talks to.
func (c *Client) Kind() Kind { return c.kind }

// String names the backend and its address.
func (c *Client) String() string { return c.c.name }

// Check contacts the backend and verifies that it runs the configured
// network (its block at height 0 is the network's genesis block).
func (c *Client) Check(ctx context.Context) error {
	h, err := c.BlockHash(ctx, 0)
	if err != nil {
		return err
	}
	if h != *c.net.GenesisHash {
		return chainErr(ErrWrongNetwork, fmt.Sprintf(
			"%s: genesis block %s is not %s's %s", c.c.name, h,
			c.net.Name, c.net.GenesisHash), nil)
	}
	return nil
}

// run sends calls in batches of per, several batches in flight.
func (c *Client) run(ctx context.Context, calls []*call, per int) error {
	if len(calls) <= per {
		return c.c.do(ctx, calls)
	}
	var g safego.Group
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var first error
	for lo := 0; lo < len(calls); lo += per {
		part := calls[lo:min(lo+per, len(calls))]
		g.Go("chain client batch", func() error {
			if err := c.c.do(ctx, part); err != nil {
				once.Do(func() { first = err; cancel() })
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return first
}

// callErr turns a JSON-RPC error of method about subject into an *Error.
func (c *Client) callErr(method, subject string, e *RPCError) error {
	desc := fmt.Sprintf("%s: %s %s", c.c.name, method, subject)
	switch {
	case strings.Contains(e.Message, "Index is not enabled for filtertype"),
		strings.Contains(e.Message, "CF index must be enabled"):
		return chainErr(ErrNoFilters, desc, e)
	case e.Code == -5 && (e.Message == "Block not found" ||
		strings.HasPrefix(e.Message, "Filter not found")):
		return chainErr(ErrNotFound, desc, e)
	case method == "getblockhash" && (e.Code == -8 || e.Code == -1) &&
		strings.Contains(e.Message, "out of range"):
		return chainErr(ErrNotFound, desc, e)
	}
	return chainErr(ErrRPC, desc, e)
}

// resultErr reports a result that does not decode.
func (c *Client) resultErr(method, subject string, raw json.RawMessage, err error) error {
	quote := raw
	if len(quote) > maxErrorBody {
		quote = quote[:maxErrorBody]
	}
	return chainErr(ErrBadReply, fmt.Sprintf("%s: %s %s: result %s",
		c.c.name, method, subject, quote), err)
}

// Tip returns the best chain's height and tip hash.
func (c *Client) Tip(ctx context.Context) (BlockID, error) {
	method := "getblockchaininfo"
	if c.kind == KindBtcd {
		method = "getbestblock"
	}
	cl := &call{Method: method}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return BlockID{}, err
	}
	if cl.Err != nil {
		return BlockID{}, c.callErr(method, "", cl.Err)
	}
	var res struct {
		Hash          string `json:"hash"`
		Height        *int32 `json:"height"`
		BestBlockHash string `json:"bestblockhash"`
		Blocks        *int32 `json:"blocks"`
	}
	if err := json.Unmarshal(cl.Result, &res); err != nil {
		return BlockID{}, c.resultErr(method, "", cl.Result, err)
	}
	hashStr, height := res.Hash, res.Height
	if c.kind == KindBitcoind {
		hashStr, height = res.BestBlockHash, res.Blocks
	}
	h, err := chainhash.NewHashFromStr(hashStr)
	if err != nil || len(hashStr) != 64 || height == nil || *height < 0 {
		return BlockID{}, c.resultErr(method, "", cl.Result, err)
	}
	return BlockID{Height: *height, Hash: *h}, nil
}

// BlockHash returns the best chain's block hash at height.
func (c *Client) BlockHash(ctx context.Context, height int32) (chainhash.Hash, error) {
	hs, err := c.BlockHashes(ctx, []int32{height})
	if err != nil {
		return chainhash.Hash{}, err
	}
	return hs[0], nil
}

// BlockHashes returns the best chain's block hashes at heights.
func (c *Client) BlockHashes(ctx context.Context, heights []int32) ([]chainhash.Hash, error) {
	calls := make([]*call, len(heights))
	for i, h := range heights {
		calls[i] = &call{Method: "getblockhash", Params: []any{h}}
	}
	if err := c.run(ctx, calls, hashesPerBatch); err != nil {
		return nil, err
	}
	out := make([]chainhash.Hash, len(heights))
	for i, cl := range calls {
		subject := fmt.Sprint(heights[i])
		if cl.Err != nil {
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		h, err := hashResult(cl.Result)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		out[i] = h
	}
	return out, nil
}

// Header returns the header of block hash.
func (c *Client) Header(ctx context.Context, hash chainhash.Hash) (wire.BlockHeader, error) {
	hs, err := c.Headers(ctx, []chainhash.Hash{hash})
	if err != nil {
		return wire.BlockHeader{}, err
	}
	return hs[0], nil
}

// Headers returns the headers of the given blocks (getblockheader <hash>
// false: the raw 80 bytes, which both nodes answer).
func (c *Client) Headers(ctx context.Context, hashes []chainhash.Hash) ([]wire.BlockHeader, error) {
	calls := make([]*call, len(hashes))
	for i, h := range hashes {
		calls[i] = &call{Method: "getblockheader",
			Params: []any{h.String(), false}}
	}
	if err := c.run(ctx, calls, headersPerBatch); err != nil {
		return nil, err
	}
	out := make([]wire.BlockHeader, len(hashes))
	for i, cl := range calls {
		subject := hashes[i].String()
		if cl.Err != nil {
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		raw, err := decodeHexResult(cl.Result, headerBytes)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		if out[i], err = DecodeHeader(raw, hashes[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Block returns block hash.
func (c *Client) Block(ctx context.Context, hash chainhash.Hash) (*Block, error) {
	bs, err := c.Blocks(ctx, []chainhash.Hash{hash})
	if err != nil {
		return nil, err
	}
	return bs[0], nil
}

// Blocks returns the given blocks (getblock <hash> 0), decoded and checked.
func (c *Client) Blocks(ctx context.Context, hashes []chainhash.Hash) ([]*Block, error) {
	calls := make([]*call, len(hashes))
	for i, h := range hashes {
		calls[i] = &call{Method: "getblock", Params: []any{h.String(), 0}}
	}
	if err := c.run(ctx, calls, blocksPerBatch); err != nil {
		return nil, err
	}
	out := make([]*Block, len(hashes))
	for i, cl := range calls {
		subject := hashes[i].String()
		if cl.Err != nil {
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		raw, err := decodeHexResult(cl.Result, MaxBlockBytes)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		cl.Result = nil
		if out[i], err = DecodeBlock(raw, hashes[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Filters returns the basic filters of the given blocks: btcd's getcfilter
// <hash> 0, bitcoind's getblockfilter <hash> basic.
func (c *Client) Filters(ctx context.Context, hashes []chainhash.Hash) ([]*Filter, error) {
	calls := make([]*call, len(hashes))
	for i, h := range hashes {
		if c.kind == KindBtcd {
			calls[i] = &call{Method: "getcfilter",
				Params: []any{h.String(), 0}}
		} else {
			calls[i] = &call{Method: "getblockfilter",
				Params: []any{h.String(), "basic"}}
		}
	}
	if err := c.run(ctx, calls, filtersPerBatch); err != nil {
		return nil, err
	}
	out := make([]*Filter, len(hashes))
	for i, cl := range calls {
		subject := hashes[i].String()
		if cl.Err != nil {
			return nil, c.callErr(cl.Method, subject, cl.Err)
		}
		field := cl.Result
		if c.kind == KindBitcoind {
			var res struct {
				Filter json.RawMessage `json:"filter"`
			}
			if err := json.Unmarshal(cl.Result, &res); err != nil ||
				res.Filter == nil {
				return nil, c.resultErr(cl.Method, subject,
					cl.Result, err)
			}
			field = res.Filter
		}
		raw, err := decodeHexResult(field, MaxFilterBytes)
		if err != nil {
			return nil, c.resultErr(cl.Method, subject, cl.Result, err)
		}
		if len(raw) == 0 {
			// btcd answers an empty string for a block it does
			// not know; a filter has at least its element count.
			return nil, chainErr(ErrNotFound, fmt.Sprintf(
				"%s: %s %s: no filter", c.c.name, cl.Method,
				subject), nil)
		}
		if out[i], err = decodeFilter(raw, hashes[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TxOut returns the unspent output op (gettxout), nil when it is unknown
// or spent.
func (c *Client) TxOut(ctx context.Context, op wire.OutPoint, mempool bool) (*TxOut, error) {
	params := []any{op.Hash.String(), op.Index}
	if !mempool {
		// Both nodes look into the mempool unless told not to.
		params = append(params, false)
	}
	cl := &call{Method: "gettxout", Params: params}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return nil, err
	}
	subject := op.String()
	if cl.Err != nil {
		return nil, c.callErr(cl.Method, subject, cl.Err)
	}
	if bytes.Equal(bytes.TrimSpace(cl.Result), []byte("null")) ||
		len(cl.Result) == 0 {
		return nil, nil
	}
	var res struct {
		BestBlock     string      `json:"bestblock"`
		Confirmations int64       `json:"confirmations"`
		Value         json.Number `json:"value"`
		ScriptPubKey  struct {
			Hex string `json:"hex"`
		} `json:"scriptPubKey"`
		Coinbase bool `json:"coinbase"`
	}
	dec := json.NewDecoder(bytes.NewReader(cl.Result))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		return nil, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	best, err := chainhash.NewHashFromStr(res.BestBlock)
	if err != nil {
		return nil, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	value, err := satoshis(res.Value)
	if err != nil {
		return nil, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	script, err := hex.DecodeString(res.ScriptPubKey.Hex)
	if err != nil {
		return nil, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	return &TxOut{BestBlock: *best, Confirmations: res.Confirmations,
		Value: value, PkScript: script, Coinbase: res.Coinbase}, nil
}

// SendRawTransaction submits tx and returns its id. A rejection is ErrRPC
// wrapping the backend's *RPCError.
func (c *Client) SendRawTransaction(ctx context.Context, tx *wire.MsgTx) (chainhash.Hash, error) {
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		return chainhash.Hash{}, err
	}
	return c.sendRawHex(ctx, hex.EncodeToString(buf.Bytes()),
		tx.TxHash().String())
}

// sendRawHex submits a transaction in hex; subject names it in errors.
func (c *Client) sendRawHex(ctx context.Context, txHex, subject string) (chainhash.Hash, error) {
	cl := &call{Method: "sendrawtransaction", Params: []any{txHex}}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		return chainhash.Hash{}, err
	}
	if cl.Err != nil {
		return chainhash.Hash{}, c.callErr(cl.Method, subject, cl.Err)
	}
	h, err := hashResult(cl.Result)
	if err != nil {
		return chainhash.Hash{}, c.resultErr(cl.Method, subject, cl.Result, err)
	}
	return h, nil
}
