package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// memFeed is an EventFeed over in-memory logs, one per wallet name.
type memFeed struct {
	mu   sync.Mutex
	logs map[string][]FeedEvent
	ch   map[string]chan struct{}
	// empty holds, per wallet, the cursors after which a Read found
	// nothing: a reader there waits for the next append.
	empty map[string][]int64
}

func newMemFeed(wallets ...string) *memFeed {
	f := &memFeed{logs: map[string][]FeedEvent{}, ch: map[string]chan struct{}{}}
	for _, w := range wallets {
		f.logs[w] = nil
		f.ch[w] = make(chan struct{})
	}
	return f
}

// add appends n events to the wallet's log and wakes its readers; it
// never blocks, whoever reads.
func (f *memFeed) add(wallet string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		c := int64(len(f.logs[wallet]) + 1)
		kind := "received"
		if c%2 == 0 {
			kind = "confirmed"
		}
		js := fmt.Appendf(nil, `{"cursor":%d,"kind":%q,"txid":"%064x"}`, c, kind, c)
		f.logs[wallet] = append(f.logs[wallet], FeedEvent{Cursor: c, Kind: kind, JSON: js})
	}
	close(f.ch[wallet])
	f.ch[wallet] = make(chan struct{})
}

func (f *memFeed) Read(_ context.Context, wallet string, after int64, limit int) ([]FeedEvent, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	log, ok := f.logs[wallet]
	if !ok {
		return nil, nil, NewError(CodeWalletNotFound, "Requested wallet does not exist or is not loaded")
	}
	// The log is in cursor order: find the first event after the cursor
	// rather than walking the whole log under the lock add takes.
	i := sort.Search(len(log), func(i int) bool { return log[i].Cursor > after })
	out := append([]FeedEvent(nil), log[i:i+min(limit, len(log)-i)]...)
	if len(out) == 0 {
		if f.empty == nil {
			f.empty = map[string][]int64{}
		}
		f.empty[wallet] = append(f.empty[wallet], after)
	}
	return out, f.ch[wallet], nil
}

// readEmptyAfter reports whether a Read of the wallet's log after cursor
// found nothing.
func (f *memFeed) readEmptyAfter(wallet string, cursor int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.empty[wallet], cursor)
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, event, data string
}

// readSSE reads n events from a text/event-stream body, skipping comments
// and the retry field; it checks the framing line by line.
func readSSE(t *testing.T, rd *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	for len(out) < n {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended after %d events: %v", len(out), err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if cur != (sseEvent{}) {
				out = append(out, cur)
				cur = sseEvent{}
			}
		case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry: "):
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		default:
			t.Fatalf("unexpected stream line %q", line)
		}
	}
	return out
}

// openStream starts a GET of the events path over the HTTP/1.1 front end
// and returns the response once its head arrived.
func openStream(t *testing.T, addr, path string, hdr map[string]string) (*http.Response, *bufio.Reader) {
	resp, rd, _ := openStreamConn(t, addr, path, hdr)
	return resp, rd
}

func openStreamConn(t *testing.T, addr, path string, hdr map[string]string) (*http.Response, *bufio.Reader, *rawConn) {
	t.Helper()
	c := dial(t, addr)
	c.c.SetDeadline(time.Now().Add(20 * time.Second))
	req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + goodAuth + "\r\n"
	for k, v := range hdr {
		req += k + ": " + v + "\r\n"
	}
	c.send(req + "\r\n")
	resp, err := http.ReadResponse(c.rd, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	return resp, bufio.NewReader(resp.Body), c
}

// openStreamConnNoHead sends the GET without waiting for an answer (a
// long poll answers only later).
func openStreamConnNoHead(t *testing.T, addr, path string) (*http.Response, *bufio.Reader, *rawConn) {
	t.Helper()
	c := dial(t, addr)
	c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + goodAuth + "\r\n\r\n")
	return nil, nil, c
}

