package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// maxReplySize bounds the size of a JSON-RPC reply the client reads. A regtest
// block in raw hex stays far below it.
const maxReplySize = 256 << 20

// RPCError is a JSON-RPC error object returned by a server: its numeric code
// and message, exactly as sent.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error implements the error interface.
func (e *RPCError) Error() string {
	return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
}

// Client is a minimal JSON-RPC 1.0 client speaking plain HTTP POST with Basic
// authentication, the way btcd (with --notls), bitcoind and descwalletd are
// reached on loopback.
type Client struct {
	// URL is the endpoint, for example "http://127.0.0.1:18446/".
	URL string

	// User and Pass are the Basic authentication credentials.
	User, Pass string

	// HTTP is the client used for requests; nil means a client with a
	// two-minute timeout.
	HTTP *http.Client

	id atomic.Int64
}

// defaultHTTP is shared by clients that do not bring their own.
var defaultHTTP = &http.Client{Timeout: 2 * time.Minute}

// rpcRequest is one JSON-RPC 1.0 request object.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

// rpcReply is one JSON-RPC reply object.
type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
	ID     json.RawMessage `json:"id"`
}

// Call sends one request and returns the raw result. A JSON-RPC error in the
// reply is returned as *RPCError, whatever the HTTP status.
func (c *Client) Call(method string, params ...any) (json.RawMessage, error) {
	return c.CallContext(context.Background(), method, params...)
}

// CallContext is Call with a context bounding the request.
func (c *Client) CallContext(ctx context.Context, method string,
	params ...any) (json.RawMessage, error) {

	if params == nil {
		params = []any{}
	}
	req := rpcRequest{
		JSONRPC: "1.0",
		ID:      c.id.Add(1),
		Method:  method,
		Params:  params,
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", method, err)
	}
	data, status, err := c.post(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var reply rpcReply
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, fmt.Errorf("%s: HTTP %d, undecodable reply %q: %w",
			method, status, truncate(data, 200), err)
	}
	if reply.Error != nil {
		return nil, reply.Error
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d without an error object",
			method, status)
	}
	return reply.Result, nil
}

// CallResult calls method and decodes its result into out.
func (c *Client) CallResult(out any, method string, params ...any) error {
	raw, err := c.Call(method, params...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode result %q: %w", method,
			truncate(raw, 200), err)
	}
	return nil
}

// post sends body and returns the reply body and HTTP status. A 401 is
// reported as an error since it carries no JSON.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL,
		bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(c.User, c.Pass)
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplySize+1))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	if len(data) > maxReplySize {
		return nil, resp.StatusCode, errors.New("reply too large")
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, resp.StatusCode, errors.New("HTTP 401: authorization failed")
	}
	return data, resp.StatusCode, nil
}

// truncate shortens data for error messages.
func truncate(data []byte, n int) string {
	if len(data) <= n {
		return string(data)
	}
	return string(data[:n]) + "..."
}
