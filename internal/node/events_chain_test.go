package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/address"
	"github.com/descwallet/descwallet/internal/testenv"
)

// sse is one Server-Sent Event as a client parses it.
type sse struct {
	ID, Event, Data string
}

// sseStream is an open GET /wallet/<name>/events.
type sseStream struct {
	resp *http.Response
	rd   *bufio.Reader
	evs  chan sse
	errc chan error
}

// openEvents opens the event stream of a wallet of d, with extra request
// headers, and parses its events in the background.
func openEvents(t *testing.T, d *testenv.Daemon, wallet, query string, hdr map[string]string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", d.URL+"wallet/"+url.PathEscape(wallet)+"/events"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(d.User, d.Pass)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream of %q: %d %v %s", wallet, resp.StatusCode, resp.Header, b)
	}
	s := &sseStream{resp: resp, rd: bufio.NewReader(resp.Body), evs: make(chan sse, 1000), errc: make(chan error, 1)}
	go func() {
		var cur sse
		for {
			line, err := s.rd.ReadString('\n')
			if err != nil {
				s.errc <- err
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if cur != (sse{}) {
					s.evs <- cur
				}
				cur = sse{}
			case strings.HasPrefix(line, "id: "):
				cur.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				cur.Data = line[6:]
			}
		}
	}()
	return s
}

// next returns the stream's next n events, failing after the timeout.
func (s *sseStream) next(t *testing.T, n int, timeout time.Duration) []sse {
	t.Helper()
	var out []sse
	deadline := time.After(timeout)
	for len(out) < n {
		select {
		case e := <-s.evs:
			out = append(out, e)
		case err := <-s.errc:
			t.Fatalf("stream ended after %d events: %v", len(out), err)
		case <-deadline:
			t.Fatalf("%d of %d events in %v: %+v", len(out), n, timeout, out)
		}
	}
	return out
}

// newWalletAddr creates a wallet on d and returns a client for it and the
// scriptPubKey of a new address.
func newWalletAddr(t *testing.T, d *testenv.Daemon, name string) (*testenv.Client, []byte) {
	t.Helper()
	if _, err := d.Call("createwallet", name); err != nil {
		t.Fatal(err)
	}
	w := &testenv.Client{URL: d.URL + "wallet/" + url.PathEscape(name), User: d.User, Pass: d.Pass}
	var addr string
	if err := w.CallResult(&addr, "getnewaddress"); err != nil {
		t.Fatal(err)
	}
	spk, err := address.Decode(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return w, spk
}

// TestEventStreamChain follows a wallet's stream through payments and
// blocks on a real chain: each event arrives as listwalletevents renders it
// (id = cursor, event = kind, data = the same JSON object); a second stream
// resumes from a cursor given as Last-Event-ID; a long poll waiting after
// the last cursor wakes when the next block makes events; requests without
// credentials get 401.
func TestEventStreamChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	n := testenv.StartBtcd(t, nil)
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User, "-chainrpcpassword=" + n.Pass,
		"-chainpoll=50", "-eventheartbeat=1"}})
	w, spk := newWalletAddr(t, d, "shop")

	// Credentials are required.
	resp, err := http.Get(d.URL + "wallet/shop/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("without credentials: %d", resp.StatusCode)
	}

	st := openEvents(t, d, "shop", "", nil)
	tx1 := n.Fund(wire.NewTxOut(10_000, spk))
	tx2 := n.Fund(wire.NewTxOut(20_000, spk))
	n.Generate(1)
	got := st.next(t, 4, 60*time.Second)

	var listed []json.RawMessage
	if err := w.CallResult(&listed, "listwalletevents"); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 4 {
		t.Fatalf("listwalletevents: %d events, want 4", len(listed))
	}
	kinds := map[string]int{}
	for i, e := range got {
		var ev struct {
			Cursor int64  `json:"cursor"`
			Kind   string `json:"kind"`
			TxID   string `json:"txid"`
		}
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
			t.Fatal(err)
		}
		if e.ID != fmt.Sprint(i+1) || ev.Cursor != int64(i+1) || e.Event != ev.Kind || (ev.TxID != tx1 && ev.TxID != tx2) {
			t.Errorf("event %d: %+v", i, e)
		}
		if e.Data != string(listed[i]) {
			t.Errorf("event %d data %s, listwalletevents %s", i, e.Data, listed[i])
		}
		kinds[ev.Kind]++
	}
	if kinds["received"] != 2 || kinds["confirmed"] != 2 {
		t.Errorf("kinds %v", kinds)
	}

	// Resume after cursor 2 (Last-Event-ID wins over ?after=).
	re := openEvents(t, d, "shop", "?after=0", map[string]string{"Last-Event-ID": "2"})
	if evs := re.next(t, 2, 30*time.Second); evs[0].ID != "3" || evs[1].ID != "4" {
		t.Errorf("resumed stream: %+v", evs)
	}

	// A long poll after the last cursor wakes with the depth-6 events.
	type pollResult struct {
		evs  []map[string]any
		err  error
		took time.Duration
	}
	done := make(chan pollResult, 1)
	go func() {
		req, _ := http.NewRequest("GET", d.URL+"wallet/shop/events?after=4&wait=60", nil)
		req.SetBasicAuth(d.User, d.Pass)
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- pollResult{err: err}
			return
		}
		defer resp.Body.Close()
		var r pollResult
		r.err = json.NewDecoder(resp.Body).Decode(&r.evs)
		r.took = time.Since(t0)
		done <- r
	}()
	time.Sleep(500 * time.Millisecond)
	select {
	case r := <-done:
		t.Fatalf("long poll answered before new events: %+v", r)
	default:
	}
	n.Generate(5)
	select {
	case r := <-done:
		if r.err != nil || len(r.evs) != 2 || r.evs[0]["kind"] != "confirmed" || r.evs[0]["depth"] != 6.0 || r.evs[0]["cursor"] != 5.0 {
			t.Errorf("long poll: %+v", r)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("long poll not woken by the block")
	}
	// Both streams saw the same events.
	for _, s := range []*sseStream{st, re} {
		if evs := s.next(t, 2, 30*time.Second); evs[0].ID != "5" || evs[1].ID != "6" {
			t.Errorf("live events: %+v", evs)
		}
	}
}
