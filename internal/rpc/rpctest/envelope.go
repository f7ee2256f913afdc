// Package rpctest replays the recorded Core envelope corpus
// (testdata/core_rpc/envelope.json) against a running server, in-process or
// the real daemon, and compares replies byte for byte.
package rpctest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/testvec"
)

// EnvelopeFile is the corpus file, relative to testdata.
const EnvelopeFile = "core_rpc/envelope.json"

// Case is one recorded HTTP exchange.
type Case struct {
	ID      string `json:"id"`
	Node    string `json:"node"`
	Request struct {
		Method  string            `json:"method"`
		Path    string            `json:"path"`
		Headers map[string]string `json:"headers"`
		Body    *string           `json:"body"`
	} `json:"request"`
	Expect struct {
		Status   int               `json:"status"`
		BodyRaw  string            `json:"body_raw"`
		Headers  map[string]string `json:"headers_of_interest"`
		DelayMS  *float64          `json:"observed_delay_ms"`
		BodyJSON json.RawMessage   `json:"body_json"`
	} `json:"expect"`
}

// Load reads the corpus.
func Load(tb testing.TB) []Case {
	var f struct {
		Cases []Case `json:"cases"`
	}
	testvec.Load(tb, EnvelopeFile, &f)
	return f.Cases
}

// Reply is what the server answered.
type Reply struct {
	Status  int
	Header  http.Header
	Body    []byte
	Elapsed time.Duration
}

// headersOfInterest are the reply headers the corpus records.
var headersOfInterest = []string{"Content-Type", "Content-Length", "WWW-Authenticate"}

// Do sends the case's request, byte for byte as recorded, to addr
// ("host:port"). cookieAuth is the Authorization value for "cookie" cases.
func (c *Case) Do(addr, cookieAuth string) (*Reply, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", c.Request.Method, c.Request.Path, addr)
	h := c.Request.Headers
	name := "Authorization"
	if n := h["auth_header_name"]; n != "" {
		name = n
	}
	switch h["auth"] {
	case "good":
		v := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
		if a, ok := h["Authorization"]; ok {
			v = a
		}
		fmt.Fprintf(&b, "%s: %s\r\n", name, v)
	case "bad":
		fmt.Fprintf(&b, "%s: %s\r\n", name, h["Authorization"])
	case "cookie":
		fmt.Fprintf(&b, "%s: %s\r\n", name, cookieAuth)
	}
	if ct, ok := h["Content-Type"]; ok {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", ct)
	}
	if c.Request.Body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(*c.Request.Body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	if c.Request.Body != nil {
		b.WriteString(*c.Request.Body)
	}

	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	start := time.Now()
	if _, err := conn.Write(b.Bytes()); err != nil {
		return nil, err
	}
	req := &http.Request{Method: c.Request.Method}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Reply{Status: resp.StatusCode, Header: resp.Header, Body: body, Elapsed: time.Since(start)}, nil
}

// CarriesHelp reports whether the expected reply holds Core's help prose
// (a -1 error whose message spans lines): such replies compare by code.
func (c *Case) CarriesHelp() bool {
	return strings.Contains(c.Expect.BodyRaw, `"code":-1,"message":"`) &&
		strings.Contains(c.Expect.BodyRaw, `\n\n`)
}

// Compare returns the differences between the reply and the record, or
// nil when they agree.
func (c *Case) Compare(r *Reply) []string {
	var diffs []string
	if r.Status != c.Expect.Status {
		diffs = append(diffs, fmt.Sprintf("status %d, want %d", r.Status, c.Expect.Status))
	}
	help := c.CarriesHelp()
	if help {
		got, err1 := maskHelp(r.Body)
		want, err2 := maskHelp([]byte(c.Expect.BodyRaw))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("body (help masked)\n got: %s\nwant: %s", got, want))
		}
	} else if string(r.Body) != c.Expect.BodyRaw {
		diffs = append(diffs, fmt.Sprintf("body\n got: %q\nwant: %q", r.Body, c.Expect.BodyRaw))
	}
	for _, k := range headersOfInterest {
		want, wok := c.Expect.Headers[k]
		got := r.Header.Get(k)
		_, gok := r.Header[http.CanonicalHeaderKey(k)]
		if help && k == "Content-Length" {
			continue
		}
		if wok != gok || got != want {
			diffs = append(diffs, fmt.Sprintf("header %s: %q (present %v), want %q (present %v)", k, got, gok, want, wok))
		}
	}
	if d := c.Expect.DelayMS; d != nil {
		switch {
		case *d >= 200 && r.Elapsed < 200*time.Millisecond:
			diffs = append(diffs, fmt.Sprintf("answered after %v, want the ~250 ms delay", r.Elapsed))
		case *d < 100 && r.Elapsed >= 200*time.Millisecond:
			diffs = append(diffs, fmt.Sprintf("answered after %v, want no delay", r.Elapsed))
		}
	}
	return diffs
}

// maskHelp replaces the message of every multi-line -1 error with a marker
// and re-encodes the reply, so that help prose is compared by code only.
func maskHelp(body []byte) ([]byte, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			if e, ok := t["error"].(map[string]any); ok {
				if code, _ := e["code"].(json.Number); code == "-1" {
					if m, _ := e["message"].(string); strings.Contains(m, "\n") {
						e["message"] = "<help text>"
					}
				}
			}
		}
	}
	walk(v)
	return json.Marshal(v)
}

// Summary formats a case for failure messages.
func (c *Case) Summary() string {
	body := "<none>"
	if c.Request.Body != nil {
		body = *c.Request.Body
		if len(body) > 300 {
			body = body[:300] + "..."
		}
	}
	return c.Request.Method + " " + c.Request.Path + " auth=" + c.Request.Headers["auth"] +
		" body=" + strconv.Quote(body)
}
