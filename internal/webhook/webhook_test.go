package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// memSource is a Source over in-memory logs and acknowledgements.
type memSource struct {
	mu      sync.Mutex
	logs    map[string][]Event
	ch      map[string]chan struct{}
	acks    map[[2]string]int64
	ackErrs int // the next Ack calls that fail
	// caughtUp holds, per wallet, the cursors after which a Read found
	// nothing: a reader there has delivered everything before it.
	caughtUp map[string][]int64
}

func newMemSource(wallets ...string) *memSource {
	s := &memSource{logs: map[string][]Event{}, ch: map[string]chan struct{}{}, acks: map[[2]string]int64{}}
	for _, w := range wallets {
		s.logs[w] = nil
		s.ch[w] = make(chan struct{})
	}
	return s
}

func (s *memSource) add(wallet string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		c := int64(len(s.logs[wallet]) + 1)
		s.logs[wallet] = append(s.logs[wallet], Event{Cursor: c, JSON: fmt.Appendf(nil, `{"cursor":%d,"kind":"received"}`, c)})
	}
	close(s.ch[wallet])
	s.ch[wallet] = make(chan struct{})
}

func (s *memSource) Wallets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for w := range s.logs {
		out = append(out, w)
	}
	return out
}

func (s *memSource) Read(_ context.Context, wallet string, after int64, limit int) ([]Event, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	log, ok := s.logs[wallet]
	if !ok {
		return nil, nil, errors.New("not loaded")
	}
	var out []Event
	for _, e := range log {
		if e.Cursor > after && len(out) < limit {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		if s.caughtUp == nil {
			s.caughtUp = map[string][]int64{}
		}
		s.caughtUp[wallet] = append(s.caughtUp[wallet], after)
	}
	return out, s.ch[wallet], nil
}

// readEmptyAfter reports whether a Read of the wallet's log after cursor
// found nothing.
func (s *memSource) readEmptyAfter(wallet string, cursor int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.caughtUp[wallet] {
		if c == cursor {
			return true
		}
	}
	return false
}

func (s *memSource) Acked(_ context.Context, wallet, target string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[[2]string{wallet, target}], nil
}

func (s *memSource) Ack(_ context.Context, wallet, target string, cursor int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ackErrs > 0 {
		s.ackErrs--
		return errors.New("disk full")
	}
	s.acks[[2]string{wallet, target}] = cursor
	return nil
}

// receiver is a webhook endpoint that checks each signature, fails the
// first `fail` POSTs with 500 and records the cursors of the rest per
// wallet.
type receiver struct {
	t      *testing.T
	secret []byte
	mu     sync.Mutex
	fail   int
	posts  int
	got    map[string][]int64
	stall  chan struct{} // when set, requests block until it closes
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.stall != nil {
		select {
		case <-r.stall:
		case <-req.Context().Done():
			return
		}
	}
	body, _ := io.ReadAll(req.Body)
	if !Verify(r.secret, body, req.Header.Get(SignatureHeader)) {
		r.t.Errorf("bad signature %q for %s", req.Header.Get(SignatureHeader), body)
		w.WriteHeader(400)
		return
	}
	var msg struct {
		Wallet string `json:"wallet"`
		Events []struct {
			Cursor int64 `json:"cursor"`
		} `json:"events"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || len(msg.Events) == 0 {
		r.t.Errorf("body %s: %v", body, err)
	}
	if c := req.Header.Get(CursorHeader); c != strconv.FormatInt(msg.Events[len(msg.Events)-1].Cursor, 10) {
		r.t.Errorf("cursor header %q for %s", c, body)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts++
	if r.fail > 0 {
		r.fail--
		w.WriteHeader(500)
		return
	}
	if r.got == nil {
		r.got = map[string][]int64{}
	}
	for _, e := range msg.Events {
		r.got[msg.Wallet] = append(r.got[msg.Wallet], e.Cursor)
	}
}

func (r *receiver) cursors(wallet string) []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.got[wallet]...)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func seq(from, to int64) []int64 {
	var out []int64
	for c := from; c <= to; c++ {
		out = append(out, c)
	}
	return out
}

func equal(a, b []int64) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func testConfig(src Source, urls ...string) Config {
	return Config{URLs: urls, Secret: []byte("s3cret"), Source: src, Batch: 4,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, Rescan: 20 * time.Millisecond}
}

// TestDeliveryRetries: every event of every wallet arrives in order at
// each endpoint, signed; failed POSTs are retried with backoff; the
// acknowledged cursor is recorded; wallets loaded later are delivered too.
func TestDeliveryRetries(t *testing.T) {
	t.Parallel()
	rcv := &receiver{t: t, secret: []byte("s3cret"), fail: 3}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	src := newMemSource("a", "b")
	src.add("a", 10)
	d, err := New(testConfig(src, srv.URL+"/hook?token=x"))
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	defer d.Stop()
	src.add("b", 3)
	waitFor(t, "a's events", func() bool { return equal(rcv.cursors("a"), seq(1, 10)) })
	waitFor(t, "b's events", func() bool { return equal(rcv.cursors("b"), seq(1, 3)) })
	src.add("a", 2)
	src.mu.Lock()
	src.logs["c"], src.ch["c"] = nil, make(chan struct{})
	src.mu.Unlock()
	src.add("c", 1)
	waitFor(t, "live events", func() bool {
		return equal(rcv.cursors("a"), seq(1, 12)) && equal(rcv.cursors("c"), seq(1, 1))
	})
	if rcv.posts < 3+3+1+2 {
		t.Errorf("%d posts; the 3 failures were not retried", rcv.posts)
	}
	waitFor(t, "acks", func() bool {
		a, _ := src.Acked(context.Background(), "a", srv.URL+"/hook?token=x")
		return a == 12
	})
}

// TestDeliveryResume: a dispatcher started again (a restart) resumes after
// the acknowledged cursor; events delivered whose acknowledgement failed
// to be recorded go out again (at least once), none is lost.
func TestDeliveryResume(t *testing.T) {
	t.Parallel()
	rcv := &receiver{t: t, secret: []byte("s3cret")}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	src := newMemSource("a")
	src.add("a", 8)
	d, err := New(testConfig(src, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	waitFor(t, "first run", func() bool { return equal(rcv.cursors("a"), seq(1, 8)) })
	waitFor(t, "acks", func() bool { a, _ := src.Acked(context.Background(), "a", srv.URL); return a == 8 })
	d.Stop()

	// While the node is down: more events; the first acknowledgement of
	// the next run fails.
	src.add("a", 5)
	src.ackErrs = 1
	d, err = New(testConfig(src, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	waitFor(t, "second run", func() bool { return equal(rcv.cursors("a"), seq(1, 13)) })
	// The receiver has the last batch before the worker records its
	// acknowledgement: the later batch's is recorded though the first
	// one's failed.
	waitFor(t, "the second run's acks", func() bool { a, _ := src.Acked(context.Background(), "a", srv.URL); return a == 13 })
	d.Stop()
	// Third run: the unrecorded batch is not lost; nothing new goes out.
	// Once the worker has read the log after the acknowledged cursor and
	// found it empty, anything it would have sent again (it posts each
	// batch before reading the next) has reached the receiver.
	d, _ = New(testConfig(src, srv.URL))
	src.mu.Lock()
	src.caughtUp = nil
	src.mu.Unlock()
	d.Start()
	waitFor(t, "the third run to reach the end of the log", func() bool { return src.readEmptyAfter("a", 13) })
	d.Stop()
	if got := rcv.cursors("a"); !equal(got, seq(1, 13)) {
		t.Fatalf("after the third run: %v", got)
	}
}

// TestDeliveryStall: an endpoint that never answers holds back only its
// own deliveries: a second endpoint gets every event, appending never
// waits, and Stop returns at once.
func TestDeliveryStall(t *testing.T) {
	t.Parallel()
	stuck := &receiver{t: t, secret: []byte("s3cret"), stall: make(chan struct{})}
	slow := httptest.NewServer(stuck)
	defer slow.Close()
	defer close(stuck.stall)
	rcv := &receiver{t: t, secret: []byte("s3cret")}
	fast := httptest.NewServer(rcv)
	defer fast.Close()
	src := newMemSource("a")
	cfg := testConfig(src, slow.URL, fast.URL)
	cfg.Timeout = 200 * time.Millisecond
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	t0 := time.Now()
	for range 50 {
		src.add("a", 20)
	}
	if took := time.Since(t0); took > time.Second {
		t.Errorf("appending 1000 events took %v", took)
	}
	waitFor(t, "the healthy endpoint", func() bool { return equal(rcv.cursors("a"), seq(1, 1000)) })
	t0 = time.Now()
	d.Stop()
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("Stop took %v", took)
	}
	if got := stuck.cursors("a"); len(got) != 0 {
		t.Errorf("the stalled endpoint recorded %v", got)
	}
}

// TestCheckURL: loopback endpoints are allowed, other hosts only when
// listed; credentials and other schemes are refused; a secret is needed.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url   string
		hosts []string
		ok    bool
	}{
		{"http://127.0.0.1:8080/hook", nil, true},
		{"http://127.8.9.10/hook", nil, true},
		{"http://[::1]:9000/", nil, true},
		{"https://localhost/x?y=z", nil, true},
		{"http://example.com/hook", nil, false},
		{"http://example.com/hook", []string{"Example.com"}, true},
		{"http://10.0.0.1/hook", []string{"example.com"}, false},
		{"http://user:pw@127.0.0.1/hook", nil, false},
		{"ftp://127.0.0.1/hook", nil, false},
		{"127.0.0.1:80", nil, false},
		{"http:///hook", nil, false},
		{"http://[::ffff:127.0.0.1]/", nil, true},
	} {
		_, err := CheckURL(tc.url, tc.hosts)
		if (err == nil) != tc.ok {
			t.Errorf("%s %v: %v", tc.url, tc.hosts, err)
		}
		if err != nil && !errors.Is(err, ErrURL) {
			t.Errorf("%s: error %v is not ErrURL", tc.url, err)
		}
	}
	if _, err := New(Config{URLs: []string{"http://127.0.0.1/"}, Source: newMemSource()}); err == nil {
		t.Error("no secret accepted")
	}
}

// TestLocalhostMustBeLoopback: a name allowed as loopback ("localhost")
// is dialed only on loopback addresses; a listed host may be anywhere.
func TestLocalhostMustBeLoopback(t *testing.T) {
	t.Parallel()
	c := newClient(nil, time.Second)
	tr := c.Transport.(*http.Transport)
	// 192.0.2.1 (TEST-NET-1) is not loopback: refused before connecting.
	_, err := tr.DialContext(context.Background(), "tcp", "192.0.2.1:80")
	if err == nil {
		t.Fatal("dialed a non-loopback address for an unlisted host")
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	conn, err := tr.DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("loopback refused: %v", err)
	}
	conn.Close()
}

// TestSign: the signature is HMAC-SHA256 of the body, hex, prefixed.
func TestSign(t *testing.T) {
	// RFC 4231 test case 2.
	got := Sign([]byte("Jefe"), []byte("what do ya want for nothing?"))
	if got != "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Fatal(got)
	}
	if Verify([]byte("Jefe"), []byte("what do ya want for nothing!"), got) {
		t.Fatal("verified another body")
	}
}
