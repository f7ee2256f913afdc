package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/descwallet/descwallet/internal/testvec"
)

// FuzzProcess feeds arbitrary bodies to the envelope: it must never panic,
// and every input gets a well-formed reply (JSON, or no body with 204) with
// one of Core's statuses.
func FuzzProcess(f *testing.F) {
	var corpus struct {
		Cases []struct {
			Request struct {
				Body *string `json:"body"`
			} `json:"request"`
		} `json:"cases"`
	}
	testvec.Load(f, "core_rpc/envelope.json", &corpus)
	for _, c := range corpus.Cases {
		if c.Request.Body != nil {
			f.Add([]byte(*c.Request.Body))
		}
	}
	for _, s := range []string{"", "[]", "[[]]", `{"method":"echo","params":{"args":[1],"a":2}}`,
		`{"method":"typed","params":["a",1,true,"1e-8"],"id":{"x":[1,"\u0000"]}}`,
		`[{"jsonrpc":"2.0","method":"panic"},{"method":"fail","id":1},7]`, "\"\\ud800\\udc00\""} {
		f.Add([]byte(s))
	}
	s, _ := newTestServer(f, Config{})
	f.Fuzz(func(t *testing.T, body []byte) {
		out, status := s.process(context.Background(), body, target{}, nil)
		switch status {
		case 204:
			if len(out) != 0 {
				t.Fatalf("204 with body %q", out)
			}
			return
		case 200, 400, 404, 500:
		default:
			t.Fatalf("status %d", status)
		}
		if !json.Valid(out) {
			t.Fatalf("reply is not JSON: %q", out)
		}
		var v any
		json.Unmarshal(out, &v)
		switch r := v.(type) {
		case map[string]any:
			if _, ok := r["error"]; !ok {
				if _, ok := r["result"]; !ok {
					t.Fatalf("reply without result or error: %s", out)
				}
			}
		case []any:
			if status != 200 {
				t.Fatalf("batch reply with status %d", status)
			}
		default:
			t.Fatalf("reply is neither object nor array: %s", out)
		}
	})
}

// FuzzCanonical checks that the reader accepts only valid JSON and that a
// rewritten value is valid JSON equal to the input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`1`, `-0.5e+3`, `"\u00e9\n\/"`, `{"a":[true,false,null]}`, `[1,`, `"\ud800"`, "\"\x7f\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, ok := appendCanonical(nil, in)
		if !ok {
			if json.Valid(in) && utf8.Valid(in) && !hasSurrogateEscape(in) && len(in) < 400 {
				// Only depth beyond maxDepth may separate the two readers.
				if v, err := decodeNumbers(in); err == nil && depthOf(v) <= maxDepth {
					t.Fatalf("rejected valid JSON %q", in)
				}
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		a, errA := decodeNumbers(in)
		b, errB := decodeNumbers(out)
		if errA != nil || errB != nil {
			t.Fatalf("rewrite %q -> %q does not parse", in, out)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("rewrite changed the value: %q -> %q", in, out)
		}
	})
}

// hasSurrogateEscape reports whether a \uD8xx..\uDFxx escape occurs, which
// encoding/json accepts unpaired and Core does not.
func hasSurrogateEscape(b []byte) bool {
	for i := 0; i+5 < len(b); i++ {
		if b[i] == '\\' && b[i+1] == 'u' && (b[i+2] == 'd' || b[i+2] == 'D') {
			if c := b[i+3]; c >= '8' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
				return true
			}
		}
	}
	return false
}

