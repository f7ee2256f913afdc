package rpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
)

// This file is the server's HTTP/1.1 front end: a small, strict server for
// the one kind of traffic the RPC port carries. One goroutine per
// connection parses requests by hand into a reused struct, hands them to
// Server.handle (the same rules as ServeHTTP) and writes each reply with a
// single write. It keeps libevent's limits: headers up to 8192 bytes,
// bodies up to MaxBodySize, -rpcservertimeout as the read and idle
// deadline; that timeout also bounds writing a reply. While a call runs
// longer than watchDelay, a background read watches the connection, so
// that a client hanging up cancels its call.

// Limits of the front end.
const (
	// readBufSize is the connection's read buffer: one header line
	// longer than the whole header limit cannot be valid.
	readBufSize = maxHeaderBytes + 64
	// maxDiscard is the largest unread body skipped to keep a connection
	// alive; larger ones close it.
	maxDiscard = 256 << 10
	// maxLeadingBlankLines bounds the empty lines tolerated before a
	// request line.
	maxLeadingBlankLines = 4
	// watchDelay is how long a call runs before its connection is
	// watched for the client hanging up; shorter calls cost no watch.
	watchDelay = 20 * time.Millisecond
)

// aLongTimeAgo is a deadline in the past, to interrupt a blocked read.
var aLongTimeAgo = time.Unix(1, 0)

// Connection states seen by Shutdown.
const (
	connIdle int32 = iota
	connActive
)

// conn is one client connection of the front end.
type conn struct {
	s       *Server
	nc      net.Conn
	rd      *bufio.Reader
	remote  string
	allowed bool
	state   atomic.Int32

	deadline  time.Time // current read deadline
	wdeadline time.Time // current write deadline
	lastWrite time.Time // when the last reply was written

	// The watch of the peer while a call runs (watchPeer).
	watch struct {
		timer    *time.Timer        // starts the background read after watchDelay
		wg       sync.WaitGroup     // the background read, once the timer fired
		mu       sync.Mutex         // guards stopping and reading
		stopping bool               // unwatchPeer was called
		reading  bool               // the background read is blocked in Peek
		cancel   context.CancelFunc // cancels the call's context
	}

	// The request being served.
	req        request
	minor      int  // HTTP/1.<minor>
	keepAlive  bool // the connection stays open after the reply
	chunked    bool // Transfer-Encoding: chunked
	expect100  bool // a 100 Continue is owed before the body
	bodyDone   bool // the body was read to its end
	bodyNeeded bool // the request has a body at all
	lastAuth   string

	in  []byte // request body buffer
	out []byte // reply body buffer
	w   []byte // wire buffer
}

// protocolError is a request the front end refuses itself: it answers
// with status (0: no answer) and closes the connection.
type protocolError struct {
	status int
	msg    string
}

func (e *protocolError) Error() string { return e.msg }

func badRequest(msg string) error { return &protocolError{http.StatusBadRequest, msg} }

