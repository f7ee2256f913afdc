package methods

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/descwallet/descwallet/internal/rpc"
	"github.com/descwallet/descwallet/internal/testvec"
)

// psbtCorpusCase is one recorded call of core_rpc/psbt.json. Expect is kept
// raw so that number text (0.00010000) and field order survive.
type psbtCorpusCase struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Expect json.RawMessage `json:"expect"`
}

// statelessServer serves every method of the node that needs no wallet and
// no chain, through the rpc package's full request path, on regtest.
func statelessServer(t testing.TB) *rpc.Server {
	t.Helper()
	auth := rpc.NewAuthenticator()
	auth.AddPassword("u", "p")
	s, err := rpc.NewServer(rpc.Config{
		Methods:  All(&Deps{Net: &chaincfg.RegressionNetParams}),
		Auth:     auth,
		MapError: MapError,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawCall sends one JSON-RPC 2.0 request with params given as raw JSON (an
// array or an object) and returns the reply body.
func rawCall(t testing.TB, s http.Handler, method string, params json.RawMessage) []byte {
	t.Helper()
	var body bytes.Buffer
	body.WriteString(`{"jsonrpc":"2.0","id":1,"method":`)
	m, _ := json.Marshal(method)
	body.Write(m)
	body.WriteString(`,"params":`)
	body.Write(params)
	body.WriteString(`}`)
	req := httptest.NewRequest("POST", "/", &body)
	req.SetBasicAuth("u", "p")
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w.Body.Bytes()
}

// canonJSON rewrites a JSON value compactly with object keys in their
// given order, numbers with their original text and strings re-escaped one
// way, so that two replies compare equal exactly when Core's client would
// read the same value with the same field order and number text.
func canonJSON(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out strings.Builder
	// inObj[i] tells whether the container at depth i is an object;
	// count[i] counts the tokens written in it (keys and values).
	var inObj []bool
	var count []int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		d := len(inObj) - 1
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		if !closing && d >= 0 {
			if count[d] > 0 {
				if inObj[d] && count[d]%2 == 1 {
					out.WriteByte(':')
				} else {
					out.WriteByte(',')
				}
			}
			count[d]++
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteRune(rune(v))
			switch v {
			case '{', '[':
				inObj = append(inObj, v == '{')
				count = append(count, 0)
			default:
				inObj = inObj[:d]
				count = count[:d]
			}
		case json.Number:
			out.WriteString(string(v))
		case string:
			b, _ := json.Marshal(v)
			out.Write(b)
		case bool:
			if v {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			out.WriteString("null")
		}
	}
	return out.String(), nil
}

// isHelpText reports whether an expected error is an arity error carrying
// Core's help text, of which only the code is compared (descwallet writes
// its own help).
func isHelpText(method string, code int, msg string) bool {
	return code == -1 && strings.HasPrefix(msg, method+" ")
}

// TestPSBTCorpus replays the recorded calls of core_rpc/psbt.json (the
// PSBT, raw-transaction, script, message, address and multisig RPCs, no
// wallet, no chain) and compares each reply with Core's: the error code and
// message, or the result with its field order and number text. Cases whose
// method is not built yet are listed in testvec's pending list and reported.
func TestPSBTCorpus(t *testing.T) {
	var file struct {
		Cases []psbtCorpusCase `json:"cases"`
	}
	testvec.Load(t, "core_rpc/psbt.json", &file)
	if len(file.Cases) < 500 {
		t.Fatalf("only %d psbt.json cases", len(file.Cases))
	}
	s := statelessServer(t)
	ran, pending := 0, map[testvec.Feature]int{}
	for _, c := range file.Cases {
		if f, ok := testvec.Pending(c.ID); ok {
			pending[f]++
			continue
		}
		ran++
		t.Run(c.ID, func(t *testing.T) {
			var exp struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(c.Expect, &exp); err != nil {
				t.Fatal(err)
			}
			body := rawCall(t, s, c.Method, c.Params)
			var got struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("reply %q: %v", body, err)
			}
			if exp.Error != nil {
				if got.Error == nil {
					t.Fatalf("got result %s, want error %d %q", got.Result, exp.Error.Code, exp.Error.Message)
				}
				if isHelpText(c.Method, exp.Error.Code, exp.Error.Message) {
					if got.Error.Code != exp.Error.Code {
						t.Fatalf("got error %d %q, want code %d (help text)", got.Error.Code, got.Error.Message, exp.Error.Code)
					}
					return
				}
				if got.Error.Code != exp.Error.Code || got.Error.Message != exp.Error.Message {
					t.Fatalf("got error %d %q\nwant error %d %q", got.Error.Code, got.Error.Message, exp.Error.Code, exp.Error.Message)
				}
				return
			}
			if got.Error != nil {
				t.Fatalf("got error %d %q, want result %s", got.Error.Code, got.Error.Message, exp.Result)
			}
			g, err := canonJSON(got.Result)
			if err != nil {
				t.Fatalf("result %s: %v", got.Result, err)
			}
			w, err := canonJSON(exp.Result)
			if err != nil {
				t.Fatal(err)
			}
			if g != w {
				t.Fatalf("result\n got %s\nwant %s", g, w)
			}
		})
	}
	for f, n := range pending {
		t.Logf("%d cases pending on %s", n, f)
	}
	t.Logf("%d of %d cases ran", ran, len(file.Cases))
}

// TestCanonJSON checks the comparison form: order and number text are kept,
// escapes and white space are not significant.
func TestCanonJSON(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{`{"a": 1.10, "b": [true, null, "x"]}`, `{"a":1.10,"b":[true,null,"x"]}`},
		{`"\u003c"`, `"<"`},
		{`[{}, [], {"k": {"j": []}}]`, `[{},[],{"k":{"j":[]}}]`},
	} {
		x, err := canonJSON([]byte(c.a))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := canonJSON([]byte(c.b))
		if x != y {
			t.Errorf("%s: %s != %s", c.a, x, y)
		}
	}
	for _, c := range []struct{ a, b string }{
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{`1.10`, `1.1`},
		{`[1,2]`, `[2,1]`},
	} {
		x, _ := canonJSON([]byte(c.a))
		y, _ := canonJSON([]byte(c.b))
		if x == y {
			t.Errorf("%s and %s compare equal", c.a, c.b)
		}
	}
}
