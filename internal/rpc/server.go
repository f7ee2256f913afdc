package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the server settings, Core's values.
const (
	DefaultThreads     = 16
	DefaultWorkQueue   = 64
	DefaultReadTimeout = 30 * time.Second
	// MaxBodySize is the largest request body accepted (32 MiB).
	MaxBodySize = 32 << 20
	// maxHeaderBytes bounds the request headers.
	maxHeaderBytes = 8192
	// authFailDelay is how long a request with wrong credentials waits
	// before its 401, to slow down guessing.
	authFailDelay = 250 * time.Millisecond
)

// Config configures a Server.
type Config struct {
	// Methods is the method table.
	Methods []*Method
	// Auth checks credentials; required.
	Auth *Authenticator
	// AllowIPs are the client networks allowed to connect; empty means
	// loopback only (127.0.0.0/8 and ::1).
	AllowIPs []netip.Prefix
	// Threads is the number of calls run at once (-rpcthreads).
	Threads int
	// WorkQueue is the number of requests that may wait for a worker
	// (-rpcworkqueue); more get 503.
	WorkQueue int
	// ReadTimeout bounds reading a request and idle keep-alive time
	// (-rpcservertimeout), and writing a reply: a client that stops
	// reading its reply for that long is dropped. Running a call has no
	// deadline (an import may rescan for hours).
	ReadTimeout time.Duration
	// MapError turns domain errors into *Error (methods.MapError); nil
	// passes errors through unchanged.
	MapError func(error) error
	// Logger receives the server's log lines; nil discards them.
	Logger *slog.Logger
	// LogPath is the debug log path reported by getrpcinfo.
	LogPath string
	// Whitelist restricts the methods each user may call (-rpcwhitelist);
	// nil allows every method to every user.
	Whitelist *Whitelist
	// AuthFailDelay overrides the 250 ms delay after wrong credentials
	// (tests); zero means the default.
	AuthFailDelay time.Duration
	// Events serves GET /wallet/<name>/events (events.go); nil leaves
	// that path to the JSON-RPC rules (405).
	Events EventFeed
	// MaxStreams bounds the event streams and long polls open at once;
	// zero means DefaultMaxStreams.
	MaxStreams int
	// Heartbeat is how often an idle event stream sends a comment;
	// zero means DefaultHeartbeat.
	Heartbeat time.Duration
}

// Server is the JSON-RPC HTTP server. It implements http.Handler.
type Server struct {
	methods  map[string]*Method
	auth     *Authenticator
	wl       *Whitelist
	allow    []netip.Prefix
	mapError func(error) error
	log      *slog.Logger
	logPath  string
	delay    time.Duration

	// slots holds one token per running call; waiting counts requests
	// queued for a slot.
	slots     chan struct{}
	waiting   atomic.Int64
	workQueue int64

	readTimeout time.Duration
	active      activeCalls

	// The event stream endpoint (events.go).
	events     EventFeed
	streams    atomic.Int64
	maxStreams int
	heartbeat  time.Duration

	ctx     context.Context
	cancel  context.CancelFunc
	stopped atomic.Bool

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	connWG    sync.WaitGroup
}