// serveHTTP1 is Serve: it accepts connections until Shutdown.
func (s *Server) serveHTTP1(l net.Listener) error {
	s.mu.Lock()
	if s.stopped.Load() {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	if s.listeners == nil {
		s.listeners = make(map[net.Listener]struct{})
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.stopped.Load() {
				return http.ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of descriptors and the like: wait and retry.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("RPC accept failed; retrying", "err", err, "delay", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c := s.newConn(nc)
		if c == nil {
			return http.ErrServerClosed
		}
		safego.Go("RPC connection", func() error { c.serve(); return nil })
	}
}

// newConn registers an accepted connection, checking the allow-list
// once. It returns nil (and closes nc) when the server is stopping.
func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, remote: nc.RemoteAddr().String()}
	c.allowed = s.allowed(c.remote)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped.Load() {
		nc.Close()
		return nil
	}
	if s.conns == nil {
		s.conns = make(map[*conn]struct{})
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return c
}

// shutdownHTTP1 stops the listeners, closes idle connections and waits
// for the others to finish their request (until ctx ends).
func (s *Server) shutdownHTTP1(ctx context.Context) error {
	s.mu.Lock()
	s.stopped.Store(true)
	for l := range s.listeners {
		l.Close()
	}
	s.mu.Unlock()

	done := make(chan struct{})
	safego.Go("RPC shutdown", func() error { s.connWG.Wait(); close(done); return nil })
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		// A connection turning idle after this pass sees stopped and
		// closes itself.
		s.mu.Lock()
		for c := range s.conns {
			if c.state.Load() == connIdle {
				c.nc.Close()
			}
		}
		s.mu.Unlock()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			s.mu.Lock()
			for c := range s.conns {
				c.nc.Close()
			}
			s.mu.Unlock()
			<-done
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// serve runs the connection's request loop.
func (c *conn) serve() {
	s := c.s
	defer func() {
		c.nc.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.connWG.Done()
	}()
	c.rd = bufio.NewReaderSize(c.nc, readBufSize)
	c.in = make([]byte, 0, 1024)
	c.out = make([]byte, 0, 1024)
	c.w = make([]byte, 0, 1024)
	for {
		c.state.Store(connIdle)
		if s.stopped.Load() {
			return
		}
		now := c.lastWrite
		if now.IsZero() {
			now = time.Now()
		}
		c.refreshDeadline(now)
		if _, err := c.rd.Peek(1); err != nil {
			return
		}
		c.state.Store(connActive)
		if !c.serveOne() {
			return
		}
	}
}

// refreshDeadline moves the read deadline to now + -rpcservertimeout. To
// spare a timer update per request, a deadline set less than 1/16 of the
// timeout ago is kept.
func (c *conn) refreshDeadline(now time.Time) {
	t := c.s.readTimeout
	if c.deadline.Sub(now) > t-t/16 {
		return
	}
	c.deadline = now.Add(t)
	c.nc.SetReadDeadline(c.deadline)
}

// refreshWriteDeadline gives the reply about to be written until now +
// -rpcservertimeout, keeping a deadline set less than 1/16 of the timeout
// ago as refreshDeadline does.
func (c *conn) refreshWriteDeadline(now time.Time) {
	t := c.s.readTimeout
	if c.wdeadline.Sub(now) > t-t/16 {
		return
	}
	c.wdeadline = now.Add(t)
	c.nc.SetWriteDeadline(c.wdeadline)
}

// serveOne reads, answers and writes one request. It reports whether the
// connection stays open. A panic is logged and drops the connection.
func (c *conn) serveOne() (keep bool) {
	defer func() {
		if p := recover(); p != nil {
			c.s.log.Error("panic in RPC server", "panic", fmt.Sprint(p), "peer", c.remote)
			keep = false
		}
	}()
	if err := c.readHead(); err != nil {
		var pe *protocolError
		if errors.As(err, &pe) {
			c.s.log.Debug("bad HTTP request", "peer", c.remote, "err", pe.msg)
			if pe.status != 0 {
				c.keepAlive = false
				c.write(reply{status: pe.status, ctype: ctypeHTML, length: true, close: true})
			}
		}
		return false
	}
	rep := c.s.handle(c.s.ctx, &c.req, &c.in, c.out[:0])
	if rep.body != nil && cap(rep.body) <= 1<<20 {
		c.out = rep.body[:0]
	}
	if cap(c.in) > 1<<20 {
		c.in = make([]byte, 0, 1024)
	}
	if rep.abort {
		return false
	}
	if !c.bodyDone && c.bodyNeeded {
		// The body was not read: skip it when small and announced,
		// otherwise the connection cannot be reused.
		if c.chunked || c.expect100 || c.req.length > maxDiscard {
			rep.close = true
		} else if _, err := c.rd.Discard(int(c.req.length)); err != nil {
			rep.close = true
		}
	}
	if rep.close || !c.keepAlive || c.s.stopped.Load() {
		rep.close = true
		c.keepAlive = false
	}
	if !c.write(rep) {
		return false
	}
	return c.keepAlive
}

// watchPeer is peerWatcher's: it returns the call's context, cancelled
// when the client closes the connection. Calls that end within watchDelay
// only pay for a timer; after that a background read blocks on the
// connection: end of file or an error means the client is gone, data
// means it pipelined its next request (which stays buffered).
func (c *conn) watchPeer(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	w := &c.watch
	w.cancel = cancel
	w.stopping = false
	w.wg.Add(1)
	if w.timer == nil {
		w.timer = time.AfterFunc(watchDelay, func() {
			safego.Run("RPC peer watch", func() error { c.backgroundRead(); return nil })
		})
	} else {
		w.timer.Reset(watchDelay)
	}
	return ctx
}

// backgroundRead runs when a call outlives watchDelay (see watchPeer).
func (c *conn) backgroundRead() {
	w := &c.watch
	defer w.wg.Done()
	w.mu.Lock()
	if w.stopping {
		w.mu.Unlock()
		return
	}
	// The call may run for hours: no read deadline while it does. Set
	// under the lock, so that unwatchPeer's interruption comes after.
	c.nc.SetReadDeadline(time.Time{})
	w.reading = true
	w.mu.Unlock()
	_, err := c.rd.Peek(1)
	w.mu.Lock()
	w.reading = false
	gone := err != nil && !w.stopping
	w.mu.Unlock()
	if gone {
		c.s.log.Debug("client hung up; cancelling its call", "peer", c.remote, "err", err)
		w.cancel()
	}
}

// unwatchPeer stops the watch: it interrupts a background read and waits
// for it, so that the request loop has the connection to itself again.
func (c *conn) unwatchPeer() {
	w := &c.watch
	if w.timer.Stop() {
		w.wg.Done() // the read never started
	} else {
		w.mu.Lock()
		w.stopping = true
		if w.reading {
			c.nc.SetReadDeadline(aLongTimeAgo)
		}
		w.mu.Unlock()
		w.wg.Wait()
		// The read deadline was changed: set it afresh next time.
		c.deadline = time.Time{}
	}
	w.cancel()
}

// readHead parses the request line and headers into c.req.
func (c *conn) readHead() error {
	c.req = request{remote: c.remote, allowed: c.allowed, body: c, stream: c}
	c.chunked, c.expect100, c.bodyDone, c.bodyNeeded = false, false, false, false
	var (
		total      int
		haveLength bool
		connClose  bool
		connKeep   bool
		te         []byte
	)
	line, err := c.readLine(&total)
	for blank := 0; err == nil && len(line) == 0; blank++ {
		if blank == maxLeadingBlankLines {
			return badRequest("blank lines before the request line")
		}
		line, err = c.readLine(&total)
	}
	if err != nil {
		return err
	}
	if err := c.parseRequestLine(line); err != nil {
		return err
	}
	c.req.length = 0
	for {
		line, err := c.readLine(&total)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return badRequest("malformed header line")
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		if !validValue(value) {
			return badRequest("invalid header value")
		}
		switch {
		case equalFold(name, "authorization"):
			if !c.req.hasAuthz {
				c.req.hasAuthz = true
				if string(value) == c.lastAuth {
					c.req.authz = c.lastAuth
				} else {
					c.req.authz = string(value)
					c.lastAuth = c.req.authz
				}
			}
		case equalFold(name, "content-length"):
			n, ok := parseLength(value)
			if !ok || haveLength && n != c.req.length {
				return badRequest("invalid Content-Length")
			}
			c.req.length, haveLength = n, true
		case equalFold(name, "transfer-encoding"):
			if te != nil {
				return &protocolError{http.StatusNotImplemented, "repeated Transfer-Encoding"}
			}
			te = value
		case equalFold(name, "connection"):
			for tok := range bytes.SplitSeq(value, []byte{','}) {
				tok = trimOWS(tok)
				connClose = connClose || equalFold(tok, "close")
				connKeep = connKeep || equalFold(tok, "keep-alive")
			}
		case equalFold(name, "last-event-id"):
			if !c.req.hasLastEventID {
				c.req.lastEventID, c.req.hasLastEventID = string(value), true
			}
		case equalFold(name, "expect"):
			if !equalFold(value, "100-continue") {
				return &protocolError{http.StatusExpectationFailed, "unsupported Expect"}
			}
			c.expect100 = c.minor >= 1
		}
	}
	if te != nil {
		if !equalFold(te, "chunked") {
			return &protocolError{http.StatusNotImplemented, "unsupported Transfer-Encoding"}
		}
		if haveLength {
			return badRequest("both Transfer-Encoding and Content-Length")
		}
		c.chunked = true
		c.req.length = -1
	}
	c.bodyNeeded = c.chunked || c.req.length > 0
	c.expect100 = c.expect100 && c.bodyNeeded
	if c.minor >= 1 {
		c.keepAlive = !connClose
	} else {
		c.keepAlive = connKeep && !connClose
	}
	return nil
}

// readLine returns the next line without its line ending, counting its
// length against the header limit.
func (c *conn) readLine(total *int) ([]byte, error) {
	line, err := c.rd.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &protocolError{http.StatusRequestEntityTooLarge, "header line too long"}
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	*total += len(line)
	if *total > maxHeaderBytes {
		return nil, &protocolError{http.StatusRequestEntityTooLarge, "headers too large"}
	}
	return line, nil
}

// parseRequestLine reads "METHOD target HTTP/1.x".
func (c *conn) parseRequestLine(line []byte) error {
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 <= 0 {
		return badRequest("malformed request line")
	}
	rest := line[sp1+1:]
	sp2 := bytes.IndexByte(rest, ' ')
	if sp2 <= 0 {
		return badRequest("malformed request line")
	}
	method, target, proto := line[:sp1], rest[:sp2], rest[sp2+1:]
	if !isToken(method) {
		return badRequest("malformed method")
	}
	for _, b := range target {
		if b <= ' ' || b == 0x7f {
			return badRequest("malformed request target")
		}
	}
	switch {
	case string(proto) == "HTTP/1.1":
		c.minor = 1
	case string(proto) == "HTTP/1.0":
		c.minor = 0
	case len(proto) == 8 && string(proto[:5]) == "HTTP/" && isDigit(proto[5]) && proto[6] == '.' && isDigit(proto[7]):
		return &protocolError{http.StatusHTTPVersionNotSupported, "unsupported HTTP version"}
	default:
		return badRequest("malformed HTTP version")
	}
	switch string(method) {
	case http.MethodPost:
		c.req.method = http.MethodPost
	case http.MethodGet:
		c.req.method = http.MethodGet
	default:
		c.req.method = string(method)
	}
	if string(target) == "/" {
		c.req.uri = "/"
	} else {
		c.req.uri = string(target)
	}
	return nil
}

// readBody is the connection's bodySource: exactly Content-Length bytes,
// or the decoded chunks.
func (c *conn) readBody(buf []byte) ([]byte, error) {
	if c.expect100 {
		c.expect100 = false
		c.refreshWriteDeadline(time.Now())
		if _, err := io.WriteString(c.nc, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return buf, err
		}
	}
	if c.chunked {
		buf, err := c.readChunked(buf)
		c.bodyDone = err == nil
		return buf, err
	}
	n := int(c.req.length)
	if cap(buf)-len(buf) < n {
		buf = append(make([]byte, 0, len(buf)+n), buf...)
	}
	_, err := io.ReadFull(c.rd, buf[len(buf):len(buf)+n])
	if err != nil {
		return buf, err
	}
	c.bodyDone = true
	return buf[:len(buf)+n], nil
}

// readChunked decodes a chunked body, at most MaxBodySize bytes, and
// skips its trailers.
func (c *conn) readChunked(buf []byte) ([]byte, error) {
	var total int
	for {
		line, err := c.rd.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return buf, errors.New("chunk size line too long")
			}
			return buf, err
		}
		size, ok := parseChunkSize(line)
		if !ok {
			return buf, errors.New("malformed chunk size")
		}
		if size == 0 {
			break
		}
		if int64(len(buf))+size > MaxBodySize {
			return buf, errTooLarge
		}
		n := int(size)
		if cap(buf)-len(buf) < n {
			buf = append(buf, make([]byte, n)...)[:len(buf)]
		}
		if _, err := io.ReadFull(c.rd, buf[len(buf):len(buf)+n]); err != nil {
			return buf, err
		}
		buf = buf[:len(buf)+n]
		crlf, err := c.rd.ReadSlice('\n')
		if err != nil {
			return buf, err
		}
		if s := string(crlf); s != "\r\n" && s != "\n" {
			return buf, errors.New("chunk not followed by CRLF")
		}
	}
	// Trailers, bounded like headers, are ignored.
	for {
		line, err := c.readLine(&total)
		if err != nil {
			return buf, err
		}
		if len(line) == 0 {
			return buf, nil
		}
	}
}

// parseChunkSize reads the hex size of a chunk-size line, ignoring chunk
// extensions.
func parseChunkSize(line []byte) (int64, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = trimOWS(line)
	if len(line) == 0 || len(line) > 16 {
		return 0, false
	}
	var n int64
	for _, b := range line {
		v := hexVal(b)
		if v < 0 {
			return 0, false
		}
		if n > MaxBodySize {
			return n, true // too large either way; the caller refuses it
		}
		n = n<<4 | int64(v)
	}
	return n, true
}

// write sends the reply with one write. It reports false when the
// connection failed.
func (c *conn) write(rep reply) bool {
	w := append(c.w[:0], statusLine(rep.status)...)
	if rep.ctype != "" {
		w = append(w, "Content-Type: "...)
		w = append(w, rep.ctype...)
		w = append(w, "\r\n"...)
	}
	if rep.length {
		w = append(w, "Content-Length: "...)
		w = strconv.AppendInt(w, int64(len(rep.body)), 10)
		w = append(w, "\r\n"...)
	}
	if rep.authenticate {
		w = append(w, "WWW-Authenticate: Basic realm=\"jsonrpc\"\r\n"...)
	}
	c.lastWrite = time.Now()
	w = append(w, dateHeader(c.lastWrite)...)
	switch {
	case rep.close:
		w = append(w, "Connection: close\r\n"...)
	case c.minor == 0:
		w = append(w, "Connection: keep-alive\r\n"...)
	}
	w = append(w, "\r\n"...)
	c.refreshWriteDeadline(c.lastWrite)
	var err error
	if len(rep.body) > 32<<10 {
		bufs := net.Buffers{w, rep.body}
		_, err = bufs.WriteTo(c.nc)
	} else {
		w = append(w, rep.body...)
		_, err = c.nc.Write(w)
	}
	if cap(w) <= 64<<10 {
		c.w = w[:0]
	}
	return err == nil
}

// startStream is streamSink's: the head of a 200 reply whose body runs
// until the connection closes.
func (c *conn) startStream(ctype string) error {
	w := append(c.w[:0], statusLine(http.StatusOK)...)
	w = append(w, "Content-Type: "...)
	w = append(w, ctype...)
	w = append(w, "\r\nCache-Control: no-cache\r\n"...)
	w = append(w, dateHeader(time.Now())...)
	w = append(w, "Connection: close\r\n\r\n"...)
	c.keepAlive = false
	err := c.writeStream(w)
	c.w = w[:0]
	return err
}

// writeStream is streamSink's: one piece of a streamed body, which must
// leave within -rpcservertimeout (a reader that stops reading is dropped).
func (c *conn) writeStream(p []byte) error {
	c.lastWrite = time.Now()
	c.wdeadline = c.lastWrite.Add(c.s.readTimeout)
	c.nc.SetWriteDeadline(c.wdeadline)
	_, err := c.nc.Write(p)
	return err
}

// statusLines caches the status lines of the statuses the server sends.
var statusLines [600][]byte

func init() {
	for _, code := range []int{100, 200, 204, 400, 401, 403, 404, 405, 413, 417, 500, 501, 503, 505} {
		statusLines[code] = fmt.Appendf(nil, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	}
}

func statusLine(code int) []byte {
	if code > 0 && code < len(statusLines) && statusLines[code] != nil {
		return statusLines[code]
	}
	return fmt.Appendf(nil, "HTTP/1.1 %03d %s\r\n", code, http.StatusText(code))
}

// dateLine is the cached Date header of one second.
type dateLine struct {
	sec  int64
	line []byte
}

var dateCache atomic.Pointer[dateLine]

// dateHeader returns the "Date: ...\r\n" header line for now.
func dateHeader(now time.Time) []byte {
	sec := now.Unix()
	if d := dateCache.Load(); d != nil && d.sec == sec {
		return d.line
	}
	d := &dateLine{sec: sec}
	d.line = append(append([]byte("Date: "), now.UTC().AppendFormat(nil, http.TimeFormat)...), "\r\n"...)
	dateCache.Store(d)
	return d.line
}

// isToken reports whether b is a non-empty HTTP token.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, ch := range b {
		if ch >= 0x80 || !tokenChars[ch] {
			return false
		}
	}
	return true
}

var tokenChars = func() (t [128]bool) {
	for ch := '0'; ch <= '9'; ch++ {
		t[ch] = true
	}
	for ch := 'a'; ch <= 'z'; ch++ {
		t[ch] = true
		t[ch-'a'+'A'] = true
	}
	for _, ch := range "!#$%&'*+-.^_`|~" {
		t[ch] = true
	}
	return t
}()

// validValue reports whether a header value holds no control characters
// other than tab.
func validValue(b []byte) bool {
	for _, ch := range b {
		if ch < ' ' && ch != '\t' || ch == 0x7f {
			return false
		}
	}
	return true
}

// trimOWS drops leading and trailing spaces and tabs.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares b with the lower-case ASCII word, ignoring case.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != lower[i] {
			return false
		}
	}
	return true
}

// parseLength reads a Content-Length value: decimal digits only.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, ch := range b {
		if !isDigit(ch) {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	return n, true
}