// TestEventStreamSSE: the stream sends the log after the cursor in the
// text/event-stream format (id = cursor, event = kind, data = the JSON),
// then new events as they are appended; Last-Event-ID wins over ?after=.
func TestEventStreamSSE(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	feed.add("w", 5)
	s, _ := newTestServer(t, Config{Events: feed})
	addr := listen(t, s)

	resp, rd := openStream(t, addr, "/wallet/w/events?after=2", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("head: %d %v", resp.StatusCode, resp.Header)
	}
	evs := readSSE(t, rd, 3)
	for i, e := range evs {
		c := int64(i + 3)
		feed.mu.Lock()
		want := feed.logs["w"][c-1]
		feed.mu.Unlock()
		if e.id != strconv.FormatInt(c, 10) || e.event != want.Kind || e.data != string(want.JSON) {
			t.Errorf("event %d: %+v, want id %d %s %s", i, e, c, want.Kind, want.JSON)
		}
	}
	// Live: appended after the stream caught up.
	feed.add("w", 2)
	evs = readSSE(t, rd, 2)
	if evs[0].id != "6" || evs[1].id != "7" {
		t.Errorf("live events %+v", evs)
	}

	// A reconnect with Last-Event-ID resumes after it.
	_, rd = openStream(t, addr, "/wallet/w/events?after=1", map[string]string{"Last-Event-ID": "5"})
	evs = readSSE(t, rd, 2)
	if evs[0].id != "6" || evs[1].id != "7" {
		t.Errorf("resumed events %+v", evs)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(evs[1].data), &obj); err != nil || obj["cursor"] != 7.0 {
		t.Errorf("data %q: %v %v", evs[1].data, obj, err)
	}
}

// TestEventStreamLargeBacklog: a backlog larger than one read goes out
// whole and in order.
func TestEventStreamLargeBacklog(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	feed.add("w", 3*streamBatch+7)
	s, _ := newTestServer(t, Config{Events: feed})
	_, rd := openStream(t, listen(t, s), "/wallet/w/events", nil)
	evs := readSSE(t, rd, 3*streamBatch+7)
	for i, e := range evs {
		if e.id != strconv.Itoa(i+1) {
			t.Fatalf("event %d has id %s", i, e.id)
		}
	}
}

// TestEventLongPoll: ?wait= answers at once when events exist, waits for
// the next append otherwise (and answers within a moment of it), and
// answers an empty array when the wait ends with nothing new.
func TestEventLongPoll(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	feed.add("w", 3)
	s, _ := newTestServer(t, Config{Events: feed})
	addr := listen(t, s)
	get := func(path string) (int, []map[string]any, time.Duration) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("Authorization", goodAuth)
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out []map[string]any
		if resp.StatusCode == 200 {
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, out, time.Since(t0)
	}

	if st, evs, _ := get("/wallet/w/events?after=1&wait=30&limit=1"); st != 200 || len(evs) != 1 || evs[0]["cursor"] != 2.0 {
		t.Fatalf("existing events: %d %v", st, evs)
	}
	done := make(chan struct{})
	var st int
	var evs []map[string]any
	var answered time.Time
	go func() { st, evs, _ = get("/wallet/w/events?after=3&wait=30"); answered = time.Now(); close(done) }()
	// The poll has read the log and found nothing: it waits for the
	// append below (an answer before it would hold no event).
	waitFor(t, func() bool { return feed.readEmptyAfter("w", 3) })
	select {
	case <-done:
		t.Fatalf("long poll answered before any new event: %d %v", st, evs)
	default:
	}
	woke := time.Now()
	feed.add("w", 2)
	<-done
	if st != 200 || len(evs) != 2 || evs[0]["cursor"] != 4.0 || evs[1]["cursor"] != 5.0 {
		t.Fatalf("woken poll: %d %v", st, evs)
	}
	// Woken by the append, not by its 30 s wait running out.
	if lag := answered.Sub(woke); lag < 0 || lag > 15*time.Second {
		t.Errorf("poll answered %v after the append", lag)
	}
	if st, evs, took := get("/wallet/w/events?after=5&wait=1"); st != 200 || len(evs) != 0 || took < time.Second {
		t.Errorf("empty wait: %d %v after %v", st, evs, took)
	}
	if st, evs, _ := get("/wallet/w/events?after=5&wait=0"); st != 200 || len(evs) != 0 {
		t.Errorf("wait=0: %d %v", st, evs)
	}
}

