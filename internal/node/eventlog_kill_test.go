package node_test

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// eventKey names an event by what it reports, not by its cursor.
type eventKey struct {
	kind  string
	txid  string
	depth int32
}

// TestEventLogKill kills the daemon (SIGKILL) in the middle of a burst of
// payments (EVENT_PAYMENTS, default 1000, ten outputs per sendmany to three
// shop wallets) while blocks are mined and a consumer follows each wallet's
// log, then restarts it on the same files. After it catches up, each log
// holds exactly one received or sent event per wallet transaction and one
// confirmed event per depth reached (listtransactions' view), none twice,
// cursors increasing; every event the consumer read before the kill is still
// there under the same cursor, and the consumer, resuming from its last
// cursor, has seen every event. make soak runs it with 10 000 payments.
func TestEventLogKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	payments := 1000
	if v := os.Getenv("EVENT_PAYMENTS"); v != "" {
		var err error
		if payments, err = strconv.Atoi(v); err != nil || payments < 10 {
			t.Fatalf("EVENT_PAYMENTS=%q", v)
		}
	}
	const perTx = 10
	batches := payments / perTx
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	killAt := batches/4 + rng.Intn(batches/2+1)
	t.Logf("%d payments in %d transactions, kill after %d (seed %d)", payments, batches, killAt, seed)

	t0 := time.Now()
	phase := func(what string) { t.Logf("%6.1fs %s", time.Since(t0).Seconds(), what) }
	n := testenv.StartBtcd(t, nil)
	args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User,
		"-chainrpcpassword=" + n.Pass, "-chainpoll=100", "-fallbackfee=0.0001"}
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: args})
	shops := []string{"shop0", "shop1", "shop2"}
	names := append([]string{"payer"}, shops...)
	var shopAddrs []string
	for _, name := range names {
		if _, err := d.Call("createwallet", name); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-wallet="+name)
		if name == "payer" {
			continue
		}
		for i := 0; i < 4; i++ {
			var a string
			if err := walletAt(d, name).CallResult(&a, "getnewaddress"); err != nil {
				t.Fatal(err)
			}
			shopAddrs = append(shopAddrs, a)
		}
	}
	// One confirmed coin of the payer per sendmany.
	var payer string
	if err := walletAt(d, "payer").CallResult(&payer, "getnewaddress"); err != nil {
		t.Fatal(err)
	}
	spk, err := address.Decode(payer, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]*wire.TxOut, batches)
	for i := range outs {
		outs[i] = wire.NewTxOut(2_000_000, spk)
	}
	phase("wallets made")
	n.Fund(outs...)
	n.Generate(1)
	waitTips(t, d, names, n.BestBlockHash())
	phase("payer funded")

	// A consumer reads every wallet's log from its last cursor, as a
	// payment processor would, keeping each event it saw.
	type seenEvent struct {
		cursor int64
		key    eventKey
	}
	var mu sync.Mutex
	last := map[string]int64{}
	seen := map[string][]seenEvent{}
	consume := func(d *testenv.Daemon) error {
		for _, name := range names {
			mu.Lock()
			after := last[name]
			mu.Unlock()
			evs, err := allEvents(walletAt(d, name), after)
			if err != nil {
				return err
			}
			mu.Lock()
			for _, e := range evs {
				if e.Cursor <= last[name] {
					mu.Unlock()
					return fmt.Errorf("wallet %s: cursor %d after %d", name, e.Cursor, last[name])
				}
				last[name] = e.Cursor
				seen[name] = append(seen[name], seenEvent{e.Cursor, eventKey{e.Kind, e.TxID, e.Depth}})
			}
			mu.Unlock()
		}
		return nil
	}

	// The burst, with a block every 200 ms and the consumer polling.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	background := func(every time.Duration, f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(every):
					f()
				}
			}
		}()
	}
	background(200*time.Millisecond, func() { n.Call("generate", 1) })
	background(50*time.Millisecond, func() { consume(d) })
	sent := make(chan string, batches)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := 0; b < batches; b++ {
			amounts := map[string]float64{}
			for i := 0; i < perTx; i++ {
				amounts[shopAddrs[(b+i)%len(shopAddrs)]] = 0.001
			}
			var txid string
			if err := walletAt(d, "payer").CallResult(&txid, "sendmany", "", amounts); err != nil {
				return // the kill
			}
			sent <- txid
		}
	}()
	for i := 0; i < killAt; i++ {
		select {
		case <-sent:
		case <-done:
			t.Fatalf("the burst stopped after %d transactions", i)
		case <-time.After(60 * time.Second):
			t.Fatalf("no sendmany reply in a minute after %d", i)
		}
	}
	phase("kill")
	d.Kill()
	<-done
	close(stop)
	wg.Wait()
	close(sent)
	confirmedSends := killAt
	for range sent {
		confirmedSends++
	}
	mu.Lock()
	before := map[string][]seenEvent{}
	for name, evs := range seen {
		before[name] = append([]seenEvent(nil), evs...)
	}
	mu.Unlock()

	// Restart on the same files, mine until everything is six deep.
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: d.DataDir, Args: args})
	phase("restarted")
	n.Generate(1)
	waitTips(t, d, names, n.BestBlockHash())
	n.Generate(6)
	tip := n.BestBlockHash()
	waitTips(t, d, names, tip)
	testenv.Eventually(t, 30*time.Second, func() error { return consume(d) })
	phase("caught up")

	var sends, orphans int
	for _, name := range names {
		w := walletAt(d, name)
		evs, err := allEvents(w, 0)
		if err != nil {
			t.Fatal(err)
		}
		// What listtransactions says is on disk.
		var entries []struct {
			TxID          string `json:"txid"`
			Confirmations int64  `json:"confirmations"`
			Category      string `json:"category"`
		}
		if err := w.CallResult(&entries, "listtransactions", "*", 1000000); err != nil {
			t.Fatal(err)
		}
		conf := map[string]int64{}
		for _, e := range entries {
			conf[e.TxID] = e.Confirmations
		}
		want := map[eventKey]bool{}
		for txid, c := range conf {
			want[eventKey{"received", txid, 0}] = true
			if name == "payer" && txid != "" {
				var gt struct {
					Fee *float64 `json:"fee"`
				}
				if err := w.CallResult(&gt, "gettransaction", txid); err != nil {
					t.Fatal(err)
				}
				if gt.Fee != nil {
					delete(want, eventKey{"received", txid, 0})
					want[eventKey{"sent", txid, 0}] = true
					sends++
				}
			}
			for _, depth := range []int32{1, 6} {
				if c >= int64(depth) {
					want[eventKey{"confirmed", txid, depth}] = true
				}
			}
		}
		got := map[eventKey]int64{}
		for i, e := range evs {
			k := eventKey{e.Kind, e.TxID, e.Depth}
			if i > 0 && e.Cursor <= evs[i-1].Cursor {
				t.Errorf("wallet %s: cursor %d after %d", name, e.Cursor, evs[i-1].Cursor)
			}
			if c, dup := got[k]; dup {
				t.Errorf("wallet %s: %v twice, cursors %d and %d", name, k, c, e.Cursor)
			}
			got[k] = e.Cursor
			if _, listed := conf[e.TxID]; !listed && name == "payer" && e.Kind == "sent" && orphans == 0 {
				// The transaction sendmany recorded when the kill came,
				// before relaying it: the wallet forgot it at restart,
				// as it forgets any unconfirmed transaction missing
				// from the mempool, and its event stays.
				orphans++
				continue
			}
			if !want[k] {
				t.Errorf("wallet %s: event %d %v of nothing listtransactions shows (confirmations %d)",
					name, e.Cursor, k, conf[e.TxID])
			}
		}
		for k := range want {
			if _, ok := got[k]; !ok {
				t.Errorf("wallet %s: no %v event", name, k)
			}
		}
		// The consumer's view: what it read before the kill is still
		// there, and it has seen everything.
		for _, s := range before[name] {
			if got[s.key] != s.cursor {
				t.Errorf("wallet %s: event %v read at cursor %d before the kill, now at %d", name, s.key, s.cursor, got[s.key])
			}
		}
		mu.Lock()
		read := map[int64]eventKey{}
		for _, s := range seen[name] {
			read[s.cursor] = s.key
		}
		mu.Unlock()
		for _, e := range evs {
			if k, ok := read[e.Cursor]; !ok || k != (eventKey{e.Kind, e.TxID, e.Depth}) {
				t.Errorf("wallet %s: the consumer did not see event %d (%s %s %d)", name, e.Cursor, e.Kind, e.TxID, e.Depth)
			}
		}
		t.Logf("wallet %s: %d events, %d before the kill", name, len(evs), len(before[name]))
	}
	// Every sendmany that answered before the kill is among the sends.
	if sends < confirmedSends {
		t.Errorf("%d sends in the payer's log, %d sendmany calls answered", sends, confirmedSends)
	}
}
