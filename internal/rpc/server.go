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
	// (-rpcservertimeout). Replies have no write deadline.
	ReadTimeout time.Duration
	// MapError turns domain errors into *Error (methods.MapError); nil
	// passes errors through unchanged.
	MapError func(error) error
	// Logger receives the server's log lines; nil discards them.
	Logger *slog.Logger
	// LogPath is the debug log path reported by getrpcinfo.
	LogPath string
	// AuthFailDelay overrides the 250 ms delay after wrong credentials
	// (tests); zero means the default.
	AuthFailDelay time.Duration
}

// Server is the JSON-RPC HTTP server. It implements http.Handler.
type Server struct {
	methods  map[string]*Method
	auth     *Authenticator
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

	ctx     context.Context
	cancel  context.CancelFunc
	stopped atomic.Bool

	mu    sync.Mutex
	https []*http.Server
}

// NewServer builds a server from cfg. Method names must be unique.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Auth == nil {
		return nil, errors.New("rpc: no authenticator")
	}
	s := &Server{
		methods:     make(map[string]*Method, len(cfg.Methods)),
		auth:        cfg.Auth,
		allow:       cfg.AllowIPs,
		mapError:    cfg.MapError,
		log:         cfg.Logger,
		logPath:     cfg.LogPath,
		delay:       cfg.AuthFailDelay,
		readTimeout: cfg.ReadTimeout,
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

type ctxKey int

const connAllowedKey ctxKey = 1

// Serve accepts connections on l until Shutdown. It returns
// http.ErrServerClosed after a clean shutdown.
func (s *Server) Serve(l net.Listener) error {
	hs := &http.Server{
		Handler:        s,
		ReadTimeout:    s.readTimeout,
		IdleTimeout:    s.readTimeout,
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		// The allow-list is checked once per connection.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connAllowedKey, s.allowed(c.RemoteAddr().String()))
		},
	}
	s.mu.Lock()
	if s.stopped.Load() {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.https = append(s.https, hs)
	s.mu.Unlock()
	return hs.Serve(l)
}

// Shutdown stops accepting connections, waits for running calls to finish
// (until ctx ends), then cancels the handlers' context.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.stopped.Store(true)
	hss := s.https
	s.mu.Unlock()
	var first error
	for _, hs := range hss {
		if err := hs.Shutdown(ctx); err != nil && first == nil {
			first = err
		}
	}
	s.cancel()
	return first
}

// Response header values, shared (net/http does not modify them).
var (
	hdrJSON       = []string{"application/json"}
	hdrHTML       = []string{"text/html; charset=ISO-8859-1"}
	hdrZero       = []string{"0"}
	hdrAuth       = []string{`Basic realm="jsonrpc"`}
	hdrClose      = []string{"close"}
	onlyPostReply = "JSONRPC server handles only POST requests"
)

// emptyReply writes a body-less libevent-style reply.
func emptyReply(w http.ResponseWriter, status int) {
	h := w.Header()
	h["Content-Type"] = hdrHTML
	h["Content-Length"] = hdrZero
	w.WriteHeader(status)
}

// bufPool recycles request and reply buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// ServeHTTP answers one HTTP request: allow-list, routing, method, auth,
// body, worker slot, envelope.
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

	if ok, set := r.Context().Value(connAllowedKey).(bool); set && !ok || !set && !s.allowed(r.RemoteAddr) {
		s.log.Warn("connection from a forbidden address", "peer", r.RemoteAddr)
		emptyReply(w, http.StatusForbidden)
		return
	}
	if s.stopped.Load() {
		w.Header()["Connection"] = hdrClose
		emptyReply(w, http.StatusServiceUnavailable)
		return
	}

	// Routing: "/" exactly, or the /wallet/ prefix.
	var t target
	uri := r.RequestURI
	switch {
	case uri == "/":
	case strings.HasPrefix(uri, "/wallet/"):
		t = target{wallet: urlDecode(uri[len("/wallet/"):]), walletURI: true}
	default:
		emptyReply(w, http.StatusNotFound)
		return
	}

	// Only POST carries JSON-RPC.
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodPut:
		h := w.Header()
		h["Content-Type"] = hdrHTML
		h["Content-Length"] = []string{strconv.Itoa(len(onlyPostReply))}
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, onlyPostReply)
		return
	case http.MethodHead:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	default:
		emptyReply(w, http.StatusMethodNotAllowed)
		return
	}

	// Authentication, before the body is looked at.
	authz, present := r.Header["Authorization"]
	if !present {
		w.Header()["Www-Authenticate"] = hdrAuth
		emptyReply(w, http.StatusUnauthorized)
		return
	}
	if len(authz) == 0 || !s.auth.Check(authz[0]) {
		s.log.Warn("incorrect password attempt", "peer", r.RemoteAddr)
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
		w.Header()["Www-Authenticate"] = hdrAuth
		emptyReply(w, http.StatusUnauthorized)
		return
	}

	// The body, bounded.
	if r.ContentLength > MaxBodySize {
		emptyReply(w, http.StatusRequestEntityTooLarge)
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			bufPool.Put(bp)
		}
	}()
	body, err := readBody(r.Body, r.ContentLength, (*bp)[:0])
	*bp = body[:0]
	if err != nil {
		if errors.Is(err, errTooLarge) {
			emptyReply(w, http.StatusRequestEntityTooLarge)
		}
		return
	}

	// A worker slot, or 503 when too many requests wait.
	if !s.acquire(r.Context()) {
		h := w.Header()
		h["Content-Type"] = hdrHTML
		msg := "Work queue depth exceeded"
		h["Content-Length"] = []string{strconv.Itoa(len(msg))}
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, msg)
		return
	}
	op := bufPool.Get().(*[]byte)
	out, status := s.process(s.ctx, body, t, (*op)[:0])
	<-s.slots

	if status == http.StatusNoContent {
		w.WriteHeader(status)
	} else {
		out = append(out, '\n')
		h := w.Header()
		h["Content-Type"] = hdrJSON
		h["Content-Length"] = []string{strconv.Itoa(len(out))}
		w.WriteHeader(status)
		w.Write(out)
	}
	*op = out[:0]
	if cap(out) <= 1<<20 {
		bufPool.Put(op)
	}
}

// acquire takes a worker slot, waiting in the bounded queue when all are
// busy. It reports false when the queue is full or the client went away.
func (s *Server) acquire(ctx context.Context) bool {
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
	case <-ctx.Done():
		return false
	}
}

var errTooLarge = errors.New("request body too large")

// readBody reads the whole body into buf, at most MaxBodySize bytes.
func readBody(rd io.Reader, n int64, buf []byte) ([]byte, error) {
	if n >= 0 {
		if int64(cap(buf)) < n {
			buf = make([]byte, 0, n)
		}
		buf = buf[:n]
		_, err := io.ReadFull(rd, buf)
		return buf, err
	}
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
