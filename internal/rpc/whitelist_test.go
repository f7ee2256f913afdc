package rpc

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

// whitelistVectors are -rpcwhitelist settings and the answers Core's rules
// give for them.
var whitelistVectors = []struct {
	name        string
	values      []string
	denyDefault *bool
	user        string
	method      string
	allowed     bool
	hasList     bool
}{
	{"listed method", []string{"alice:getinfo,help"}, nil, "alice", "help", true, true},
	{"unlisted method", []string{"alice:getinfo,help"}, nil, "alice", "stop", false, true},
	{"space separator", []string{"alice:getinfo help"}, nil, "alice", "help", true, true},
	{"comma and space", []string{"alice:getinfo, help"}, nil, "alice", "help", true, true},
	{"intersection keeps common", []string{"alice:a,b,c", "alice:b,c,d"}, nil, "alice", "b", true, true},
	{"intersection drops one-sided", []string{"alice:a,b,c", "alice:b,c,d"}, nil, "alice", "a", false, true},
	{"intersection drops later-only", []string{"alice:a,b,c", "alice:b,c,d"}, nil, "alice", "d", false, true},
	{"no colon means empty list", []string{"alice"}, nil, "alice", "help", false, true},
	{"no colon then list stays empty", []string{"alice", "alice:help"}, nil, "alice", "help", false, true},
	{"list then bare user keeps list", []string{"alice:help", "alice"}, nil, "alice", "help", true, true},
	{"empty list", []string{"alice:"}, nil, "alice", "help", false, true},
	{"method names are exact", []string{"alice:Help"}, nil, "alice", "help", false, true},
	{"colon in method list", []string{"alice:a:b"}, nil, "alice", "a:b", true, true},
	{"other user under default", []string{"alice:help"}, nil, "bob", "help", false, false},
	{"other user default off", []string{"alice:help"}, ptr(false), "bob", "help", true, false},
	{"default on without lists", nil, ptr(true), "bob", "help", false, false},
	{"default off without lists", nil, ptr(false), "bob", "help", true, false},
	{"nothing configured", nil, nil, "bob", "help", true, false},
	{"empty user name", []string{":help"}, nil, "", "help", true, true},
}

func ptr[T any](v T) *T { return &v }

func TestWhitelist(t *testing.T) {
	t.Parallel()
	for _, tc := range whitelistVectors {
		w := NewWhitelist(tc.values, tc.denyDefault)
		if got := w.Allowed(tc.user, tc.method); got != tc.allowed {
			t.Errorf("%s: Allowed(%q, %q) = %v, want %v", tc.name, tc.user, tc.method, got, tc.allowed)
		}
		if got := w.HasList(tc.user); got != tc.hasList {
			t.Errorf("%s: HasList(%q) = %v, want %v", tc.name, tc.user, got, tc.hasList)
		}
	}
	w := NewWhitelist([]string{"alice:c,a,b", "alice:b,a,x"}, nil)
	if got, ok := w.Methods("alice"); !ok || strings.Join(got, ",") != "a,b" {
		t.Errorf("Methods(alice) = %v %v", got, ok)
	}
	if !w.DenyDefault() || NewWhitelist(nil, nil).DenyDefault() {
		t.Error("default not derived from the presence of -rpcwhitelist")
	}
}

