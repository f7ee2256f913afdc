package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// testMethods is a small method table exercising the server's paths.
func testMethods(block chan struct{}) []*Method {
	return []*Method{
		{Name: "echo", Category: HiddenCategory, Description: "Echo.",
			Params: []Param{
				{Name: "a", Type: TypeAny, Optional: true},
				{Name: "b", Type: TypeAny, Optional: true},
				{Name: "c", Type: TypeAny, Optional: true},
			},
			Handler: func(_ context.Context, r *Request) (any, error) {
				out := make([]RawJSON, len(r.Params))
				for i, p := range r.Params {
					out[i] = RawJSON(p)
				}
				return out, nil
			}},
		{Name: "typed", Category: "test", Description: "Typed.",
			Params: []Param{
				{Name: "s", Type: TypeString},
				{Name: "n", Type: TypeNumber},
				{Name: "f", Type: TypeBool, Optional: true},
				{Name: "amt", Type: TypeAmount, Optional: true},
			},
			Handler: func(_ context.Context, r *Request) (any, error) {
				s, err := r.String(0)
				if err != nil {
					return nil, err
				}
				n, err := r.Int64(1)
				if err != nil {
					return nil, err
				}
				var amt Amount
				if r.Has(3) {
					if amt, err = r.Amount(3); err != nil {
						return nil, err
					}
				}
				return struct {
					S   string `json:"s"`
					N   int64  `json:"n"`
					Amt Amount `json:"amt"`
				}{s, n, amt}, nil
			}},
		{Name: "wallet", Category: "test", Description: "Where.",
			Handler: func(_ context.Context, r *Request) (any, error) {
				return map[string]any{"name": r.Wallet, "uri": r.WalletURI}, nil
			}},
		{Name: "panic", Category: "test", Description: "Panics.",
			Handler: func(context.Context, *Request) (any, error) { panic("boom") }},
		{Name: "fail", Category: "test", Description: "Fails.",
			Handler: func(context.Context, *Request) (any, error) { return nil, errors.New("secret detail") }},
		{Name: "block", Category: "test", Description: "Blocks.",
			Handler: func(context.Context, *Request) (any, error) { <-block; return true, nil }},
		{Name: "html", Category: "test", Description: "Escapes.",
			Handler: func(context.Context, *Request) (any, error) {
				return map[string]string{"s": "<a&b>\u2028\x7f\x01"}, nil
			}},
	}
}