// TestEventStreamErrors: credentials and the whitelist are those of the
// calls; bad queries and unknown wallets get Core's JSON-RPC error shape.
func TestEventStreamErrors(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	s, _ := newTestServer(t, Config{Events: feed,
		Whitelist: NewWhitelist([]string{"u:listwalletevents,echo", "v:getblockcount"}, nil)})
	s.auth.AddPassword("v", "p")
	s.auth.AddPassword("x", "p")
	tests := []struct {
		name, uri, auth string
		hdr             string
		status          int
		body            string
	}{
		{"no credentials", "/wallet/w/events", "", "", 401, ""},
		{"wrong password", "/wallet/w/events", "Basic dTp4", "", 401, ""},
		{"not whitelisted", "/wallet/w/events", "Basic djpw", "", 403, ""},
		{"default deny", "/wallet/w/events", "Basic eDpw", "", 403, ""},
		{"unknown wallet", "/wallet/nope/events", goodAuth, "", 404,
			`{"result":null,"error":{"code":-18,"message":"Requested wallet does not exist or is not loaded"},"id":null}`},
		{"negative cursor", "/wallet/w/events?after=-1", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"Negative after"},"id":null}`},
		{"cursor not a number", "/wallet/w/events?after=x", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"Invalid after: not an integer"},"id":null}`},
		{"bad Last-Event-ID", "/wallet/w/events", goodAuth, "zz", 400,
			`{"result":null,"error":{"code":-8,"message":"Invalid Last-Event-ID: not an integer"},"id":null}`},
		{"wait too long", "/wallet/w/events?wait=3601", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"wait must be an integer from 0 to 3600"},"id":null}`},
		{"limit of a stream", "/wallet/w/events?limit=5", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"limit applies to a long poll (wait) only"},"id":null}`},
		{"limit too large", "/wallet/w/events?wait=0&limit=10001", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"limit must be an integer from 1 to 10000"},"id":null}`},
		{"unknown parameter", "/wallet/w/events?from=3", goodAuth, "", 400,
			`{"result":null,"error":{"code":-8,"message":"Unknown parameter from"},"id":null}`},
		{"POST stays JSON-RPC", "/wallet/w/events", goodAuth, "", 200, ""},
		{"other GET paths", "/wallet/w/eventsx", goodAuth, "", 405, "JSONRPC server handles only POST requests"},
	}
	for _, tc := range tests {
		method, body := "GET", ""
		if strings.HasPrefix(tc.name, "POST") {
			method, body = "POST", `{"method":"echo","params":[],"id":1}`
		}
		req := httptest.NewRequest(method, tc.uri, strings.NewReader(body))
		req.RequestURI, req.RemoteAddr = tc.uri, "127.0.0.1:5555"
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.hdr != "" {
			req.Header.Set("Last-Event-ID", tc.hdr)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != tc.status || (tc.body != "" && strings.TrimSpace(w.Body.String()) != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, w.Body.String(), tc.status, tc.body)
		}
		if tc.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate", tc.name)
		}
	}
}

// TestEventStreamBounds: streams beyond MaxStreams get 503 and hold no
// worker slot (calls still run with every stream open); a reader that
// hangs up frees its slot; the heartbeat comes while idle; Shutdown ends
// the streams.
func TestEventStreamBounds(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	s, _ := newTestServer(t, Config{Events: feed, MaxStreams: 2, Threads: 1, Heartbeat: 50 * time.Millisecond})
	l := listenRaw(t, s)
	addr := l.addr

	r1, rd1, c1 := openStreamConn(t, addr, "/wallet/w/events", nil)
	_, rd2 := openStream(t, addr, "/wallet/w/events", nil)
	resp, _ := openStream(t, addr, "/wallet/w/events?wait=1", nil)
	if resp.StatusCode != 503 {
		t.Fatalf("third stream: %d", resp.StatusCode)
	}
	if r1.StatusCode != 200 {
		t.Fatalf("first stream: %d", r1.StatusCode)
	}
	// The one worker is free for calls.
	c := dial(t, addr)
	c.send("POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nContent-Length: 36\r\n\r\n" + `{"method":"echo","params":[],"id":1}`)
	if r, body := c.reply("POST"); r.StatusCode != 200 || !strings.Contains(body, `"result":[]`) {
		t.Fatalf("call with streams open: %d %s", r.StatusCode, body)
	}
	// Heartbeats while idle.
	line, err := rd1.ReadString('\n')
	for err == nil && line != ":\n" {
		line, err = rd1.ReadString('\n')
	}
	if err != nil {
		t.Fatalf("no heartbeat: %v", err)
	}
	// Hanging up frees the slot.
	c1.c.Close()
	testEventually(t, func() bool { return s.streams.Load() == 1 })
	// A long poll whose client hangs up frees its slot too.
	_, _, c3 := openStreamConnNoHead(t, addr, "/wallet/w/events?wait=60")
	testEventually(t, func() bool { return s.streams.Load() == 2 })
	c3.c.Close()
	testEventually(t, func() bool { return s.streams.Load() == 1 })
	// Shutdown ends the other stream.
	go s.Shutdown(context.Background())
	if _, err := io.Copy(io.Discard, rd2); err != nil {
		t.Fatalf("stream at shutdown: %v", err)
	}
	<-l.served
}

type rawListener struct {
	addr   string
	served chan error
}

// listenRaw is listen without the cleanup's check of Serve's result, for
// tests that shut the server down themselves.
func listenRaw(t *testing.T, s *Server) rawListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return rawListener{addr: l.Addr().String(), served: served}
}

func testEventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// FuzzEventQuery feeds arbitrary request targets and Last-Event-ID values
// to the endpoint's parsers: they never panic, a parsed query is within
// its bounds, and a refused query gets a 400 with a JSON-RPC error body.
func FuzzEventQuery(f *testing.F) {
	for _, s := range []string{"/wallet/w/events", "/wallet/w/events?after=3", "/wallet/a%2Fb/events?wait=10&limit=5",
		"/wallet//events?after=99999999999999999999", "/wallet/w/events?after=1&after=2", "/wallet/w/events?%zz",
		"/wallet/w/events?wait=-1", "/wallet/w%00/events?limit=0&wait=0"} {
		f.Add(s, "")
		f.Add(s, "12")
	}
	feed := newMemFeed("w", "a/b")
	feed.add("w", 3)
	s, _ := newTestServer(f, Config{Events: feed})
	f.Fuzz(func(t *testing.T, uri, lastID string) {
		name, query, ok := eventsPath(uri)
		if !ok {
			return
		}
		q, e := parseEventQuery(query, lastID, lastID != "")
		if e == nil && (q.after < 0 || q.wait < -1 || q.wait > MaxEventWait || q.limit < 1 || q.limit > maxEventLimit) {
			t.Fatalf("%q %q: out of bounds %+v", uri, lastID, q)
		}
		if e != nil && e.Code != CodeInvalidParameter {
			t.Fatalf("%q: error code %d", uri, e.Code)
		}
		if e == nil {
			return // a valid query: its stream or poll is tested above
		}
		r := request{method: "GET", uri: uri, allowed: true, hasAuthz: true, authz: goodAuth,
			lastEventID: lastID, hasLastEventID: lastID != "", body: netHTTPBody{}}
		rep := s.handleEvents(context.Background(), &r, name, query, nil)
		if rep.status != 400 {
			t.Fatalf("%q: status %d", uri, rep.status)
		}
		var body struct {
			Error struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(rep.body, &body); err != nil || body.Error.Code == 0 {
			t.Fatalf("%q: body %q", uri, rep.body)
		}
	})
}

// TestEventStreamStalledReader: a stream reader that never reads (a tiny
// receive window) while thousands of events are appended. Appending never
// waits for it and calls keep answering: with a write deadline far longer
// than the test, every append and call returns while the stalled reader
// still holds its stream slot, which it would have lost had anything waited
// for it. With a short deadline (-rpcservertimeout) the server's blocked
// write to the reader times out and the reader is dropped, which frees its
// slot.
func TestEventStreamStalledReader(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	s, _ := newTestServer(t, Config{Events: feed, ReadTimeout: 10 * time.Minute, Threads: 2})
	addr := listen(t, s)
	stalled := dialStalledStream(t, addr, "w")
	testEventually(t, func() bool { return s.streams.Load() == 1 })

	// 40 000 events (several MB) against a reader that takes none.
	t0 := time.Now()
	for range 400 {
		feed.add("w", 100)
	}
	if n := s.streams.Load(); n != 1 {
		t.Fatalf("appends took %v and returned after the stalled reader left (%d streams)", time.Since(t0), n)
	}
	// Calls answer meanwhile.
	c := dial(t, addr)
	for range 20 {
		c.send("POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nContent-Length: 36\r\n\r\n" + `{"method":"echo","params":[],"id":1}`)
		if r, body := c.reply("POST"); r.StatusCode != 200 || body != `{"result":[],"error":null,"id":1}`+"\n" {
			t.Fatalf("call: %d %q", r.StatusCode, body)
		}
	}
	if n := s.streams.Load(); n != 1 {
		t.Fatalf("calls returned after the stalled reader left (%d streams)", n)
	}
	// The reader hanging up frees its slot.
	stalled.Close()
	testEventually(t, func() bool { return s.streams.Load() == 0 })

	// The stalled reader is dropped once a write has waited past the
	// deadline.
	feed = newMemFeed("w")
	s, _ = newTestServer(t, Config{Events: feed, ReadTimeout: 500 * time.Millisecond, Threads: 2})
	addr = listen(t, s)
	dialStalledStream(t, addr, "w")
	testEventually(t, func() bool { return s.streams.Load() == 1 })
	for range 400 {
		feed.add("w", 100)
	}
	testEventually(t, func() bool { return s.streams.Load() == 0 })
}

// dialStalledStream opens the event stream of wallet on a connection whose
// receive window is tiny and which never reads; it is closed when the test
// ends.
func dialStalledStream(t *testing.T, addr, wallet string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		return err
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "GET /wallet/"+wallet+"/events HTTP/1.1\r\nAuthorization: "+goodAuth+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEventStreamEnds: over net/http (the http.Handler path) the stream
// works the same; unloading the wallet ends it with an error event in
// Core's error shape; a long poll waiting at shutdown answers what it has.
func TestEventStreamEnds(t *testing.T) {
	t.Parallel()
	feed := newMemFeed("w")
	feed.add("w", 2)
	s, _ := newTestServer(t, Config{Events: feed})
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/wallet/w/events?after=1", nil)
	req.Header.Set("Authorization", goodAuth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(resp.Body)
	if evs := readSSE(t, rd, 1); evs[0].id != "2" {
		t.Fatalf("events %+v", evs)
	}
	// Unload: the wallet's channel closes and it is gone.
	feed.mu.Lock()
	delete(feed.logs, "w")
	close(feed.ch["w"])
	feed.mu.Unlock()
	evs := readSSE(t, rd, 1)
	if evs[0].event != "error" || evs[0].data != `{"code":-18,"message":"Requested wallet does not exist or is not loaded"}` {
		t.Fatalf("end of stream %+v", evs)
	}
	if _, err := rd.ReadByte(); err != io.EOF {
		t.Fatalf("stream not ended: %v", err)
	}

	// A long poll over the HTTP/1.1 front end, answered at shutdown.
	feed = newMemFeed("v")
	s2, _ := newTestServer(t, Config{Events: feed})
	l := listenRaw(t, s2)
	c := dial(t, l.addr)
	c.send("GET /wallet/v/events?wait=60 HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\n\r\n")
	testEventually(t, func() bool { return s2.streams.Load() == 1 })
	go s2.Shutdown(context.Background())
	if r, body := c.reply("GET"); r.StatusCode != 200 || body != "[]\n" {
		t.Fatalf("long poll at shutdown: %d %q", r.StatusCode, body)
	}
	<-l.served
}
