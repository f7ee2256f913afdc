package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listen serves s with the HTTP/1.1 front end on a loopback port and
// returns its address; the server is shut down when the test ends.
func listen(t testing.TB, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Shutdown(context.Background())
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	})
	return l.Addr().String()
}

// rawConn is a client connection speaking raw bytes.
type rawConn struct {
	t  testing.TB
	c  net.Conn
	rd *bufio.Reader
}

func dial(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, rd: bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		r.t.Fatal(err)
	}
}

// reply reads one response and its body.
func (r *rawConn) reply(method string) (*http.Response, string) {
	r.t.Helper()
	resp, err := http.ReadResponse(r.rd, &http.Request{Method: method})
	if err != nil {
		r.t.Fatalf("reading reply: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("reading body: %v", err)
	}
	return resp, string(b)
}

// closed reports whether the server closed the connection.
func (r *rawConn) closed() bool {
	r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := r.rd.ReadByte()
	return err == io.EOF
}

// post builds a POST request with the good credentials.
func post(uri, body, extra string) string {
	return "POST " + uri + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + goodAuth +
		"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n" + extra + "\r\n" + body
}

func echoReply(id string) string {
	return `{"result":[` + id + `],"error":null,"id":` + id + "}\n"
}

func echoBodyID(id string) string {
	return `{"method":"echo","params":[` + id + `],"id":` + id + `}`
}

func TestHTTP1Pipelined(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	c := dial(t, listen(t, s))
	c.send(post("/", echoBodyID("1"), "") + post("/", echoBodyID("2"), "") + post("/", echoBodyID("3"), ""))
	for _, id := range []string{"1", "2", "3"} {
		resp, body := c.reply("POST")
		if resp.StatusCode != 200 || body != echoReply(id) {
			t.Fatalf("reply %s: %d %q", id, resp.StatusCode, body)
		}
		if resp.Header.Get("Content-Type") != "application/json" ||
			resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) || resp.Header.Get("Date") == "" {
			t.Errorf("reply %s headers %v", id, resp.Header)
		}
		if resp.Close {
			t.Errorf("reply %s closes a keep-alive connection", id)
		}
	}
}

func TestHTTP1KeepAlive(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	addr := listen(t, s)
	body := echoBodyID("1")
	for _, tc := range []struct {
		name, proto, conn string
		keep              bool
		replyConn         string
	}{
		{"1.1 default", "HTTP/1.1", "", true, ""},
		{"1.1 close", "HTTP/1.1", "Connection: close\r\n", false, "close"},
		{"1.1 close among tokens", "HTTP/1.1", "Connection: Upgrade, CLOSE\r\n", false, "close"},
		{"1.0 default", "HTTP/1.0", "", false, "close"},
		{"1.0 keep-alive", "HTTP/1.0", "Connection: Keep-Alive\r\n", true, "keep-alive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			req := "POST / " + tc.proto + "\r\nAuthorization: " + goodAuth + "\r\nContent-Length: " +
				strconv.Itoa(len(body)) + "\r\n" + tc.conn + "\r\n" + body
			for i := 0; i < 2; i++ {
				c.send(req)
				resp, got := c.reply("POST")
				if resp.StatusCode != 200 || got != echoReply("1") {
					t.Fatalf("%d %q", resp.StatusCode, got)
				}
				// The reader folds "Connection: close" into Close.
				h := resp.Header.Get("Connection")
				if resp.Close {
					h = "close"
				}
				if h != tc.replyConn {
					t.Errorf("Connection: %q, want %q", h, tc.replyConn)
				}
				if !tc.keep {
					if !c.closed() {
						t.Error("connection left open")
					}
					return
				}
			}
		})
	}
}

