package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"
	"github.com/jackc/pgx/v5"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/pgtest"
	"github.com/descwallet/descwallet/internal/testenv"
)

// blockGate is a TCP proxy to btcd that, once armed, forwards a number of
// getblock calls and then holds every request without forwarding it, so
// that a node's rescan stops in the middle, where the test kills it.
type blockGate struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	armed  bool
	budget int // getblock calls still forwarded while armed
	held   bool
	conns  []net.Conn
}

func newBlockGate(t *testing.T, target string) *blockGate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &blockGate{ln: ln, target: target}
	t.Cleanup(func() {
		ln.Close()
		g.mu.Lock()
		for _, c := range g.conns {
			c.Close()
		}
		g.mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(c)
		}
	}()
	return g
}

func (g *blockGate) addr() string { return g.ln.Addr().String() }

// arm lets budget more getblock calls through, then holds.
func (g *blockGate) arm(budget int) {
	g.mu.Lock()
	g.armed, g.budget = true, budget
	g.mu.Unlock()
}

// holding reports whether the budget is spent.
func (g *blockGate) holding() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// pass reports whether a request chunk may go on, spending the budget.
func (g *blockGate) pass(chunk []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held {
		return false
	}
	if g.armed {
		g.budget -= bytes.Count(chunk, []byte(`"getblock"`))
		if g.budget < 0 {
			g.held = true
			return false
		}
	}
	return true
}

