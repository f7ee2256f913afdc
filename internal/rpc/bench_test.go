package rpc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const benchBody = `{"jsonrpc":"1.0","id":"bench","method":"echo","params":["hello",1.10,{"a":[1,2,3]}]}`

// BenchmarkProcess measures the envelope alone: parse, dispatch, echo,
// encode.
func BenchmarkProcess(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	body := []byte(benchBody)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out, _ = s.process(context.Background(), body, target{}, out[:0])
	}
}

// BenchmarkServeHTTP measures one request through the HTTP handler
// (authentication with a warm cache, body read, worker slot, reply).
func BenchmarkServeHTTP(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.RemoteAddr = "127.0.0.1:1"
	req.Header.Set("Authorization", goodAuth)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		req.Body = http.NoBody
		req.Body = readCloser{strings.NewReader(benchBody)}
		req.ContentLength = int64(len(benchBody))
		clear(w.h)
		s.ServeHTTP(w, req)
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkAuthCheck measures a credential check that misses the cache.
func BenchmarkAuthCheck(b *testing.B) {
	a := NewAuthenticator()
	a.AddPassword("u", "p")
	b.ReportAllocs()
	for b.Loop() {
		a.check(goodAuth)
	}
}

// BenchmarkHTTP1 measures one request over a keep-alive loopback
// connection through the HTTP/1.1 front end (client time included).
func BenchmarkHTTP1(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	c := dial(b, listen(b, s))
	req := []byte(post("/", benchBody, ""))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.c.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(c.rd, nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkHTTP1Conn measures the front end without the network: a
// connection carrying many pipelined requests is parsed, answered and
// written to memory. One op is one request.
func BenchmarkHTTP1Conn(b *testing.B) {
	s, _ := newTestServer(b, Config{})
	const perConn = 1000
	in := []byte(strings.Repeat(post("/", benchBody, ""), perConn))
	b.ReportAllocs()
	for i := 0; i < b.N; i += perConn {
		fc := &fakeConn{in: bytes.NewReader(in)}
		fc.out.Grow(200 * perConn)
		s.newConn(fc).serve()
	}
}