func FuzzWhitelist(f *testing.F) {
	for _, tc := range whitelistVectors {
		f.Add(strings.Join(tc.values, "\n"), tc.user, tc.method)
	}
	f.Fuzz(func(t *testing.T, values, user, method string) {
		w := NewWhitelist(strings.Split(values, "\n"), nil)
		list, has := w.Methods(user)
		if w.HasList(user) != has {
			t.Fatal("HasList and Methods disagree")
		}
		if want := has && slices.Contains(list, method); w.Allowed(user, method) != want {
			t.Fatalf("Allowed(%q, %q) disagrees with the list %v", user, method, list)
		}
	})
}

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// TestWhitelistServer checks the 403 refusals of Server.handle: after JSON
// parsing, for single requests and whole batches.
func TestWhitelistServer(t *testing.T) {
	t.Parallel()
	auth := NewAuthenticator()
	for _, u := range []string{"alice", "bob", "carol"} {
		auth.AddPassword(u, "pw")
	}
	on := NewWhitelist([]string{"alice:echo,wallet", "alice:echo,typed,wallet"}, nil)
	off := NewWhitelist([]string{"alice:echo,wallet"}, ptr(false))
	for _, tc := range []struct {
		name   string
		wl     *Whitelist
		user   string
		body   string
		status int
		reply  string
	}{
		{"allowed", on, "alice", `{"method":"echo","params":[1],"id":1}`, 200,
			`{"result":[1],"error":null,"id":1}`},
		{"denied", on, "alice", `{"method":"typed","params":["a",1],"id":1}`, 403, ""},
		{"denied unknown method", on, "alice", `{"method":"nosuch","id":1}`, 403, ""},
		{"parse error first", on, "alice", `{"method":`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"request error first", on, "alice", `{"id":1}`, 400,
			`{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":1}`},
		{"denied notification", on, "alice", `{"jsonrpc":"2.0","method":"fail"}`, 403, ""},
		{"escaped name", on, "alice", `{"method":"\u0065cho","id":1}`, 200,
			`{"result":[],"error":null,"id":1}`},
		{"batch allowed", on, "alice", `[{"method":"echo","id":1},{"method":"wallet","id":2}]`, 200,
			`[{"result":[],"error":null,"id":1},{"result":{"name":"","uri":false},"error":null,"id":2}]`},
		{"batch one denied", on, "alice", `[{"method":"echo","id":1},{"method":"fail","id":2}]`, 403, ""},
		{"batch first method key", on, "alice", `[{"method":"echo","method":"fail","id":1}]`, 200,
			`[{"result":[],"error":null,"id":1}]`},
		{"batch non-object", on, "alice", `[{"method":"echo","id":1},2]`, 400,
			`{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null}`},
		{"batch missing method", on, "alice", `[{"id":1}]`, 500,
			`{"result":null,"error":{"code":-32700,"message":"JSON value of type null is not of expected type string"},"id":null}`},
		{"batch method number", on, "alice", `[{"method":5,"id":1}]`, 500,
			`{"result":null,"error":{"code":-32700,"message":"JSON value of type number is not of expected type string"},"id":null}`},
		{"empty batch", on, "alice", `[]`, 200, `[]`},
		{"no list, default on", on, "bob", `{"method":"echo","id":1}`, 403, ""},
		{"no list, default on, batch", on, "bob", `[{"method":"echo","id":1}]`, 403, ""},
		{"no list, default on, before top-level check", on, "bob", `5`, 403, ""},
		{"no list, default on, parse error first", on, "bob", `x`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"no list, default off", off, "bob", `{"method":"typed","params":["a",1],"id":1}`, 200,
			`{"result":{"s":"a","n":1,"amt":0.00000000},"error":null,"id":1}`},
		{"no list, default off, batch", off, "carol", `[{"method":"echo","params":[2],"id":1}]`, 200,
			`[{"result":[2],"error":null,"id":1}]`},
		{"list, default off", off, "alice", `{"method":"typed","params":["a",1],"id":1}`, 403, ""},
	} {
		s, logs := newTestServer(t, Config{Auth: auth, Whitelist: tc.wl})
		w := do(s, "POST", "/", basicAuth(tc.user, "pw"), tc.body)
		got := strings.TrimSuffix(w.Body.String(), "\n")
		if w.Code != tc.status || got != tc.reply {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, got, tc.status, tc.reply)
			continue
		}
		if tc.status != 403 {
			continue
		}
		h := w.Header()
		if h.Get("Content-Length") != "0" || h.Get("Content-Type") != ctypeHTML {
			t.Errorf("%s: headers %v", tc.name, h)
		}
		if l := logs.String(); !strings.Contains(l, "user="+tc.user) || strings.Contains(l, "pw") {
			t.Errorf("%s: log %q", tc.name, l)
		}
	}
}

// TestHTTP1Whitelist checks the refusal through the HTTP/1.1 front end and
// that the connection stays usable.
func TestHTTP1Whitelist(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, Config{Whitelist: NewWhitelist([]string{"u:echo"}, nil)})
	c := dial(t, listen(t, s))
	c.send(post("/", `{"method":"wallet","id":1}`, ""))
	resp, got := c.reply("POST")
	if resp.StatusCode != 403 || got != "" || resp.Header.Get("Content-Length") != "0" {
		t.Errorf("denied: %d %q %v", resp.StatusCode, got, resp.Header)
	}
	if !strings.Contains(logs.String(), "method=wallet") {
		t.Errorf("refusal not logged: %q", logs.String())
	}
	c.send(post("/", echoBodyID("2"), ""))
	if resp, got := c.reply("POST"); resp.StatusCode != 200 || got != echoReply("2") {
		t.Errorf("allowed: %d %q", resp.StatusCode, got)
	}
}