// NewServer builds a server from cfg. Method names must be unique.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Auth == nil {
		return nil, errors.New("rpc: no authenticator")
	}
	s := &Server{
		methods:     make(map[string]*Method, len(cfg.Methods)),
		auth:        cfg.Auth,
		wl:          cfg.Whitelist,
		allow:       cfg.AllowIPs,
		mapError:    cfg.MapError,
		log:         cfg.Logger,
		logPath:     cfg.LogPath,
		delay:       cfg.AuthFailDelay,
		readTimeout: cfg.ReadTimeout,
		events:      cfg.Events,
		maxStreams:  cfg.MaxStreams,
		heartbeat:   cfg.Heartbeat,
	}
	if s.maxStreams <= 0 {
		s.maxStreams = DefaultMaxStreams
	}
	if s.heartbeat <= 0 {
		s.heartbeat = DefaultHeartbeat
	}
	for _, m := range cfg.Methods {
		if _, dup := s.methods[m.Name]; dup {
			return nil, fmt.Errorf("rpc: method %q registered twice", m.Name)
		}
		s.methods[m.Name] = m
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if len(s.allow) == 0 {
		s.allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	if s.delay == 0 {
		s.delay = authFailDelay
	}
	threads := cfg.Threads
	if threads <= 0 {
		threads = DefaultThreads
	}
	s.slots = make(chan struct{}, threads)
	s.workQueue = int64(cfg.WorkQueue)
	if cfg.WorkQueue <= 0 {
		s.workQueue = DefaultWorkQueue
	}
	if s.readTimeout <= 0 {
		s.readTimeout = DefaultReadTimeout
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Info reports the running calls and the log path (getrpcinfo).
func (s *Server) Info() Info {
	return Info{ActiveCommands: s.active.list(), LogPath: s.logPath}
}

// ParseAllowIP parses one -rpcallowip value: an address, an address with a
// prefix length (1.2.3.0/24) or with a dotted netmask
// (1.2.3.0/255.255.255.0).
func ParseAllowIP(v string) (netip.Prefix, error) {
	if addr, mask, ok := strings.Cut(v, "/"); ok {
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("invalid -rpcallowip subnet specification: %s", v)
		}
		if bits, err := strconv.Atoi(mask); err == nil {
			p, err := a.Prefix(bits)
			if err != nil {
				return netip.Prefix{}, fmt.Errorf("invalid -rpcallowip subnet specification: %s", v)
			}
			return p, nil
		}
		m := net.ParseIP(mask)
		if m == nil || m.To4() == nil || !a.Is4() {
			return netip.Prefix{}, fmt.Errorf("invalid -rpcallowip subnet specification: %s", v)
		}
		ones, bits := net.IPMask(m.To4()).Size()
		if bits == 0 {
			return netip.Prefix{}, fmt.Errorf("invalid -rpcallowip subnet specification: %s", v)
		}
		return a.Prefix(ones)
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("invalid -rpcallowip subnet specification: %s", v)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// allowed reports whether the peer address may use the server.
func (s *Server) allowed(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	a := ap.Addr().Unmap()
	for _, p := range s.allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Serve accepts connections on l and answers them with the server's
// HTTP/1.1 front end until Shutdown. It returns http.ErrServerClosed after
// a clean shutdown.
func (s *Server) Serve(l net.Listener) error {
	return s.serveHTTP1(l)
}

// Shutdown cancels the handlers' context (long work stops), stops
// accepting connections, closes idle ones, and waits for running calls to
// end and their replies to be written (until ctx ends, then every
// connection is closed).
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	return s.shutdownHTTP1(ctx)
}

// Response header values, shared (net/http does not modify them).
var (
	hdrJSON       = []string{"application/json"}
	hdrHTML       = []string{"text/html; charset=ISO-8859-1"}
	hdrAuth       = []string{`Basic realm="jsonrpc"`}
	hdrClose      = []string{"close"}
	onlyPostReply = "JSONRPC server handles only POST requests"
	workQueueFull = "Work queue depth exceeded"
)

// Content types of the replies.
const (
	ctypeJSON = "application/json"
	ctypeHTML = "text/html; charset=ISO-8859-1"
)

// request is the transport-independent view of one HTTP request, filled by
// the HTTP/1.1 front end or from a net/http request.
type request struct {
	method   string
	uri      string // request target, as sent
	remote   string // peer "host:port", for the log
	allowed  bool   // the peer passed the allow-list
	authz    string // first Authorization value
	hasAuthz bool   // an Authorization header was sent
	length   int64  // Content-Length; -1 when unknown (chunked)
	body     bodySource

	lastEventID    string     // Last-Event-ID (event streams)
	hasLastEventID bool       // a Last-Event-ID header was sent
	stream         streamSink // writes a streamed reply; nil when not possible
}

// bodySource reads a request body on demand, after authentication.
type bodySource interface {
	// readBody appends the whole body to buf; it fails with errTooLarge
	// once more than MaxBodySize bytes arrive.
	readBody(buf []byte) ([]byte, error)
}

// peerWatcher is a bodySource that can tell, once the body is read, when
// the client hangs up while its call runs (the HTTP/1.1 front end).
type peerWatcher interface {
	// watchPeer returns a context derived from ctx that is cancelled
	// when the peer closes the connection.
	watchPeer(ctx context.Context) context.Context
	// unwatchPeer stops watching; the connection is then the caller's
	// again.
	unwatchPeer()
}

// reply is the answer to one request: status, the few headers the server
// ever sends, and the body.
type reply struct {
	status       int
	ctype        string // Content-Type, "" for none
	length       bool   // send Content-Length: len(body)
	authenticate bool   // send WWW-Authenticate
	close        bool   // send Connection: close and close the connection
	abort        bool   // send nothing and drop the connection
	body         []byte
}

// emptyReply is a body-less libevent-style reply.
func emptyReply(status int) reply {
	return reply{status: status, ctype: ctypeHTML, length: true}
}

// bufPool recycles request and reply buffers of the net/http path.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// ServeHTTP answers one request received through net/http (tests,
// httptest) with the same rules as the HTTP/1.1 front end.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic in RPC server", "panic", fmt.Sprint(p))
			panic(http.ErrAbortHandler)
		}
	}()
	req := request{
		method:  r.Method,
		uri:     r.RequestURI,
		remote:  r.RemoteAddr,
		allowed: s.allowed(r.RemoteAddr),
		length:  r.ContentLength,
		body:    netHTTPBody{r.Body, r.ContentLength},
	}
	if authz, ok := r.Header["Authorization"]; ok {
		req.hasAuthz = true
		if len(authz) > 0 {
			req.authz = authz[0]
		}
	}
	if id, ok := r.Header["Last-Event-Id"]; ok && len(id) > 0 {
		req.lastEventID, req.hasLastEventID = id[0], true
	}
	if f, ok := w.(http.Flusher); ok {
		req.stream = netHTTPStream{w, f}
	}
	// The call's context ends when the client goes away (net/http
	// cancels the request's) or the server stops.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	bp := bufPool.Get().(*[]byte)
	op := bufPool.Get().(*[]byte)
	rep := s.handle(ctx, &req, bp, (*op)[:0])
	if !rep.abort {
		h := w.Header()
		if rep.ctype == ctypeJSON {
			h["Content-Type"] = hdrJSON
		} else if rep.ctype != "" {
			h["Content-Type"] = hdrHTML
		}
		if rep.length {
			h["Content-Length"] = []string{strconv.Itoa(len(rep.body))}
		}
		if rep.authenticate {
			h["Www-Authenticate"] = hdrAuth
		}
		if rep.close {
			h["Connection"] = hdrClose
		}
		w.WriteHeader(rep.status)
		if len(rep.body) > 0 {
			w.Write(rep.body)
		}
	}
	if rep.body != nil {
		*op = rep.body[:0]
	}
	for _, b := range [...]*[]byte{bp, op} {
		if cap(*b) <= 1<<20 {
			bufPool.Put(b)
		}
	}
}

// netHTTPStream is the streamSink of the net/http path.
type netHTTPStream struct {
	w http.ResponseWriter
	f http.Flusher
}

func (n netHTTPStream) startStream(ctype string) error {
	h := n.w.Header()
	h["Content-Type"] = []string{ctype}
	h["Cache-Control"] = []string{"no-cache"}
	n.w.WriteHeader(http.StatusOK)
	n.f.Flush()
	return nil
}

func (n netHTTPStream) writeStream(p []byte) error {
	if _, err := n.w.Write(p); err != nil {
		return err
	}
	n.f.Flush()
	return nil
}

// netHTTPBody reads a net/http request body.
type netHTTPBody struct {
	r io.Reader
	n int64 // Content-Length, -1 when unknown
}

func (b netHTTPBody) readBody(buf []byte) ([]byte, error) {
	if b.r == nil {
		return buf, nil
	}
	if b.n >= 0 && int64(cap(buf)-len(buf)) < b.n {
		buf = append(make([]byte, 0, int64(len(buf))+b.n), buf...)
	}
	return readAll(b.r, buf)
}

// handle answers one request: allow-list, routing, method, auth, body,
// worker slot, envelope. in holds the request body buffer (grown as
// needed); the reply body is appended to out. ctx bounds the waits (the
// delay after wrong credentials, the work queue) and is the call's
// context; once the body is read, a client hanging up cancels it too.
func (s *Server) handle(ctx context.Context, r *request, in *[]byte, out []byte) reply {
	if !r.allowed {
		s.log.Warn("connection from a forbidden address", "peer", r.remote)
		return emptyReply(http.StatusForbidden)
	}
	if s.stopped.Load() {
		rep := emptyReply(http.StatusServiceUnavailable)
		rep.close = true
		return rep
	}

	// The event stream endpoint: GET /wallet/<name>/events.
	if r.method == http.MethodGet && s.events != nil {
		if name, query, ok := eventsPath(r.uri); ok {
			return s.handleEvents(ctx, r, name, query, out)
		}
	}

	// Routing: "/" exactly, or the /wallet/ prefix.
	var t target
	switch uri := r.uri; {
	case uri == "/":
	case strings.HasPrefix(uri, "/wallet/"):
		t = target{wallet: urlDecode(uri[len("/wallet/"):]), walletURI: true}
	default:
		return emptyReply(http.StatusNotFound)
	}

	// Only POST carries JSON-RPC.
	switch r.method {
	case http.MethodPost:
	case http.MethodGet, http.MethodPut:
		return reply{status: http.StatusMethodNotAllowed, ctype: ctypeHTML, length: true,
			body: append(out, onlyPostReply...)}
	case http.MethodHead:
		return reply{status: http.StatusMethodNotAllowed}
	default:
		return emptyReply(http.StatusMethodNotAllowed)
	}

	// Authentication, before the body is looked at.
	user, rep, ok := s.authenticate(ctx, r)
	if !ok {
		return rep
	}

	// The body, bounded.
	if r.length > MaxBodySize {
		rep := emptyReply(http.StatusRequestEntityTooLarge)
		rep.close = true
		return rep
	}
	body, err := r.body.readBody((*in)[:0])
	*in = body[:0]
	if err != nil {
		if errors.Is(err, errTooLarge) {
			rep := emptyReply(http.StatusRequestEntityTooLarge)
			rep.close = true
			return rep
		}
		return reply{abort: true}
	}

	if w, ok := r.body.(peerWatcher); ok {
		ctx = w.watchPeer(ctx)
		defer w.unwatchPeer()
	}

	// A worker slot, or 503 when too many requests wait.
	if !s.acquire() {
		return reply{status: http.StatusServiceUnavailable, ctype: ctypeHTML, length: true,
			body: append(out, workQueueFull...)}
	}
	t.user = user
	out, status := s.processInSlot(ctx, body, t, out)

	if status == http.StatusForbidden {
		return emptyReply(http.StatusForbidden)
	}
	if status == http.StatusNoContent {
		return reply{status: status, body: out[:0]}
	}
	return reply{status: status, ctype: ctypeJSON, length: true, body: append(out, '\n')}
}

// authenticate checks the request's credentials. Without them, or with
// wrong ones (after a delay that slows guessing), it returns the 401 reply
// and false.
func (s *Server) authenticate(ctx context.Context, r *request) (string, reply, bool) {
	if !r.hasAuthz {
		rep := emptyReply(http.StatusUnauthorized)
		rep.authenticate = true
		return "", rep, false
	}
	user, ok := s.auth.User(r.authz)
	if !ok {
		s.log.Warn("incorrect password attempt", "peer", r.remote)
		timer := time.NewTimer(s.delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return "", reply{abort: true}, false
		}
		rep := emptyReply(http.StatusUnauthorized)
		rep.authenticate = true
		return "", rep, false
	}
	return user, reply{}, true
}

// processInSlot runs process in the worker slot taken by acquire and
// releases the slot however process ends, panics included (a leaked slot
// would be lost for good).
func (s *Server) processInSlot(ctx context.Context, body []byte, t target, out []byte) ([]byte, int) {
	defer s.release()
	return s.process(ctx, body, t, out)
}

// release gives back a worker slot taken by acquire.
func (s *Server) release() { <-s.slots }

// acquire takes a worker slot, waiting in the bounded queue when all are
// busy. It reports false when the queue is full or the server shuts down.
// A queued call whose client went away still runs, as in Core: the call
// sees its cancelled context, and work that must outlive its client
// (Unwatched: an import, a rescan Specter starts and hangs up on) is done.
func (s *Server) acquire() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	if s.waiting.Add(1) > s.workQueue {
		s.waiting.Add(-1)
		s.log.Warn("request rejected: work queue depth exceeded")
		return false
	}
	defer s.waiting.Add(-1)
	select {
	case s.slots <- struct{}{}:
		return true
	case <-s.ctx.Done():
		return false
	}
}

var errTooLarge = errors.New("request body too large")

// readAll reads rd to its end into buf, at most MaxBodySize bytes.
func readAll(rd io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if len(buf) > MaxBodySize {
			return buf, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// urlDecode is Core's percent-decoding of the wallet name: "%XX" with two
// hex digits becomes that byte; anything else, "+" included, stays as is.
func urlDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, lo := hexVal(s[i+1]), hexVal(s[i+2])
			if hi >= 0 && lo >= 0 {
				out = append(out, byte(hi<<4|lo))
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}
