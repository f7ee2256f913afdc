package chain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/descwallet/descwallet/internal/testvec"
)

// backendCase is one recorded exchange of bitcoind_backend.json.
type backendCase struct {
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
	HTTPStatus int             `json:"http_status"`
	Reply      json.RawMessage `json:"reply"`
	Note       string          `json:"note"`
}

// recordedNode serves the recorded replies of a real bitcoind and keeps the
// requests it received. A request the recording does not hold fails the
// test: the client must send exactly the calls the recording documents.
type recordedNode struct {
	t     *testing.T
	cases map[string]backendCase

	mu       sync.Mutex
	requests []string // "method params", in arrival order
	posts    int      // HTTP requests
	override map[string]json.RawMessage
	password string
}

// canon returns the key of a method and its params.
func canon(t *testing.T, method string, params json.RawMessage) string {
	var v any
	if len(params) == 0 {
		params = []byte("[]")
	}
	if err := json.Unmarshal(params, &v); err != nil {
		t.Fatalf("params %s: %v", params, err)
	}
	b, _ := json.Marshal(v)
	return method + " " + string(b)
}

func newRecordedNode(t *testing.T) (*recordedNode, []backendCase) {
	var file struct {
		Cases []backendCase `json:"cases"`
	}
	testvec.Load(t, "bitcoind_backend.json", &file)
	n := &recordedNode{t: t, cases: map[string]backendCase{},
		override: map[string]json.RawMessage{}, password: "pass"}
	for _, c := range file.Cases {
		n.cases[canon(t, c.Method, c.Params)] = c
	}
	return n, file.Cases
}

// answer returns the reply object and HTTP status for one request.
func (n *recordedNode) answer(req map[string]json.RawMessage) (json.RawMessage, int) {
	var method string
	json.Unmarshal(req["method"], &method)
	key := canon(n.t, method, req["params"])
	n.mu.Lock()
	n.requests = append(n.requests, key)
	over, isOver := n.override[key]
	n.mu.Unlock()
	var obj map[string]json.RawMessage
	status := http.StatusOK
	if isOver {
		json.Unmarshal(over, &obj)
		status = http.StatusInternalServerError
	} else {
		c, ok := n.cases[key]
		if !ok {
			n.t.Errorf("request not in the recording: %s", key)
			return json.RawMessage(`{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":null}`), 404
		}
		json.Unmarshal(c.Reply, &obj)
		status = c.HTTPStatus
	}
	obj["id"] = req["id"]
	b, _ := json.Marshal(obj)
	return b, status
}

func (n *recordedNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	n.posts++
	pass := n.password
	n.mu.Unlock()
	if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != pass {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		var reqs []map[string]json.RawMessage
		if err := json.Unmarshal(body, &reqs); err != nil {
			n.t.Errorf("batch: %v", err)
		}
		var out []json.RawMessage
		for _, q := range reqs {
			b, _ := n.answer(q)
			out = append(out, b)
		}
		b, _ := json.Marshal(out)
		w.Write(b)
		return
	}
	var q map[string]json.RawMessage
	if err := json.Unmarshal(body, &q); err != nil {
		n.t.Errorf("request: %v", err)
	}
	b, status := n.answer(q)
	w.WriteHeader(status)
	w.Write(b)
}

// take returns and forgets the requests received so far.
func (n *recordedNode) take() ([]string, int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r, p := n.requests, n.posts
	n.requests, n.posts = nil, 0
	return r, p
}