// logBuffer collects log output safely.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newTestServer(t testing.TB, cfg Config) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if cfg.Methods == nil {
		cfg.Methods = testMethods(nil)
	}
	if cfg.Auth == nil {
		cfg.Auth = NewAuthenticator()
		cfg.Auth.AddPassword("u", "p")
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if cfg.AuthFailDelay == 0 {
		cfg.AuthFailDelay = 10 * time.Millisecond
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, logs
}

// do sends one request to the handler in-process.
func do(s http.Handler, method, uri, auth, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, uri, strings.NewReader(body))
	req.RequestURI = uri
	req.RemoteAddr = "127.0.0.1:5555"
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

const goodAuth = "Basic dTpw"

func TestEnvelope(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, Config{})
	tests := []struct {
		name, uri, body string
		status          int
		want            string
	}{
		{"echo numbers keep their text", "/", `{"method":"echo","params":[1.10,-0.0,[1e300,12345678901234567890]],"id":-9007199254740993}`, 200,
			`{"result":[1.10,-0.0,[1e300,12345678901234567890]],"error":null,"id":-9007199254740993}`},
		{"echo re-escapes strings as Core", "/", `{"method":"echo","params":["\u00e9\/\u007f\u0001\ud83d\ude00"],"id":1}`, 200,
			`{"result":["é/\u007f\u0001😀"],"error":null,"id":1}`},
		{"whitespace is dropped", "/", " { \"method\" : \"echo\" , \"params\" : [ { \"a\" : [ 1 , 2 ] } ] , \"id\" : [ 1 ] } \n", 200,
			`{"result":[{"a":[1,2]}],"error":null,"id":[1]}`},
		{"escaped key names", "/", `{"\u006dethod":"echo","params":[1],"id":1}`, 200,
			`{"result":[1],"error":null,"id":1}`},
		{"first duplicate key wins", "/", `{"method":"nosuch","method":"echo","id":1}`, 404,
			`{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}`},
		{"typed ok", "/", `{"method":"typed","params":["x",5,null,"0.1"],"id":1}`, 200,
			`{"result":{"s":"x","n":5,"amt":0.10000000},"error":null,"id":1}`},
		{"type errors collected", "/", `{"method":"typed","params":[1,"x",1],"id":1}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Wrong type passed:\n{\n    \"Position 1 (s)\": \"JSON value of type number is not of expected type string\",\n    \"Position 2 (n)\": \"JSON value of type string is not of expected type number\",\n    \"Position 3 (f)\": \"JSON value of type number is not of expected type bool\"\n}"},"id":1}`},
		{"null for a required argument", "/", `{"method":"typed","params":[null,1],"id":1}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Wrong type passed:\n{\n    \"Position 1 (s)\": \"JSON value of type null is not of expected type string\"\n}"},"id":1}`},
		{"integer out of range", "/", `{"method":"typed","params":["x",1.5],"id":1}`, 500,
			`{"result":null,"error":{"code":-1,"message":"JSON integer out of range"},"id":1}`},
		{"invalid amount", "/", `{"method":"typed","params":["x",1,null,0.000000001],"id":1}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Invalid amount"},"id":1}`},
		{"amount out of range", "/", `{"method":"typed","params":["x",1,null,-1]}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Amount out of range"}}`},
		{"amount not a number", "/", `{"method":"typed","params":["x",1,null,true],"id":1}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Amount is not a number or string"},"id":1}`},
		{"named with holes", "/", `{"method":"echo","params":{"c":3,"a":1},"id":1}`, 200,
			`{"result":[1,null,3],"error":null,"id":1}`},
		{"args and named", "/", `{"method":"echo","params":{"args":[1],"c":3},"id":1}`, 200,
			`{"result":[1,null,3],"error":null,"id":1}`},
		{"args conflict", "/", `{"method":"echo","params":{"args":[1,2],"b":3},"id":1}`, 500,
			`{"result":null,"error":{"code":-8,"message":"Parameter b specified twice both as positional and named argument"},"id":1}`},
		{"args not an array is dropped", "/", `{"method":"echo","params":{"args":5},"id":1}`, 200,
			`{"result":[],"error":null,"id":1}`},
		{"wallet uri decoded", "/wallet/a%20b+%41%2541", `{"method":"wallet","id":1}`, 200,
			`{"result":{"name":"a b+A%41","uri":true},"error":null,"id":1}`},
		{"empty wallet name", "/wallet/", `{"method":"wallet","id":1}`, 200,
			`{"result":{"name":"","uri":true},"error":null,"id":1}`},
		{"panic is -1 generic", "/", `{"method":"panic","id":1}`, 500,
			`{"result":null,"error":{"code":-1,"message":"` + internalErrorMessage + `"},"id":1}`},
		{"unmapped error is -1 generic", "/", `{"jsonrpc":"2.0","method":"fail","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-1,"message":"` + internalErrorMessage + `"},"id":1}`},
		{"Core's escapes in encoded results", "/", `{"method":"html","id":1}`, 200,
			`{"result":{"s":"<a&b>` + "\u2028" + `\u007f\u0001"},"error":null,"id":1}`},
		{"deep nesting is a parse error", "/", strings.Repeat("[", 600) + strings.Repeat("]", 600), 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"invalid utf-8 is a parse error", "/", "{\"method\":\"echo\",\"params\":[\"\xff\"]}", 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"lone surrogate is a parse error", "/", `{"method":"echo","params":["\ud800"]}`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"leading zero is a parse error", "/", `{"method":"echo","params":[01]}`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"batch notification only", "/", `[{"jsonrpc":"2.0","method":"fail"}]`, 204, ``},
		{"batch non-object reuses previous", "/", `[{"jsonrpc":"2.0","method":"echo","id":7},{"jsonrpc":"2.0","method":"echo"},3]`, 200,
			`[{"jsonrpc":"2.0","result":[],"id":7}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := do(s, "POST", tc.uri, goodAuth, tc.body)
			want := tc.want
			if tc.status != 204 {
				want += "\n"
			}
			if w.Code != tc.status || w.Body.String() != want {
				t.Errorf("got %d %s\nwant %d %s", w.Code, w.Body.String(), tc.status, want)
			}
			if tc.status != 204 && w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", w.Header().Get("Content-Type"))
			}
		})
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "secret detail") {
		t.Errorf("panic and failure details not logged:\n%s", logs.String())
	}
}

func TestTransportRules(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	tests := []struct {
		name, method, uri, auth string
		status                  int
		body, ctype             string
	}{
		{"GET", "GET", "/", "", 405, "JSONRPC server handles only POST requests", "text/html; charset=ISO-8859-1"},
		{"PUT", "PUT", "/", goodAuth, 405, "JSONRPC server handles only POST requests", "text/html; charset=ISO-8859-1"},
		{"DELETE", "DELETE", "/", goodAuth, 405, "", "text/html; charset=ISO-8859-1"},
		{"HEAD", "HEAD", "/", goodAuth, 405, "", ""},
		{"unknown path before auth", "POST", "/foo", "", 404, "", "text/html; charset=ISO-8859-1"},
		{"query string", "POST", "/?x=1", goodAuth, 404, "", "text/html; charset=ISO-8859-1"},
		{"wallet without slash", "POST", "/wallet", goodAuth, 404, "", "text/html; charset=ISO-8859-1"},
		{"lowercase scheme", "POST", "/", "basic dTpw", 401, "", "text/html; charset=ISO-8859-1"},
		{"bad base64", "POST", "/", "Basic !!!", 401, "", "text/html; charset=ISO-8859-1"},
		{"no colon", "POST", "/", "Basic dXA=", 401, "", "text/html; charset=ISO-8859-1"},
		{"spaces around token", "POST", "/", "Basic   dTpw  ", 200, "{\"result\":[],\"error\":null,\"id\":1}\n", "application/json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := do(s, tc.method, tc.uri, tc.auth, `{"method":"echo","id":1}`)
			if w.Code != tc.status || w.Body.String() != tc.body || w.Header().Get("Content-Type") != tc.ctype {
				t.Errorf("got %d %q %q", w.Code, w.Body.String(), w.Header().Get("Content-Type"))
			}
			if tc.status == 401 && w.Header().Get("WWW-Authenticate") != `Basic realm="jsonrpc"` {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func TestAllowIP(t *testing.T) {
	t.Parallel()
	p, err := ParseAllowIP("10.1.0.0/255.255.0.0")
	if err != nil || p.String() != "10.1.0.0/16" {
		t.Fatalf("ParseAllowIP: %v %v", p, err)
	}
	for _, bad := range []string{"x", "10.0.0.0/33", "10.0.0.0/255.0.255.0", "::1/255.0.0.0"} {
		if _, err := ParseAllowIP(bad); err == nil {
			t.Errorf("ParseAllowIP(%q) accepted", bad)
		}
	}
	s, _ := newTestServer(t, Config{AllowIPs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	w := do(s, "POST", "/", goodAuth, `{"method":"echo","id":1}`)
	if w.Code != 403 || w.Body.Len() != 0 {
		t.Errorf("loopback peer not in -rpcallowip: %d %q", w.Code, w.Body.String())
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	big := `{"method":"echo","params":["` + strings.Repeat("a", MaxBodySize) + `"]}`
	if w := do(s, "POST", "/", goodAuth, big); w.Code != 413 {
		t.Errorf("oversized body: %d", w.Code)
	}
}

func TestWorkQueue(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	s, _ := newTestServer(t, Config{Methods: testMethods(block), Threads: 1, WorkQueue: 1})
	ts := httptest.NewServer(s)
	defer ts.Close()
	call := func(method string) (int, string) {
		req, _ := http.NewRequest("POST", ts.URL+"/", strings.NewReader(`{"method":"`+method+`","id":1}`))
		req.Header.Set("Authorization", goodAuth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	results := make(chan int, 2)
	go func() { c, _ := call("block"); results <- c }() // runs
	waitFor(t, func() bool { return len(s.slots) == 1 })
	go func() { c, _ := call("block"); results <- c }() // queued
	waitFor(t, func() bool { return s.waiting.Load() == 1 })
	if status, body := call("echo"); status != 503 || body != "Work queue depth exceeded" {
		t.Errorf("full queue: %d %q", status, body)
	}
	close(block)
	for range 2 {
		if c := <-results; c != 200 {
			t.Errorf("blocked call: %d", c)
		}
	}
	if status, _ := call("echo"); status != 200 {
		t.Errorf("after drain: %d", status)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestHelpGenerated(t *testing.T) {
	t.Parallel()
	ms := testMethods(nil)
	typed := ms[1]
	if got := typed.Usage(); got != `typed "s" n ( f amt )` {
		t.Errorf("usage %q", got)
	}
	h := typed.Help()
	for _, want := range []string{"typed \"s\" n ( f amt )\n\nTyped.\n\nArguments:\n1. s      (string, required)",
		"4. amt    (numeric or string, optional)"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %q:\n%s", want, h)
		}
	}
	list := HelpList(ms)
	if strings.Contains(list, "echo") || !strings.HasPrefix(list, "== Test ==\nblock\nfail\nhtml\npanic\ntyped") {
		t.Errorf("help list:\n%s", list)
	}
}

func TestAmount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // "" for an error
	}{
		{`1`, "1.00000000"}, {`"0.1"`, "0.10000000"}, {`0.00000001`, "0.00000001"},
		{`21000000`, "21000000.00000000"}, {`21000000.00000001`, ""}, {`1e-8`, "0.00000001"},
		{`1E2`, "100.00000000"}, {`0.000000001`, ""}, {`-0.0`, "0.00000000"}, {`"1."`, ""},
		{`".5"`, ""}, {`"01"`, ""}, {`"1e"`, ""}, {`"abc"`, ""}, {`null`, ""}, {`"-1"`, ""},
		{`0.100000000000`, "0.10000000"}, {`1000000000000000000`, ""},
	} {
		a, err := AsAmount([]byte(tc.in))
		got := ""
		if err == nil {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("AsAmount(%s) = %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
	if s := Amount(-1).String(); s != "-0.00000001" {
		t.Errorf("negative amount %q", s)
	}
}

func TestArgReaders(t *testing.T) {
	t.Parallel()
	if _, err := AsInt([]byte("2147483648")); err != ErrIntegerOutOfRange {
		t.Errorf("int32 overflow: %v", err)
	}
	if v, err := AsInt64([]byte("-9223372036854775808")); err != nil || v != -9223372036854775808 {
		t.Errorf("int64 min: %v %v", v, err)
	}
	if _, err := AsInt64([]byte("1e3")); err != ErrIntegerOutOfRange {
		t.Errorf("exponent: %v", err)
	}
	var e *Error
	if _, err := AsString([]byte("5")); !errors.As(err, &e) || e.Code != CodeTypeError ||
		e.Message != "JSON value of type number is not of expected type string" {
		t.Errorf("AsString(5): %v", err)
	}
	var v struct {
		A string `json:"a"`
	}
	if err := Decode([]byte(`{"a":1}`), &v); !errors.As(err, &e) ||
		e.Message != "JSON value of type number is not of expected type string" {
		t.Errorf("Decode: %v", err)
	}
	if s, err := AsString([]byte(`"a\"\u00e9"`)); err != nil || s != "a\"é" {
		t.Errorf("AsString escapes: %q %v", s, err)
	}
}

// TestServeShutdown runs the real listener path and a clean shutdown.
func TestServeShutdown(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, Config{})
	ts := httptest.NewUnstartedServer(s)
	ts.Start()
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/", strings.NewReader(`{"method":"echo","params":[1],"id":1}`))
	req.Header.Set("Authorization", goodAuth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var reply map[string]json.RawMessage
	json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if string(reply["result"]) != "[1]" {
		t.Errorf("reply %v", reply)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := do(s, "POST", "/", goodAuth, `{"method":"echo","id":1}`); w.Code != 503 {
		t.Errorf("after shutdown: %d", w.Code)
	}
}

func TestURLDecode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain": "plain", "a%20b": "a b", "%2x": "%2x", "%4": "%4", "%": "%",
		"a+b": "a+b", "%41%42": "AB", "%e2%98%83": "\u2603", "x/": "x/", "%zz%41": "%zzA",
	} {
		if got := urlDecode(in); got != want {
			t.Errorf("urlDecode(%q) = %q, want %q", in, got, want)
		}
	}
}
