package node_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
	"github.com/descwallet/descwallet/internal/webhook"
)

// hookReceiver is a webhook endpoint: it checks each body's signature,
// answers 500 to the first `fail` posts, and keeps the events it accepted
// per wallet, with how often each cursor came.
type hookReceiver struct {
	t      *testing.T
	secret []byte
	mu     sync.Mutex
	fail   int
	delay  time.Duration // how long each post is held before it is read
	posts  int
	evs    map[string][]json.RawMessage
	seen   map[string]map[int64]int
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	delay := h.delay
	h.mu.Unlock()
	time.Sleep(delay)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// Cut short: the daemon was killed while sending it.
		h.t.Logf("a post cut short (%d bytes): %v", len(body), err)
		w.WriteHeader(400)
		return
	}
	if !webhook.Verify(h.secret, body, r.Header.Get(webhook.SignatureHeader)) {
		h.t.Errorf("signature %q does not match the body", r.Header.Get(webhook.SignatureHeader))
		w.WriteHeader(401)
		return
	}
	var msg struct {
		Wallet string            `json:"wallet"`
		Events []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		h.t.Errorf("body %s: %v", body, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.posts++
	if h.fail > 0 {
		h.fail--
		w.WriteHeader(503)
		return
	}
	for _, e := range msg.Events {
		var ev struct {
			Cursor int64 `json:"cursor"`
		}
		json.Unmarshal(e, &ev)
		if h.seen[msg.Wallet] == nil {
			h.seen[msg.Wallet] = map[int64]int{}
		}
		if h.seen[msg.Wallet][ev.Cursor]++; h.seen[msg.Wallet][ev.Cursor] == 1 {
			h.evs[msg.Wallet] = append(h.evs[msg.Wallet], e)
		}
	}
}

// events returns the distinct events accepted for the wallet, in arrival
// order.
func (h *hookReceiver) events(wallet string) []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]json.RawMessage(nil), h.evs[wallet]...)
}

// sameAsListed checks that the receiver holds exactly the wallet's log as
// listwalletevents returns it, in order.
func sameAsListed(h *hookReceiver, w *testenv.Client, wallet string) error {
	var listed []json.RawMessage
	if err := w.CallResult(&listed, "listwalletevents", 0, 10000); err != nil {
		return err
	}
	got := h.events(wallet)
	if len(got) != len(listed) {
		return fmt.Errorf("webhook got %d events of %q, the log holds %d", len(got), wallet, len(listed))
	}
	for i := range got {
		if string(got[i]) != string(listed[i]) {
			return fmt.Errorf("event %d: webhook %s, listwalletevents %s", i, got[i], listed[i])
		}
	}
	return nil
}

