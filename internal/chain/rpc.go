package chain

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// maxReplyBytes bounds one HTTP reply body. A batch of blocks is sized
	// (blocksPerBatch) so that maximal blocks in hex stay below it.
	maxReplyBytes = 160 << 20

	// maxErrorBody bounds how much of an unexpected body an error quotes.
	maxErrorBody = 200
)

// request is one JSON-RPC 1.0 request object.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// reply is one JSON-RPC reply object.
type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
	ID     json.RawMessage `json:"id"`
}

// call is one request of a batch and, once done, its outcome.
type call struct {
	Method string
	Params []any
	// Raw, when not nil, is sent as the params value instead of Params
	// (a forwarded call's array or object, as the client wrote it).
	Raw json.RawMessage

	Result json.RawMessage
	Err    *RPCError
}

// conn is the JSON-RPC transport to one backend.
type conn struct {
	url      string
	name     string // "<kind> at <host>", for messages
	user     string
	password string
	cookie   string
	http     *http.Client
	retries  int
	pause    time.Duration
	inFlight chan struct{}

	id atomic.Uint64

	mu       sync.Mutex
	authUser string
	authPass string
}

// newConn prepares the transport described by cfg.
func newConn(cfg *Config) (*conn, error) {
	host := cfg.Host
	if host == "" {
		port, err := DefaultPort(cfg.Kind, cfg.Net)
		if err != nil {
			return nil, err
		}
		host = "127.0.0.1:" + port
	}
	scheme := "http"
	transport := &http.Transport{
		Proxy:               nil,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
	if cfg.CertFile != "" {
		pem, err := os.ReadFile(cfg.CertFile)
		if err != nil {
			return nil, fmt.Errorf("chain: read certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("chain: no certificate in %s",
				cfg.CertFile)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool,
			MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	retries := cfg.Retries
	switch {
	case retries == 0:
		retries = DefaultRetries
	case retries < 0:
		retries = 0
	}
	pause := cfg.RetryPause
	if pause == 0 {
		pause = 200 * time.Millisecond
	}
	inFlight := cfg.MaxInFlight
	if inFlight <= 0 {
		inFlight = DefaultMaxInFlight
	}
	c := &conn{
		url:      scheme + "://" + host + "/",
		name:     string(cfg.Kind) + " at " + host,
		user:     cfg.User,
		password: cfg.Password,
		cookie:   cfg.CookieFile,
		http:     &http.Client{Timeout: timeout, Transport: transport},
		retries:  retries,
		pause:    pause,
		inFlight: make(chan struct{}, inFlight),
	}
	if c.password == "" && c.cookie == "" {
		return nil, fmt.Errorf("chain: %s: no password and no cookie file",
			c.name)
	}
	return c, nil
}

// credentials returns the user and password to send, reading the cookie
// file when reload is set or nothing was read yet.
func (c *conn) credentials(reload bool) (string, string, error) {
	if c.password != "" {
		return c.user, c.password, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authPass != "" && !reload {
		return c.authUser, c.authPass, nil
	}
	data, err := os.ReadFile(c.cookie)
	if err != nil {
		return "", "", chainErr(ErrAuth, c.name+": read cookie file", err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	user, pass, ok := strings.Cut(line, ":")
	if !ok || pass == "" {
		return "", "", chainErr(ErrAuth, c.name+": malformed cookie file "+
			c.cookie, nil)
	}
	c.authUser, c.authPass = user, pass
	return user, pass, nil
}

// do sends calls as one JSON-RPC request (a single object for one call, a
// batch for several) and fills in each call's Result or Err. The error
// returned is a transport, authentication or decoding failure of the whole
// request.
func (c *conn) do(ctx context.Context, calls []*call) error {
	if len(calls) == 0 {
		return nil
	}
	reqs := make([]request, len(calls))
	first := c.id.Add(uint64(len(calls))) - uint64(len(calls)) + 1
	for i, cl := range calls {
		var params any = cl.Params
		switch {
		case cl.Raw != nil:
			params = cl.Raw
		case cl.Params == nil:
			params = []any{}
		}
		reqs[i] = request{JSONRPC: "1.0", ID: first + uint64(i),
			Method: cl.Method, Params: params}
	}
	var body []byte
	var err error
	if len(reqs) == 1 {
		body, err = json.Marshal(reqs[0])
	} else {
		body, err = json.Marshal(reqs)
	}
	if err != nil {
		return chainErr(ErrBadReply, c.name+": encode request", err)
	}

	select {
	case c.inFlight <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	data, err := c.postRetrying(ctx, body)
	<-c.inFlight
	if err != nil {
		return err
	}
	return c.decode(data, calls, first)
}

// decode distributes the reply body among calls, matching replies by id.
func (c *conn) decode(data []byte, calls []*call, first uint64) error {
	var replies []reply
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &replies); err != nil {
			return c.badReply(calls[0].Method, data, err)
		}
	} else {
		var r reply
		if err := json.Unmarshal(trimmed, &r); err != nil {
			return c.badReply(calls[0].Method, data, err)
		}
		if len(calls) > 1 {
			// A batch answered with one object: the backend
			// rejected the batch as a whole.
			if r.Error != nil {
				return chainErr(ErrRPC, c.name+": batch refused",
					r.Error)
			}
			return c.badReply(calls[0].Method, data,
				errors.New("one reply to a batch"))
		}
		replies = []reply{r}
	}
	seen := make([]bool, len(calls))
	for _, r := range replies {
		var id uint64
		if err := json.Unmarshal(r.ID, &id); err != nil ||
			id < first || id >= first+uint64(len(calls)) {
			if len(calls) == 1 && r.Error != nil {
				// A parse error answers with id null.
				calls[0].Err, seen[0] = r.Error, true
				continue
			}
			return c.badReply(calls[0].Method, data,
				fmt.Errorf("unexpected id %s", r.ID))
		}
		i := id - first
		if seen[i] {
			return c.badReply(calls[i].Method, data,
				fmt.Errorf("id %d answered twice", id))
		}
		seen[i] = true
		if r.Error != nil {
			calls[i].Err = r.Error
			continue
		}
		calls[i].Result = r.Result
	}
	for i, ok := range seen {
		if !ok {
			return c.badReply(calls[i].Method, data,
				fmt.Errorf("no reply to request %d", first+uint64(i)))
		}
	}
	return nil
}

func (c *conn) badReply(method string, data []byte, err error) error {
	quote := data
	if len(quote) > maxErrorBody {
		quote = quote[:maxErrorBody]
	}
	return chainErr(ErrBadReply, fmt.Sprintf("%s: %s: undecodable reply %q",
		c.name, method, quote), err)
}

// postRetrying posts body, retrying transport failures with a doubling
// pause.
func (c *conn) postRetrying(ctx context.Context, body []byte) ([]byte, error) {
	pause := c.pause
	reloaded := false
	var lastErr error
	for attempt := 0; ; attempt++ {
		data, status, err := c.post(ctx, body, false)
		if status == http.StatusUnauthorized && c.password == "" &&
			!reloaded {
			// The backend may have restarted with a new cookie.
			reloaded = true
			data, status, err = c.post(ctx, body, true)
		}
		if err == nil {
			return data, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ce *Error
		if errors.As(err, &ce) {
			// Authentication and oversized replies do not get
			// better by asking again.
			return nil, err
		}
		lastErr = err
		if attempt >= c.retries {
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		pause *= 2
	}
	return nil, chainErr(ErrUnreachable, fmt.Sprintf(
		"chain backend %s unreachable after %d attempts", c.name,
		c.retries+1), lastErr)
}

// post sends body once. A reply with a JSON body is returned whatever its
// HTTP status (bitcoind answers RPC errors with 500 or 404); 401 is ErrAuth;
// any other failure is a plain error the caller may retry.
func (c *conn) post(ctx context.Context, body []byte, reload bool) ([]byte, int, error) {
	user, pass, err := c.credentials(reload)
	if err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url,
		bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(user, pass)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, resp.StatusCode, chainErr(ErrAuth, c.name+
			": authorization failed (HTTP 401)", nil)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	if len(data) > maxReplyBytes {
		return nil, resp.StatusCode, chainErr(ErrBadReply, fmt.Sprintf(
			"%s: reply larger than %d bytes", c.name, maxReplyBytes), nil)
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		quote := data
		if len(quote) > maxErrorBody {
			quote = quote[:maxErrorBody]
		}
		return nil, resp.StatusCode, fmt.Errorf("HTTP %d: %q",
			resp.StatusCode, quote)
	}
	return data, resp.StatusCode, nil
}
