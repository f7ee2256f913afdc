package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// TestAppendUnspentMatchesEncodingJSON holds listunspent's direct writer
// equal to the server's generic path (encoding/json, then Core's output
// form) on random entries, labels with quotes, control characters, DEL and
// non-ASCII text included.
func TestAppendUnspentMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(opts ...string) string { return opts[rng.IntN(len(opts))] }
	str := func() string {
		return pick("", "a", `q"uote`, "back\\slash", "tab\there", "nl\n", "\x7f", "\x01\x1f", "é€😀", "<html>&", "/")
	}
	i64 := func() *int64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		v := rng.Int64N(1 << 40)
		return &v
	}
	entries := make([]unspentEntry, 300)
	for i := range entries {
		e := unspentEntry{TxID: pick("00ff", "ab"), Vout: rng.Uint32(), Address: str(), RedeemScript: str(),
			WitnessScript: str(), ScriptPubKey: str(), Amount: rpc.Amount(rng.Int64N(21e14) - 1e14),
			Confirmations: rng.Int64N(1000), AncestorCount: i64(), AncestorSize: i64(), AncestorFees: i64(),
			Spendable: rng.IntN(2) == 0, Solvable: rng.IntN(2) == 0, Desc: str(), Safe: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			l := str()
			e.Label = &l
		}
		for k := rng.IntN(3); k > 0; k-- {
			e.ParentDescs = append(e.ParentDescs, str())
		}
		e.ParentDescs = nonNil(e.ParentDescs)
		if rng.IntN(2) == 0 {
			r := rng.IntN(2) == 0
			e.Reused = &r
		}
		entries[i] = e
	}
	for _, n := range []int{0, 1, len(entries)} {
		list := entries[:n]
		method := func(name string, res func() any) *rpc.Method {
			return &rpc.Method{Name: name, Category: "test", Description: "test",
				Handler: func(context.Context, *rpc.Request) (any, error) { return res(), nil }}
		}
		auth := rpc.NewAuthenticator()
		auth.AddPassword("u", "p")
		s, err := rpc.NewServer(rpc.Config{Auth: auth, Methods: []*rpc.Method{
			method("generic", func() any { return list }),
			method("direct", func() any { return rpc.CanonicalJSON(appendUnspent(nil, list)) }),
		}})
		if err != nil {
			t.Fatal(err)
		}
		body := func(m string) string {
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"id":1,"method":"`+m+`","params":[]}`))
			req.SetBasicAuth("u", "p")
			req.RemoteAddr = "127.0.0.1:5000"
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			return w.Body.String()
		}
		if g, d := body("generic"), body("direct"); g != d {
			t.Fatalf("%d entries: direct writer differs\n generic %.300s\n direct  %.300s", n, g, d)
		}
	}
}

// Field orders of spend-result-shapes.md (recorded from Bitcoin Core
// master): listunspent's entry of a labelled receive address and of a
// change output (no address-book entry), and getbalances.
var (
	shapeUnspentLabel  = "`txid`, `vout`, `address`, `label`, `scriptPubKey`, `amount`, `confirmations`, `spendable`, `solvable`, `desc`, `parent_descs`, `safe`"
	shapeUnspentChange = "`txid`, `vout`, `address`, `scriptPubKey`, `amount`, `confirmations`, `spendable`, `solvable`, `desc`, `parent_descs`, `safe`"
	// shapeUnspentMempool is the entry of an output in the mempool; the
	// btcd acceptance test checks it.
	shapeUnspentMempool = "`txid`, `vout`, `address`, `scriptPubKey`, `amount`, `confirmations`, `ancestorcount`, `ancestorsize`, `ancestorfees`, `spendable`, `solvable`, `desc`, `parent_descs`, `safe`"
	shapeBalances       = "- `mine`: object\n  - `trusted`: number\n  - `untrusted_pending`: number\n  - `immature`: number\n- `lastprocessedblock`: object\n  - `hash`: string\n  - `height`: int"
)

func shapeList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ", ") {
		out = append(out, strings.Trim(f, "`"))
	}
	return out
}

// TestShapesMatchSpec checks that the field orders these tests hold
// replies to are the recorded ones, when the shared spec is present.
func TestShapesMatchSpec(t *testing.T) {
	root, ok := testvec.SharedRoot()
	if !ok {
		t.Log("no shared folder: the orders above stand as copied")
		return
	}
	spec, err := os.ReadFile(filepath.Join(root, "..", "spec", "spend-result-shapes.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{shapeUnspentLabel, shapeUnspentChange, shapeUnspentMempool, shapeBalances} {
		if !bytes.Contains(spec, []byte(s)) {
			t.Errorf("spend-result-shapes.md has no %q", s)
		}
	}
}

// TestListUnspentAndBalancesShape checks the field order and presence of
// listunspent's entries (a labelled receive address, a change address)
// and of getbalances against the recorded shapes.
func TestListUnspentAndBalancesShape(t *testing.T) {
	bw := newBenchWallet(t, 0, 0)
	defer bw.n.mgr.Close()
	addrOf := func(method string) []byte {
		var a string
		r := bw.n.call(t, "/wallet/w", method, json.RawMessage(`[]`))
		if r.Error != nil || json.Unmarshal(r.Result, &a) != nil {
			t.Fatalf("%s: %s", method, r.Result)
		}
		s, err := address.Decode(a, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	recv, change := addrOf("getnewaddress"), addrOf("getrawchangeaddress")
	tx := bw.fundingTx()
	tx.AddTxOut(wire.NewTxOut(150_000, recv))
	tx.AddTxOut(wire.NewTxOut(250_000, change))
	bw.block(t, []*wire.MsgTx{tx})
	bw.emptyBlocks(t, 1)

	r := bw.n.call(t, "/wallet/w", "listunspent", json.RawMessage(`[]`))
	var entries []json.RawMessage
	if r.Error != nil || json.Unmarshal(r.Result, &entries) != nil || len(entries) != 2 {
		t.Fatalf("listunspent: %s", r.Result)
	}
	for i, want := range []string{shapeUnspentLabel, shapeUnspentChange} {
		if got := objectKeys(t, entries[i]); strings.Join(got, ",") != strings.Join(shapeList(want), ",") {
			t.Errorf("entry %d: fields %v, want %v", i, got, shapeList(want))
		}
	}
	r = bw.n.call(t, "/wallet/w", "getbalances", json.RawMessage(`[]`))
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var res struct {
		Mine, LastProcessedBlock json.RawMessage
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	checkKeys := func(raw json.RawMessage, want ...string) {
		t.Helper()
		if got := objectKeys(t, raw); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("fields %v, want %v", got, want)
		}
	}
	checkKeys(r.Result, "mine", "lastprocessedblock")
	checkKeys(res.Mine, "trusted", "untrusted_pending", "immature")
	checkKeys(res.LastProcessedBlock, "hash", "height")
	if !strings.Contains(string(res.Mine), `"trusted":0.00400000`) {
		t.Errorf("mine %s, want trusted 0.004", res.Mine)
	}
}