// TestWebhookChain: a receiver started after the daemon gets every event
// of the wallets, signed, after the deliveries it refused are retried;
// after a restart the deliveries resume after the acknowledged cursor, so
// the events made while the node was down arrive and none of the earlier
// ones comes again; after a kill -9 in the middle of delivering a burst to
// a slow receiver, every event still arrives.
func TestWebhookChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	n := testenv.StartBtcd(t, nil)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	secret := "correct horse battery staple"
	dataDir := t.TempDir()
	args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User,
		"-chainrpcpassword=" + n.Pass, "-chainpoll=50",
		"-eventwebhook=http://127.0.0.1:" + strconv.Itoa(port) + "/hook?k=1", "-eventwebhooksecret=" + secret}
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir, Args: args})
	wa, spkA := newWalletAddr(t, d, "a")
	wb, spkB := newWalletAddr(t, d, "b")

	// Events before any receiver listens.
	n.Fund(wire.NewTxOut(10_000, spkA), wire.NewTxOut(20_000, spkB))
	n.Fund(wire.NewTxOut(30_000, spkA))
	n.Generate(1)
	testenv.Eventually(t, 30*time.Second, func() error {
		var evs []json.RawMessage
		if err := wa.CallResult(&evs, "listwalletevents"); err != nil || len(evs) != 4 {
			return fmt.Errorf("wallet a has %d events (%v)", len(evs), err)
		}
		return nil
	})

	rcv := &hookReceiver{t: t, secret: []byte(secret), fail: 2,
		evs: map[string][]json.RawMessage{}, seen: map[string]map[int64]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rcv}
	go srv.Serve(l)
	defer srv.Close()
	testenv.Eventually(t, 60*time.Second, func() error {
		if err := sameAsListed(rcv, wa, "a"); err != nil {
			return err
		}
		return sameAsListed(rcv, wb, "b")
	})

	// Down: a payment is made and mined meanwhile. Up again: only the
	// new events come.
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	n.Fund(wire.NewTxOut(40_000, spkA))
	n.Generate(1)
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir,
		Args: append(args, "-wallet=a", "-wallet=b")})
	wa = &testenv.Client{URL: d.URL + "wallet/a", User: d.User, Pass: d.Pass}
	wb = &testenv.Client{URL: d.URL + "wallet/b", User: d.User, Pass: d.Pass}
	testenv.Eventually(t, 60*time.Second, func() error {
		var evs []json.RawMessage
		if err := wa.CallResult(&evs, "listwalletevents"); err != nil || len(evs) != 6 {
			return fmt.Errorf("wallet a has %d events (%v)", len(evs), err)
		}
		return sameAsListed(rcv, wa, "a")
	})
	if err := sameAsListed(rcv, wb, "b"); err != nil {
		t.Error(err)
	}
	rcv.mu.Lock()
	for wallet, seen := range rcv.seen {
		for c, k := range seen {
			if k != 1 {
				t.Errorf("wallet %s: event %d delivered %d times across a clean restart", wallet, c, k)
			}
		}
	}
	if rcv.posts < 2+2 {
		t.Errorf("%d posts: the refused ones were not retried", rcv.posts)
	}
	rcv.delay = 150 * time.Millisecond
	rcv.mu.Unlock()

	// kill -9 while a burst of payments is being delivered to a slow
	// receiver: after the restart every event arrives, at least once.
	for i := range 12 {
		n.Fund(wire.NewTxOut(int64(50_000+i), spkA))
	}
	n.Generate(1)
	waitTips(t, d, []string{"a", "b"}, n.BestBlockHash())
	d.Kill()
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dataDir,
		Args: append(args, "-wallet=a", "-wallet=b")})
	wa = &testenv.Client{URL: d.URL + "wallet/a", User: d.User, Pass: d.Pass}
	wb = &testenv.Client{URL: d.URL + "wallet/b", User: d.User, Pass: d.Pass}
	rcv.mu.Lock()
	rcv.delay = 0
	rcv.mu.Unlock()
	testenv.Eventually(t, 60*time.Second, func() error {
		if err := sameAsListed(rcv, wa, "a"); err != nil {
			return err
		}
		return sameAsListed(rcv, wb, "b")
	})
	var burst []json.RawMessage
	if err := wa.CallResult(&burst, "listwalletevents", 6, 10000); err != nil || len(burst) < 24 {
		t.Errorf("the burst left %d events after cursor 6 (%v)", len(burst), err)
	}
	// The secret is never logged; the failed deliveries are.
	logText, err := os.ReadFile(filepath.Join(dataDir, "regtest", "debug.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(logText), secret) || strings.Contains(d.Output(), secret) {
		t.Error("the webhook secret is in the log")
	}
	if !strings.Contains(string(logText), "webhook delivery failed") {
		t.Error("failed deliveries not logged")
	}
}

// TestRetentionKeepsUndelivered: with a retention of one event and a
// webhook endpoint that is down, pruning runs many times and removes
// nothing the endpoint has not acknowledged; once the endpoint is up it
// receives every event, and only then does pruning remove them.
func TestRetentionKeepsUndelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	n := testenv.StartBtcd(t, nil)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	secret := "retention secret"
	// An age of one second prunes every 250 ms.
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User, "-chainrpcpassword=" + n.Pass, "-chainpoll=50",
		"-eventretention=1,1s", "-eventwebhook=http://127.0.0.1:" + strconv.Itoa(port) + "/hook",
		"-eventwebhooksecret=" + secret}})
	wa, spk := newWalletAddr(t, d, "a")
	n.Fund(wire.NewTxOut(10_000, spk))
	n.Fund(wire.NewTxOut(20_000, spk))
	n.Generate(1)
	var before []json.RawMessage
	testenv.Eventually(t, 30*time.Second, func() error {
		before = nil
		if err := wa.CallResult(&before, "listwalletevents", 0, 100); err != nil || len(before) != 4 {
			return fmt.Errorf("wallet a has %d events (%v)", len(before), err)
		}
		return nil
	})
	// Well past the retention age, with the endpoint still down: the log
	// is whole.
	time.Sleep(2 * time.Second)
	var kept []json.RawMessage
	if err := wa.CallResult(&kept, "listwalletevents", 0, 100); err != nil || len(kept) != 4 {
		t.Fatalf("with the webhook down, retention left %d events (%v)", len(kept), err)
	}

	rcv := &hookReceiver{t: t, secret: []byte(secret),
		evs: map[string][]json.RawMessage{}, seen: map[string]map[int64]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rcv}
	go srv.Serve(l)
	defer srv.Close()
	testenv.Eventually(t, 60*time.Second, func() error {
		got := rcv.events("a")
		if len(got) != len(before) {
			return fmt.Errorf("webhook got %d events, want %d", len(got), len(before))
		}
		for i := range got {
			if string(got[i]) != string(before[i]) {
				return fmt.Errorf("event %d: webhook %s, listed %s", i, got[i], before[i])
			}
		}
		return nil
	})
	// Acknowledged: retention now removes all but the newest.
	testenv.Eventually(t, 30*time.Second, func() error {
		_, err := wa.Call("listwalletevents", 0, 100)
		if err == nil || !strings.Contains(err.Error(), "events through cursor 3 were removed") {
			return fmt.Errorf("after the acknowledgement: %v", err)
		}
		return nil
	})
}
