package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
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