// TestHTTP1SameAsNetHTTP runs the transport rules through both front ends:
// the replies must agree.
func TestHTTP1SameAsNetHTTP(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	addr := listen(t, s)
	body := `{"method":"echo","id":1}`
	for _, tc := range []struct{ method, uri, auth string }{
		{"GET", "/", ""}, {"PUT", "/", goodAuth}, {"DELETE", "/", goodAuth}, {"HEAD", "/", goodAuth},
		{"POST", "/foo", ""}, {"POST", "/?x=1", goodAuth}, {"POST", "/wallet", goodAuth},
		{"POST", "/", ""}, {"POST", "/", "basic dTpw"}, {"POST", "/", "Basic   dTpw  "},
		{"POST", "/", goodAuth}, {"POST", "/wallet/a%20b", goodAuth}, {"PATCH", "/", goodAuth},
	} {
		want := do(s, tc.method, tc.uri, tc.auth, body)
		c := dial(t, addr)
		req := tc.method + " " + tc.uri + " HTTP/1.1\r\nHost: x\r\n"
		if tc.auth != "" {
			req += "Authorization: " + tc.auth + "\r\n"
		}
		c.send(req + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
		resp, got := c.reply(tc.method)
		if resp.StatusCode != want.Code || got != want.Body.String() {
			t.Errorf("%s %s %q: %d %q, net/http %d %q", tc.method, tc.uri, tc.auth,
				resp.StatusCode, got, want.Code, want.Body.String())
		}
		for _, k := range []string{"Content-Type", "Content-Length", "WWW-Authenticate"} {
			g, gok := resp.Header[http.CanonicalHeaderKey(k)]
			w, wok := want.Header()[http.CanonicalHeaderKey(k)]
			if gok != wok || gok && g[0] != w[0] {
				t.Errorf("%s %s %q: header %s %q, net/http %q", tc.method, tc.uri, tc.auth, k, g, w)
			}
		}
		// The unread body was skipped: the connection still works.
		c.send(post("/", echoBodyID("7"), ""))
		if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("7") {
			t.Errorf("%s %s: next request %d %q", tc.method, tc.uri, resp.StatusCode, got)
		}
	}
}

func TestHTTP1Chunked(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	addr := listen(t, s)
	c := dial(t, addr)
	head := "POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nTransfer-Encoding: Chunked\r\n\r\n"
	c.send(head + "5;ext=1\r\n{\"met\r\n" + "1A\r\nhod\":\"echo\",\"params\":[4],\r\n" + "7\r\n\"id\":4}\r\n0\r\nX-Trailer: 1\r\n\r\n")
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("4") {
		t.Fatalf("chunked: %d %q", resp.StatusCode, got)
	}
	c.send(post("/", echoBodyID("5"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("5") {
		t.Fatalf("after chunked: %d %q", resp.StatusCode, got)
	}

	// A chunk past the body limit is refused before it is sent.
	c = dial(t, addr)
	c.send(head + strconv.FormatInt(MaxBodySize+1, 16) + "\r\n")
	if resp, _ := c.reply("POST"); resp.StatusCode != 413 || !resp.Close {
		t.Errorf("oversized chunk: %d close=%v", resp.StatusCode, resp.Close)
	}
	if !c.closed() {
		t.Error("connection left open after 413")
	}

	// A malformed chunk size drops the connection.
	c = dial(t, addr)
	c.send(head + "zz\r\n")
	if !c.closed() {
		t.Error("malformed chunk size: connection left open")
	}
}

func TestHTTP1Expect(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	addr := listen(t, s)
	body := echoBodyID("9")

	// No 100 Continue for an empty body.
	c := dial(t, addr)
	c.send(post("/", "", "Expect: 100-continue\r\n"))
	if resp, _ := c.reply("POST"); resp.StatusCode != 500 {
		t.Errorf("empty body with expect: %d", resp.StatusCode)
	}

	c = dial(t, addr)
	c.send("POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nExpect: 100-Continue\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n")
	resp, _ := c.reply("POST")
	if resp.StatusCode != 100 {
		t.Fatalf("no 100 Continue: %d", resp.StatusCode)
	}
	c.send(body)
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("9") {
		t.Fatalf("after 100: %d %q", resp.StatusCode, got)
	}

	// Refused before the body: no 100, and the connection closes since
	// the client may or may not send the body.
	c = dial(t, addr)
	c.send("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n")
	if resp, _ := c.reply("POST"); resp.StatusCode != 401 || !resp.Close {
		t.Errorf("unauthenticated expect: %d close=%v", resp.StatusCode, resp.Close)
	}

	c = dial(t, addr)
	c.send(post("/", body, "Expect: something\r\n"))
	if resp, _ := c.reply("POST"); resp.StatusCode != 417 || !resp.Close {
		t.Errorf("unknown expectation: %d close=%v", resp.StatusCode, resp.Close)
	}
}

func TestHTTP1Refusals(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	addr := listen(t, s)
	big := strings.Repeat("a", maxHeaderBytes)
	for _, tc := range []struct {
		name, req string
		status    int // 0: dropped without a reply
	}{
		{"headers too large", post("/", "{}", "X-Big: "+big+"\r\n"), 413},
		{"many headers too large", post("/", "{}", strings.Repeat("X-A: "+strings.Repeat("b", 100)+"\r\n", 90)), 413},
		{"body too large", "POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nContent-Length: 33554433\r\n\r\n", 413},
		{"bad content length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
		{"two content lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{", 400},
		{"chunked and length", "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"unknown transfer coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"malformed request line", "POST /\r\n\r\n", 400},
		{"space in target", "POST / x HTTP/1.1\r\n\r\n", 400},
		{"HTTP/2", "POST / HTTP/2.0\r\n\r\n", 505},
		{"not HTTP", "POST / FTP/1.0\r\n\r\n", 400},
		{"bad header name", "POST / HTTP/1.1\r\nBad Name: 1\r\n\r\n", 400},
		{"folded header", "POST / HTTP/1.1\r\nA: 1\r\n continued\r\n\r\n", 400},
		{"control in value", "POST / HTTP/1.1\r\nA: 1\x00\r\n\r\n", 400},
		{"truncated head", "POST / HTTP/1.1\r\nA: 1", 0},
		{"truncated body", post("/", "{}", "")[:len(post("/", "{}", ""))-1], 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			c.send(tc.req)
			if tc.status == 0 {
				c.c.(*net.TCPConn).CloseWrite()
				if !c.closed() {
					t.Error("connection not closed")
				}
				return
			}
			resp, _ := c.reply("POST")
			if resp.StatusCode != tc.status || !resp.Close {
				t.Errorf("%d close=%v, want %d and close", resp.StatusCode, resp.Close, tc.status)
			}
			if !c.closed() {
				t.Error("connection left open")
			}
		})
	}
	// Headers just within the limit pass.
	c := dial(t, addr)
	req := post("/", echoBodyID("1"), "")
	pad := maxHeaderBytes - (len(req) - len(echoBodyID("1"))) - len("X-Pad: ")
	c.send(post("/", echoBodyID("1"), "X-Pad: "+strings.Repeat("p", pad)+"\r\n"))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("1") {
		t.Errorf("headers at the limit: %d %q", resp.StatusCode, got)
	}
}

func TestHTTP1ReadTimeout(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{ReadTimeout: 300 * time.Millisecond})
	addr := listen(t, s)

	// Idle keep-alive connections are closed after the timeout.
	c := dial(t, addr)
	c.send(post("/", echoBodyID("1"), ""))
	c.reply("POST")
	start := time.Now()
	if !c.closed() || time.Since(start) < 200*time.Millisecond {
		t.Errorf("idle connection closed after %v", time.Since(start))
	}

	// So is a request that stalls half-way.
	c = dial(t, addr)
	c.send("POST / HTTP/1.1\r\nAuthorization: " + goodAuth + "\r\nContent-Length: 10\r\n\r\n{")
	if !c.closed() {
		t.Error("stalled request not dropped")
	}

	// A call may run longer than the timeout: replies have no deadline.
	block := make(chan struct{})
	s2, _ := newTestServer(t, Config{Methods: testMethods(block), ReadTimeout: 200 * time.Millisecond})
	c = dial(t, listen(t, s2))
	c.send(post("/", `{"method":"block","id":1}`, ""))
	time.Sleep(400 * time.Millisecond)
	close(block)
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != "{\"result\":true,\"error\":null,\"id\":1}\n" {
		t.Errorf("long call: %d %q", resp.StatusCode, got)
	}
}

func TestHTTP1Shutdown(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	s, _ := newTestServer(t, Config{Methods: testMethods(block)})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	addr := l.Addr().String()

	idle := dial(t, addr)
	idle.send(post("/", echoBodyID("1"), ""))
	idle.reply("POST")
	busy := dial(t, addr)
	busy.send(post("/", `{"method":"block","id":2}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })

	stopped := make(chan error, 1)
	go func() { stopped <- s.Shutdown(context.Background()) }()
	if !idle.closed() {
		t.Error("idle connection not closed by Shutdown")
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still accepting after Shutdown")
	}
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned %v with a call running", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(block)
	resp, got := busy.reply("POST")
	if resp.StatusCode != 200 || got != "{\"result\":true,\"error\":null,\"id\":2}\n" || !resp.Close {
		t.Errorf("in-flight call: %d %q close=%v", resp.StatusCode, got, resp.Close)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := s.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve after Shutdown: %v", err)
	}
}

func TestHTTP1ShutdownDeadline(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	defer close(block)
	s, _ := newTestServer(t, Config{Methods: testMethods(block)})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	c := dial(t, l.Addr().String())
	c.send(post("/", `{"method":"block","id":2}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	if !c.closed() {
		t.Error("connection kept past the shutdown deadline")
	}
	block <- struct{}{}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestHTTP1AllowList(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, Config{AllowIPs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	c := dial(t, listen(t, s))
	c.send(post("/", echoBodyID("1"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 403 || got != "" {
		t.Errorf("forbidden peer: %d %q", resp.StatusCode, got)
	}
	if !strings.Contains(logs.String(), "forbidden address") {
		t.Error("forbidden peer not logged")
	}
}

func TestHTTP1Panic(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, Config{})
	c := dial(t, listen(t, s))
	c.send(post("/", `{"method":"panic","id":1}`, ""))
	want := `{"result":null,"error":{"code":-1,"message":"` + internalErrorMessage + `"},"id":1}` + "\n"
	if resp, got := c.reply("POST"); resp.StatusCode != 500 || got != want {
		t.Errorf("panic: %d %q", resp.StatusCode, got)
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged at error level:\n%s", logs.String())
	}
	c.send(post("/", echoBodyID("2"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("2") {
		t.Errorf("after panic: %d %q", resp.StatusCode, got)
	}
}

func TestHTTP1WorkQueue(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	s, _ := newTestServer(t, Config{Methods: testMethods(block), Threads: 1, WorkQueue: 1})
	addr := listen(t, s)
	a, b, c := dial(t, addr), dial(t, addr), dial(t, addr)
	a.send(post("/", `{"method":"block","id":1}`, ""))
	waitFor(t, func() bool { return len(s.slots) == 1 })
	b.send(post("/", `{"method":"block","id":2}`, ""))
	waitFor(t, func() bool { return s.waiting.Load() == 1 })
	c.send(post("/", echoBodyID("3"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 503 || got != "Work queue depth exceeded" {
		t.Errorf("full queue: %d %q", resp.StatusCode, got)
	}
	close(block)
	for _, x := range []*rawConn{a, b} {
		if resp, _ := x.reply("POST"); resp.StatusCode != 200 {
			t.Errorf("blocked call: %d", resp.StatusCode)
		}
	}
}