func (g *blockGate) serve(c net.Conn) {
	up, err := net.Dial("tcp", g.target)
	if err != nil {
		c.Close()
		return
	}
	g.mu.Lock()
	g.conns = append(g.conns, c, up)
	g.mu.Unlock()
	go func() { io.Copy(c, up); c.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if !g.pass(buf[:n]) {
				// Held: nothing more goes through this connection.
				io.Copy(io.Discard, c)
				break
			}
			if _, err := up.Write(buf[:n]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	up.Close()
}

// withoutTimeReceived drops the "timereceived" fields of a list of
// transactions: the time a node first saw a transaction is the wall clock
// of its scan, which differs between two runs.
func withoutTimeReceived(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var list []map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return raw
	}
	for _, e := range list {
		delete(e, "timereceived")
	}
	out, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// leaderEpoch reads the epoch of the chain leadership of regtest (0 when
// nobody led yet).
func leaderEpoch(t *testing.T, dsn string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var epoch int64
	err = conn.QueryRow(ctx, "SELECT epoch FROM chain_leaders WHERE name = $1", "descwallet chain follower regtest").Scan(&epoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return epoch
}

// TestMultiNodeLeader runs two daemons with -walletdbshared on one btcd
// and one database, the first started leading the chain:
//   - right after a block the leader processed, the other node answers
//     getbalances, listtransactions and gettransaction as the leader does;
//   - a rescanblockchain on the leader is killed (kill -9) in its middle:
//     the other node takes the leadership over within 10 s, finishes the
//     rescan from the database's record, and the wallet's transactions,
//     unspent outputs and balances then equal those of an uninterrupted
//     rescan on a single node.
func TestMultiNodeLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd, PostgreSQL and three daemons")
	}
	t.Parallel()
	dsn := pgtest.DSN(t)
	b := testenv.StartBtcd(t, nil)
	const tprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	histDesc := descriptor.AddChecksum("wpkh(" + tprv + "/21/*)")
	payDesc := descriptor.AddChecksum("wpkh(" + tprv + "/22/*)")
	oldDesc := descriptor.AddChecksum("wpkh(" + tprv + "/23/*)")

	// History: payments to the descriptor spread over some 300 blocks,
	// made before any wallet knows it (a rescan finds them).
	ref := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + b.RPCAddr, "-chainrpcuser=" + b.User, "-chainrpcpassword=" + b.Pass, "-chainpoll=200"}})
	call := func(c *testenv.Client, out any, method string, params ...any) {
		t.Helper()
		if err := c.CallResult(out, method, params...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	const payments = 16
	var addrs []string
	call(ref.Client, &addrs, "deriveaddresses", histDesc, []int{0, payments - 1})
	pay := func(addr string, value int64) {
		t.Helper()
		spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			t.Fatal(err)
		}
		b.Fund(wire.NewTxOut(value, spk))
	}
	var oldAddrs []string
	call(ref.Client, &oldAddrs, "deriveaddresses", oldDesc, []int{0, 3})
	for i, a := range addrs {
		pay(a, int64(100_000*(i+1)))
		if i%4 == 0 {
			pay(oldAddrs[i/4], 1_000_000)
		}
		b.Generate(18)
	}

	// Node A leads (it starts first and its backend goes through the
	// gate); node B waits.
	g := newBlockGate(t, b.RPCAddr)
	args := func(backend string) []string {
		return []string{"-chainbackend=btcd", "-chainrpcconnect=" + backend, "-chainrpcuser=" + b.User,
			"-chainrpcpassword=" + b.Pass, "-walletdb=" + dsn, "-walletdbshared", "-chainpoll=200"}
	}
	na := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args(g.addr())})
	testenv.Eventually(t, 20*time.Second, func() error {
		if leaderEpoch(t, dsn) == 0 {
			return errors.New("no leader yet")
		}
		return nil
	})
	epochA := leaderEpoch(t, dsn)
	nb := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: t.TempDir(), Args: args(b.RPCAddr)})
	wc := func(d *testenv.Daemon, w string) *testenv.Client {
		return &testenv.Client{URL: d.URL + "wallet/" + w, User: d.Client.User, Pass: d.Client.Pass}
	}
	var ignore json.RawMessage
	importDesc := func(c *testenv.Client, desc string, ts any) {
		t.Helper()
		var res []struct {
			Success bool `json:"success"`
		}
		call(c, &res, "importdescriptors", []map[string]any{{"desc": desc, "timestamp": ts, "range": []int{0, payments + 4}}})
		if len(res) != 1 || !res[0].Success {
			t.Fatalf("importdescriptors %+v", res)
		}
	}
	same := func(what string, ca, cb *testenv.Client, method string, params ...any) {
		t.Helper()
		ra, err := ca.Call(method, params...)
		if err != nil {
			t.Fatalf("%s %s: %v", what, method, err)
		}
		rb, err := cb.Call(method, params...)
		if err != nil {
			t.Fatalf("%s %s: %v", what, method, err)
		}
		ra, rb = withoutTimeReceived(t, ra), withoutTimeReceived(t, rb)
		if !bytes.Equal(ra, rb) {
			t.Fatalf("%s: %s differs:\n%s\n%s", what, method, ra, rb)
		}
	}

	// A block the leader processed is answered by the other node at once.
	call(na.Client, &ignore, "createwallet", "pay", false, true)
	importDesc(wc(na, "pay"), payDesc, "now")
	var res []struct {
		Success bool `json:"success"`
	}
	changeDesc := descriptor.AddChecksum("wpkh(" + tprv + "/24/*)")
	call(wc(na, "pay"), &res, "importdescriptors", []map[string]any{{"desc": changeDesc, "timestamp": "now",
		"active": true, "internal": true}})
	if len(res) != 1 || !res[0].Success {
		t.Fatalf("importdescriptors of the change descriptor: %+v", res)
	}
	call(nb.Client, &ignore, "loadwallet", "pay")
	var payAddrs []string
	call(ref.Client, &payAddrs, "deriveaddresses", payDesc, []int{3, 3})
	pay(payAddrs[0], 250_000)
	b.Generate(1)
	var txs []struct {
		TxID          string `json:"txid"`
		Confirmations int    `json:"confirmations"`
	}
	testenv.Eventually(t, 20*time.Second, func() error {
		txs = nil
		if err := wc(na, "pay").CallResult(&txs, "listtransactions"); err != nil {
			return err
		}
		if len(txs) != 1 || txs[0].Confirmations != 1 {
			return fmt.Errorf("leader's transactions: %+v", txs)
		}
		return nil
	})
	same("non-leader after a block", wc(na, "pay"), wc(nb, "pay"), "getbalances")
	same("non-leader after a block", wc(na, "pay"), wc(nb, "pay"), "listtransactions")
	same("non-leader after a block", wc(na, "pay"), wc(nb, "pay"), "gettransaction", txs[0].TxID)
	same("non-leader after a block", wc(na, "pay"), wc(nb, "pay"), "listunspent")

	// An import with a timestamp on the node that does not lead is
	// rescanned by the leader, and the call returns once it is done.
	importDesc(wc(nb, "pay"), oldDesc, 0)
	var got []json.RawMessage
	call(wc(nb, "pay"), &got, "listtransactions", "*", 100)
	if len(got) != 5 {
		t.Fatalf("after an import on the node that does not lead: %d transactions, want 5", len(got))
	}
	same("after an import on the node that does not lead", wc(na, "pay"), wc(nb, "pay"), "listtransactions", "*", 100)

	// Sends from both nodes at once never spend the same coin.
	const sends = 8
	var dest []string
	call(ref.Client, &dest, "deriveaddresses", descriptor.AddChecksum("wpkh("+tprv+"/25/*)"), []int{0, 0})
	sent := make(chan string, sends)
	var wg sync.WaitGroup
	for i := range sends {
		c := wc(na, "pay")
		if i%2 == 1 {
			c = wc(nb, "pay")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var txid string
			if err := c.CallResult(&txid, "sendtoaddress", dest[0], 0.003); err != nil {
				t.Errorf("sendtoaddress %d: %v", i, err)
				return
			}
			sent <- txid
		}()
	}
	wg.Wait()
	close(sent)
	spentBy := map[wire.OutPoint]string{}
	for txid := range sent {
		var tx struct {
			Hex string `json:"hex"`
		}
		call(wc(nb, "pay"), &tx, "gettransaction", txid)
		for _, in := range testenv.DecodeTx(t, tx.Hex).TxIn {
			if other, ok := spentBy[in.PreviousOutPoint]; ok {
				t.Fatalf("%s and %s both spend %v", other, txid, in.PreviousOutPoint)
			}
			spentBy[in.PreviousOutPoint] = txid
		}
		if !b.InMempool(txid) {
			t.Fatalf("send %s is not in btcd's mempool", txid)
		}
	}

	// The leader's rescan is killed in its middle.
	call(na.Client, &ignore, "createwallet", "hist", false, true)
	importDesc(wc(na, "hist"), histDesc, "now")
	call(nb.Client, &ignore, "loadwallet", "hist")
	g.arm(6)
	rescanDone := make(chan error, 1)
	go func() {
		_, err := wc(na, "hist").Call("rescanblockchain", 0)
		rescanDone <- err
	}()
	testenv.Eventually(t, 30*time.Second, func() error {
		if !g.holding() {
			return errors.New("the rescan has not fetched its blocks yet")
		}
		return nil
	})
	// The blocks let through are processed, the rest hangs.
	time.Sleep(500 * time.Millisecond)
	select {
	case err := <-rescanDone:
		t.Fatalf("the rescan ended before the kill: %v", err)
	default:
	}
	// What the leader wrote so far is what the other node shows.
	var partial []json.RawMessage
	call(wc(nb, "hist"), &partial, "listtransactions", "*", 100)
	if len(partial) >= payments {
		t.Fatalf("%d transactions before the kill: the rescan was not interrupted", len(partial))
	}
	t.Logf("%d of %d transactions found when the leader is killed", len(partial), payments)
	na.Kill()
	killed := time.Now()
	testenv.Eventually(t, 10*time.Second, func() error {
		if e := leaderEpoch(t, dsn); e == epochA {
			return errors.New("no takeover yet")
		}
		return nil
	})
	t.Logf("takeover %v after the kill", time.Since(killed).Round(time.Millisecond))
	testenv.Eventually(t, 30*time.Second, func() error {
		var info struct {
			Scanning any `json:"scanning"`
		}
		if err := wc(nb, "hist").CallResult(&info, "getwalletinfo"); err != nil {
			return err
		}
		var got []json.RawMessage
		if err := wc(nb, "hist").CallResult(&got, "listtransactions", "*", 100); err != nil {
			return err
		}
		if len(got) != payments || info.Scanning != false {
			return fmt.Errorf("%d transactions, scanning %v", len(got), info.Scanning)
		}
		return nil
	})
	t.Logf("rescan finished %v after the kill", time.Since(killed).Round(time.Millisecond))

	// The same rescan, uninterrupted, on a single node.
	call(ref.Client, &ignore, "createwallet", "hist", false, true)
	importDesc(wc(ref, "hist"), histDesc, "now")
	call(wc(ref, "hist"), &ignore, "rescanblockchain", 0)
	tip := b.GetBlockCount()
	for _, c := range []*testenv.Client{wc(nb, "hist"), wc(ref, "hist")} {
		testenv.Eventually(t, 20*time.Second, func() error {
			var info struct {
				Last struct {
					Height int64 `json:"height"`
				} `json:"lastprocessedblock"`
			}
			if err := c.CallResult(&info, "getwalletinfo"); err != nil {
				return err
			}
			if info.Last.Height != tip {
				return fmt.Errorf("at %d, tip %d", info.Last.Height, tip)
			}
			return nil
		})
	}
	same("after the takeover", wc(ref, "hist"), wc(nb, "hist"), "listtransactions", "*", 100)
	same("after the takeover", wc(ref, "hist"), wc(nb, "hist"), "listunspent")
	same("after the takeover", wc(ref, "hist"), wc(nb, "hist"), "getbalances")
}

// TestExclusiveMethodsExist: every call serialized among the nodes of a
// shared wallet names a method of the table.
func TestExclusiveMethodsExist(t *testing.T) {
	names := map[string]bool{}
	for _, m := range All(&Deps{}) {
		names[m.Name] = true
	}
	for name := range exclusiveMethods {
		if !names[name] {
			t.Errorf("%s is not a method", name)
		}
	}
}
