package chain

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// headerNode is a fake node serving getblockhash and getblockheader
// <hash> false over a block tree whose best chain the test sets, and
// counting the calls it answers.
type headerNode struct {
	mu      sync.Mutex
	headers map[chainhash.Hash]wire.BlockHeader
	best    []chainhash.Hash
	calls   int
}

// extend mines n blocks of bits on top of parent (nil: a new genesis) and
// returns their hashes; salt makes branches differ.
func (n *headerNode) extend(parent *chainhash.Hash, count int, bits uint32, salt uint32) []chainhash.Hash {
	n.mu.Lock()
	defer n.mu.Unlock()
	var prev chainhash.Hash
	if parent != nil {
		prev = *parent
	}
	var out []chainhash.Hash
	for i := 0; i < count; i++ {
		h := wire.BlockHeader{Version: 1, PrevBlock: prev, Bits: bits, Nonce: salt<<16 | uint32(i),
			Timestamp: time.Unix(1_600_000_000+int64(i), 0)}
		hash := h.BlockHash()
		n.headers[hash] = h
		out = append(out, hash)
		prev = hash
	}
	return out
}

func (n *headerNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var reqs []struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
	if !batch {
		body = append(append([]byte("["), body...), ']')
	}
	json.Unmarshal(body, &reqs)
	n.mu.Lock()
	defer n.mu.Unlock()
	var replies []string
	for _, q := range reqs {
		n.calls++
		res, errObj := "null", "null"
		switch q.Method {
		case "getblockhash":
			var h int
			json.Unmarshal(q.Params[0], &h)
			if h < 0 || h >= len(n.best) {
				errObj = `{"code":-1,"message":"Block number out of range"}`
			} else {
				res = `"` + n.best[h].String() + `"`
			}
		case "getblockheader":
			var s string
			json.Unmarshal(q.Params[0], &s)
			hash, _ := chainhash.NewHashFromStr(s)
			hdr, ok := n.headers[*hash]
			if !ok {
				errObj = `{"code":-5,"message":"Block not found"}`
			} else {
				var b bytes.Buffer
				hdr.Serialize(&b)
				res = `"` + hex.EncodeToString(b.Bytes()) + `"`
			}
		}
		replies = append(replies, fmt.Sprintf(`{"result":%s,"error":%s,"id":%s}`, res, errObj, q.ID))
	}
	out := strings.Join(replies, ",")
	if batch {
		out = "[" + out + "]"
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, out)
}

// TestChainWork checks ChainWork against sums of per-block work: along the
// best chain (read once, then from the cache), for a block of a side
// branch, and after a reorganization replaced the top of the cached chain
// with a branch of greater work.
func TestChainWork(t *testing.T) {
	n := &headerNode{headers: map[chainhash.Hash]wire.BlockHeader{}}
	const easy, hard = 0x207fffff, 0x1f7fffff // work 2 and 512
	main := n.extend(nil, 300, easy, 0)
	n.best = main
	srv := httptest.NewServer(n)
	defer srv.Close()
	c, err := New(Config{Kind: KindBtcd, Net: &chaincfg.RegressionNetParams,
		Host: strings.TrimPrefix(srv.URL, "http://"), User: "u", Password: "p", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := func(w int64) *big.Int { return big.NewInt(w) }
	check := func(what string, hash chainhash.Hash, height int32, w *big.Int) {
		t.Helper()
		got, err := c.ChainWork(ctx, hash, height)
		if err != nil || got.Cmp(w) != 0 {
			t.Fatalf("%s: chainwork %v (%v), want %v", what, got, err, w)
		}
	}
	if calcWork(easy).Int64() != 2 || calcWork(hard).Int64() != 512 {
		t.Fatalf("calcWork: %v %v", calcWork(easy), calcWork(hard))
	}
	check("tip", main[299], 299, want(600))
	before := n.calls
	check("cached", main[150], 150, want(302))
	if n.calls-before > 1 {
		t.Errorf("cached lookup made %d calls", n.calls-before)
	}

	// A side branch of three blocks off height 250.
	side := n.extend(&main[250], 3, easy, 1)
	check("side block", side[2], 253, want(2*251+6))

	// Reorganization: from height 280 a heavier branch becomes best.
	branch := n.extend(&main[279], 10, hard, 2)
	n.best = append(append([]chainhash.Hash(nil), main[:280]...), branch...)
	check("new tip", branch[9], 289, want(2*280+512*10))
	check("old tip, now a side block", main[299], 299, want(600))
	check("below the fork", main[100], 100, want(202))
	if _, err := c.ChainWork(ctx, chainhash.Hash{1}, 5); err == nil {
		t.Error("unknown block: no error")
	}
}