func depthOf(v any) int {
	switch t := v.(type) {
	case []any:
		d := 0
		for _, e := range t {
			d = max(d, depthOf(e))
		}
		return d + 1
	case map[string]any:
		d := 0
		for _, e := range t {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

// decodeNumbers decodes JSON keeping numbers as text.
func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// fakeConn is a connection whose client sent in and then half-closed; the
// server's writes collect in out.
type fakeConn struct {
	in     *bytes.Reader
	out    bytes.Buffer
	closed bool
}

func (c *fakeConn) Read(p []byte) (int, error) {
	if c.closed {
		return 0, net.ErrClosed
	}
	return c.in.Read(p)
}

func (c *fakeConn) Write(p []byte) (int, error) {
	if c.closed {
		return 0, net.ErrClosed
	}
	return c.out.Write(p)
}

func (c *fakeConn) Close() error                     { c.closed = true; return nil }
func (c *fakeConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8332} }
func (c *fakeConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555} }
func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzHTTP1 feeds arbitrary bytes to the HTTP/1.1 front end as one
// connection's input: it must never panic, and what it writes back is a
// sequence of well-formed replies, none after one that announced the
// connection's end.
func FuzzHTTP1(f *testing.F) {
	body := `{"method":"echo","params":[1],"id":1}`
	req := "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic dTpw\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	for _, s := range []string{
		req, req + req, strings.Replace(req, "HTTP/1.1", "HTTP/1.0", 1),
		"POST /wallet/a%20b HTTP/1.1\r\nAuthorization: Basic dTpw\r\nTransfer-Encoding: chunked\r\n\r\n4;x\r\n{\"me\r\n0\r\nT: 1\r\n\r\n",
		"POST / HTTP/1.1\r\nExpect: 100-continue\r\nAuthorization: Basic dTpw\r\nContent-Length: 2\r\n\r\n[]",
		"GET / HTTP/1.1\r\n\r\nHEAD / HTTP/1.1\r\n\r\nDELETE /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc" + req,
		"POST / HTTP/1.1\r\nAuthorization: Basic eDp5\r\nConnection: close\r\n\r\n",
		"\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
		"POST / HTTP/1.1\r\nA: 1\r\n b\r\n\r\n", "POST / HTTP/1.1\nAuthorization: Basic dTpw\nContent-Length: 2\n\n{}",
	} {
		f.Add([]byte(s))
	}
	block := make(chan struct{})
	close(block)
	s, logs := newTestServer(f, Config{Methods: testMethods(block), AuthFailDelay: time.Nanosecond})
	f.Fuzz(func(t *testing.T, in []byte) {
		fc := &fakeConn{in: bytes.NewReader(in)}
		c := s.newConn(fc)
		c.serve()
		if !fc.closed {
			t.Fatal("connection not closed at the end of its input")
		}
		if strings.Contains(logs.String(), "panic in RPC server") {
			t.Fatalf("panic:\n%s", logs.String())
		}
		logs.mu.Lock()
		logs.b.Reset()
		logs.mu.Unlock()
		out := bufio.NewReader(&fc.out)
		for n := 0; ; n++ {
			line, err := out.ReadString('\n')
			if err == io.EOF && line == "" {
				return
			}
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 ") || len(line) < 14 || !strings.HasSuffix(line, "\r\n") {
				t.Fatalf("reply %d: bad status line %q", n, line)
			}
			status, err := strconv.Atoi(line[9:12])
			if err != nil {
				t.Fatalf("reply %d: status %q", n, line)
			}
			length, closing := -1, false
			for {
				h, err := out.ReadString('\n')
				if err != nil || !strings.HasSuffix(h, "\r\n") {
					t.Fatalf("reply %d: truncated headers", n)
				}
				if h == "\r\n" {
					break
				}
				name, value, ok := strings.Cut(strings.TrimSuffix(h, "\r\n"), ": ")
				if !ok {
					t.Fatalf("reply %d: header %q", n, h)
				}
				switch name {
				case "Content-Length":
					if length, err = strconv.Atoi(value); err != nil {
						t.Fatalf("reply %d: %q", n, h)
					}
				case "Connection":
					closing = value == "close"
				}
			}
			switch {
			case length >= 0:
				if _, err := out.Discard(length); err != nil {
					t.Fatalf("reply %d: body shorter than %d", n, length)
				}
			case status != 100 && status != 204 && status != 405:
				t.Fatalf("reply %d: status %d without Content-Length", n, status)
			}
			if closing && out.Buffered() > 0 {
				t.Fatalf("reply %d announced the end, more follows", n)
			}
		}
	})
}