func startRecorded(t *testing.T) (*recordedNode, []backendCase, *Client) {
	n, cases := newRecordedNode(t)
	srv := httptest.NewServer(n)
	t.Cleanup(srv.Close)
	c, err := New(Config{Kind: KindBitcoind, Net: &chaincfg.RegressionNetParams,
		Host: strings.TrimPrefix(srv.URL, "http://"), User: "user",
		Password: "pass", RetryPause: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return n, cases, c
}

// result decodes the result of the recorded case method params.
func result(t *testing.T, cases []backendCase, method, params string, out any) {
	t.Helper()
	for _, c := range cases {
		if canon(t, c.Method, c.Params) == canon(t, method, json.RawMessage(params)) {
			var r struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(c.Reply, &r); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(r.Result, out); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no recorded %s %s", method, params)
}

func wantRequests(t *testing.T, n *recordedNode, posts int, want ...string) {
	t.Helper()
	got, p := n.take()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"),
			strings.Join(want, "\n"))
	}
	if posts >= 0 && p != posts {
		t.Errorf("%d HTTP requests, want %d", p, posts)
	}
}

func mustHash(t *testing.T, s string) chainhash.Hash {
	h, err := chainhash.NewHashFromStr(s)
	if err != nil {
		t.Fatal(err)
	}
	return *h
}

// TestBitcoindContract replays the recorded bitcoind replies to every call
// the client makes and checks the requests it sends and what it makes of
// each reply.
func TestBitcoindContract(t *testing.T) {
	n, cases, c := startRecorded(t)
	ctx := context.Background()

	var info struct {
		Blocks        int32  `json:"blocks"`
		BestBlockHash string `json:"bestblockhash"`
	}
	result(t, cases, "getblockchaininfo", `[]`, &info)
	tip, err := c.Tip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tip.Height != info.Blocks || tip.Hash.String() != info.BestBlockHash {
		t.Errorf("tip %d %s, want %d %s", tip.Height, tip.Hash,
			info.Blocks, info.BestBlockHash)
	}
	wantRequests(t, n, 1, `getblockchaininfo []`)

	if err := c.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	wantRequests(t, n, 1, `getblockhash [0]`)

	heights := []int32{0, 1, tip.Height}
	hashes, err := c.BlockHashes(ctx, heights)
	if err != nil {
		t.Fatal(err)
	}
	wantRequests(t, n, 1, `getblockhash [0]`, `getblockhash [1]`,
		`getblockhash [111]`)
	if hashes[0] != *chaincfg.RegressionNetParams.GenesisHash ||
		hashes[2] != tip.Hash {
		t.Errorf("hashes %v", hashes)
	}
	for _, h := range []int32{tip.Height + 1, -1} {
		_, err := c.BlockHash(ctx, h)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("height %d: %v, want ErrNotFound", h, err)
		}
		var re *RPCError
		if !errors.As(err, &re) || re.Code != -8 {
			t.Errorf("height %d: %v, want the RPC error -8", h, err)
		}
	}
	n.take()

	headers, err := c.Headers(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	var hreq []string
	for _, h := range hashes {
		hreq = append(hreq, `getblockheader ["`+h.String()+`",false]`)
	}
	wantRequests(t, n, 1, hreq...)
	for i, h := range hashes {
		var verbose struct {
			Time     int64  `json:"time"`
			Previous string `json:"previousblockhash"`
			Merkle   string `json:"merkleroot"`
		}
		result(t, cases, "getblockheader", `["`+h.String()+`",true]`, &verbose)
		hd := headers[i]
		if hd.Timestamp.Unix() != verbose.Time ||
			hd.MerkleRoot.String() != verbose.Merkle {
			t.Errorf("header %d: time %d merkle %s, want %d %s", i,
				hd.Timestamp.Unix(), hd.MerkleRoot, verbose.Time,
				verbose.Merkle)
		}
		if verbose.Previous != "" && hd.PrevBlock.String() != verbose.Previous {
			t.Errorf("header %d: prev %s, want %s", i, hd.PrevBlock,
				verbose.Previous)
		}
	}
	if headers[1].PrevBlock != hashes[0] {
		t.Error("block 1 does not follow the genesis block")
	}

	blocks, err := c.Blocks(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	var breq []string
	for _, h := range hashes {
		breq = append(breq, `getblock ["`+h.String()+`",0]`)
	}
	wantRequests(t, n, 1, breq...)
	var verbose1 struct {
		Tx []string `json:"tx"`
	}
	result(t, cases, "getblock", `["`+tip.Hash.String()+`",1]`, &verbose1)
	last := blocks[2]
	if len(last.TxIDs) != len(verbose1.Tx) {
		t.Fatalf("block %s: %d transactions, want %d", tip.Hash,
			len(last.TxIDs), len(verbose1.Tx))
	}
	for i, id := range last.TxIDs {
		if id.String() != verbose1.Tx[i] {
			t.Errorf("tx %d: %s, want %s", i, id, verbose1.Tx[i])
		}
	}

	filters, err := c.Filters(ctx, hashes)
	if err != nil {
		t.Fatal(err)
	}
	var freq []string
	for _, h := range hashes {
		freq = append(freq, `getblockfilter ["`+h.String()+`","basic"]`)
	}
	wantRequests(t, n, 1, freq...)
	// Every non-OP_RETURN output script of each block is in its filter, and
	// the filter headers chain from the genesis block's.
	for i, f := range filters {
		for _, tx := range blocks[i].Transactions {
			for _, out := range tx.TxOut {
				if len(out.PkScript) == 0 ||
					out.PkScript[0] == txscript.OP_RETURN {
					continue
				}
				ok, err := f.Match(out.PkScript)
				if err != nil || !ok {
					t.Errorf("block %d: filter misses %x (%v)", i,
						out.PkScript, err)
				}
			}
		}
	}
	var fres [2]struct {
		Header string `json:"header"`
	}
	result(t, cases, "getblockfilter", `["`+hashes[0].String()+`","basic"]`, &fres[0])
	result(t, cases, "getblockfilter", `["`+hashes[1].String()+`","basic"]`, &fres[1])
	prev := filterHeader(filters[0].Bytes(), chainhash.Hash{})
	if prev.String() != fres[0].Header {
		t.Errorf("genesis filter header %s, want %s", prev, fres[0].Header)
	}
	if got := filterHeader(filters[1].Bytes(), prev); got.String() != fres[1].Header {
		t.Errorf("block 1 filter header %s, want %s", got, fres[1].Header)
	}

	// Unknown blocks.
	var zero chainhash.Hash
	if _, err := c.Block(ctx, zero); !errors.Is(err, ErrNotFound) {
		t.Errorf("getblock of an unknown block: %v", err)
	}
	if _, err := c.Filters(ctx, []chainhash.Hash{zero}); !errors.Is(err, ErrNotFound) {
		t.Errorf("getblockfilter of an unknown block: %v", err)
	}
	wantRequests(t, n, 2, `getblock ["`+zero.String()+`",0]`,
		`getblockfilter ["`+zero.String()+`","basic"]`)

	// gettxout: an output, then a missing one.
	txid := mustHash(t, "10246aa4bc70fa61fc04aff5d4b68fe82a3dc9b096c0cafbd3f0d0b133910fa1")
	out, err := c.TxOut(ctx, wire.OutPoint{Hash: txid, Index: 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	var txo struct {
		BestBlock     string `json:"bestblock"`
		Confirmations int64  `json:"confirmations"`
		ScriptPubKey  struct {
			Hex string `json:"hex"`
		} `json:"scriptPubKey"`
		Coinbase bool `json:"coinbase"`
	}
	result(t, cases, "gettxout", `["`+txid.String()+`",0]`, &txo)
	if out == nil || out.Value != 150000000 ||
		hex.EncodeToString(out.PkScript) != txo.ScriptPubKey.Hex ||
		out.BestBlock.String() != txo.BestBlock ||
		out.Confirmations != txo.Confirmations || out.Coinbase != txo.Coinbase {
		t.Errorf("gettxout: %+v, want %+v and 1.5 BTC", out, txo)
	}
	out, err = c.TxOut(ctx, wire.OutPoint{Hash: txid, Index: 5}, true)
	if err != nil || out != nil {
		t.Errorf("gettxout of a missing output: %+v, %v", out, err)
	}
	wantRequests(t, n, 2, `gettxout ["`+txid.String()+`",0]`,
		`gettxout ["`+txid.String()+`",5]`)

	// A transaction the node cannot decode, and an unknown method.
	_, err = c.sendRawHex(ctx, "00", "00")
	var re *RPCError
	if !errors.Is(err, ErrRPC) || !errors.As(err, &re) || re.Code != -22 ||
		re.Message != "TX decode failed. Make sure the tx has at least one input." {
		t.Errorf("sendrawtransaction 00: %v", err)
	}
	cl := &call{Method: "nosuchmethod"}
	if err := c.c.do(ctx, []*call{cl}); err != nil {
		t.Fatal(err)
	}
	if cl.Err == nil || cl.Err.Code != -32601 || cl.Err.Message != "Method not found" {
		t.Errorf("unknown method: %+v", cl.Err)
	}
	wantRequests(t, n, 2, `sendrawtransaction ["00"]`, `nosuchmethod []`)
}

// filterHeader is BIP157's filter header: the double SHA-256 of the
// filter's double SHA-256 and the previous header.
func filterHeader(filter []byte, prev chainhash.Hash) chainhash.Hash {
	a := sha256.Sum256(filter)
	fh := sha256.Sum256(a[:])
	b := sha256.Sum256(append(fh[:], prev[:]...))
	return chainhash.Hash(sha256.Sum256(b[:]))
}

// TestBitcoindNoFilterIndex checks that bitcoind's answer without
// -blockfilterindex (Core's message, as its tests assert it) is ErrNoFilters.
func TestBitcoindNoFilterIndex(t *testing.T) {
	n, _, c := startRecorded(t)
	h := *chaincfg.RegressionNetParams.GenesisHash
	n.override[`getblockfilter ["`+h.String()+`","basic"]`] = json.RawMessage(
		`{"result":null,"error":{"code":-1,"message":"Index is not enabled for filtertype basic"}}`)
	_, err := c.Filters(context.Background(), []chainhash.Hash{h})
	if !errors.Is(err, ErrNoFilters) {
		t.Fatalf("got %v, want ErrNoFilters", err)
	}
}

// TestBadReplies checks that replies that do not match the request are
// refused: a block or header under another hash.
func TestBadReplies(t *testing.T) {
	n, _, c := startRecorded(t)
	ctx := context.Background()
	genesis := *chaincfg.RegressionNetParams.GenesisHash
	hashes, err := c.BlockHashes(ctx, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	// Serve block 1 under the genesis hash.
	var one json.RawMessage
	for k, v := range n.cases {
		if k == `getblock ["`+hashes[0].String()+`",0]` {
			one = v.Reply
		}
	}
	n.cases[`getblock ["`+genesis.String()+`",0]`] = backendCase{
		Reply: one, HTTPStatus: 200}
	if _, err := c.Block(ctx, genesis); !errors.Is(err, ErrBadReply) {
		t.Errorf("block under another hash: %v", err)
	}
}

// TestUnreachable checks the error of a backend that does not listen.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := New(Config{Kind: KindBtcd, Net: &chaincfg.RegressionNetParams,
		Host: addr, User: "u", Password: "p", Retries: 2,
		RetryPause: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Tip(context.Background())
	if !errors.Is(err, ErrUnreachable) ||
		!strings.Contains(err.Error(), "btcd at "+addr) ||
		!strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("got %v", err)
	}
}

// TestAuth checks a wrong password and a cookie that changes while the
// client runs.
func TestAuth(t *testing.T) {
	n, _, c := startRecorded(t)
	ctx := context.Background()
	c.c.password = "wrong"
	if _, err := c.Tip(ctx); !errors.Is(err, ErrAuth) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, posts := n.take(); posts != 1 {
		t.Errorf("a 401 was retried: %d requests", posts)
	}

	cookie := filepath.Join(t.TempDir(), ".cookie")
	os.WriteFile(cookie, []byte("user:pass"), 0o600)
	c.c.password, c.c.cookie = "", cookie
	if _, err := c.Tip(ctx); err != nil {
		t.Fatalf("cookie: %v", err)
	}
	n.mu.Lock()
	n.password = "rotated"
	n.mu.Unlock()
	os.WriteFile(cookie, []byte("user:rotated\n"), 0o600)
	if _, err := c.Tip(ctx); err != nil {
		t.Fatalf("rotated cookie: %v", err)
	}
}
