package node_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/descwallet/descwallet/internal/testenv"
)

// post sends body to url with the given Authorization value ("" for none)
// and returns status, headers and body.
func post(t *testing.T, url, auth, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// TestDaemonRules checks each envelope rule of the acceptance list against
// the real binary.
func TestDaemonRules(t *testing.T) {
	t.Parallel()
	d := testenv.StartDaemon(t, nil)
	good := basic("u", "p")
	tests := []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"parse error", good, `{"method":`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}` + "\n"},
		{"non-object request", good, `"x"`, 500,
			`{"result":null,"error":{"code":-32700,"message":"Top-level object parse error"},"id":null}` + "\n"},
		{"invalid request object in batch", good, `[1]`, 200,
			`[{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null}]` + "\n"},
		{"missing method", good, `{"id":3}`, 400,
			`{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":3}` + "\n"},
		{"unknown method", good, `{"method":"nosuch","id":1}`, 404,
			`{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}` + "\n"},
		{"wrong type", good, `{"method":"help","params":[5],"id":1}`, 500,
			`{"result":null,"error":{"code":-3,"message":"Wrong type passed:\n{\n    \"Position 1 (command)\": \"JSON value of type number is not of expected type string\"\n}"},"id":1}` + "\n"},
		{"named params", good, `{"method":"echo","params":{"arg0":"a","arg2":"c"},"id":1}`, 200,
			`{"result":["a",null,"c"],"error":null,"id":1}` + "\n"},
		{"named params args", good, `{"method":"echo","params":{"args":[1,2],"arg3":4},"id":1}`, 200,
			`{"result":[1,2,null,4],"error":null,"id":1}` + "\n"},
		{"unknown named param", good, `{"method":"echo","params":{"nope":1},"id":1}`, 500,
			`{"result":null,"error":{"code":-8,"message":"Unknown named parameter nope"},"id":1}` + "\n"},
		{"duplicate named param", good, `{"method":"echo","params":{"arg0":1,"arg0":2},"id":1}`, 500,
			`{"result":null,"error":{"code":-8,"message":"Parameter arg0 specified multiple times"},"id":1}` + "\n"},
		{"2.0 success", good, `{"jsonrpc":"2.0","method":"echo","params":[1.10],"id":"x"}`, 200,
			`{"jsonrpc":"2.0","result":[1.10],"id":"x"}` + "\n"},
		{"2.0 error", good, `{"jsonrpc":"2.0","method":"nosuch","id":1}`, 200,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}` + "\n"},
		{"2.0 notification", good, `{"jsonrpc":"2.0","method":"echo","params":[1]}`, 204, ""},
		{"mixed batch", good, `[{"method":"echo","params":[1],"id":1},{"jsonrpc":"2.0","method":"echo","params":[2]},{"jsonrpc":"2.0","method":"nosuch","id":3}]`, 200,
			`[{"result":[1],"error":null,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}]` + "\n"},
		{"empty batch", good, `[]`, 200, "[]\n"},
		{"no credentials", "", `{"method":"echo","id":1}`, 401, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := post(t, d.URL, tc.auth, tc.body)
			if status != tc.status || body != tc.want {
				t.Errorf("got %d %q, want %d %q", status, body, tc.status, tc.want)
			}
			if tc.status != 204 && tc.status != 401 && h.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", h.Get("Content-Type"))
			}
		})
	}

	t.Run("too many params", func(t *testing.T) {
		_, _, body := post(t, d.URL, good, `{"method":"uptime","params":[1],"id":1}`)
		if !strings.HasPrefix(body, `{"result":null,"error":{"code":-1,"message":"uptime\n\n`) {
			t.Errorf("got %q, want -1 with uptime's help", body)
		}
	})
	t.Run("GET", func(t *testing.T) {
		resp, err := http.Get(d.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 405 || string(b) != "JSONRPC server handles only POST requests" {
			t.Errorf("GET: %d %q", resp.StatusCode, b)
		}
	})
	t.Run("wrong password is delayed", func(t *testing.T) {
		start := time.Now()
		status, h, body := post(t, d.URL, basic("u", "wrong"), `{"method":"echo","id":1}`)
		if el := time.Since(start); el < 240*time.Millisecond {
			t.Errorf("401 after %v, want >= 250ms", el)
		}
		if status != 401 || body != "" || h.Get("WWW-Authenticate") != `Basic realm="jsonrpc"` ||
			h.Get("Content-Length") != "0" {
			t.Errorf("got %d %q %v", status, body, h)
		}
	})
	t.Run("missing credentials are not delayed", func(t *testing.T) {
		// The fastest of several answers: one round trip on a loaded
		// machine may take as long as the delay, but not every one.
		fastest := time.Hour
		for range 5 {
			start := time.Now()
			status, h, _ := post(t, d.URL, "", `{}`)
			fastest = min(fastest, time.Since(start))
			if status != 401 || h.Get("WWW-Authenticate") != `Basic realm="jsonrpc"` {
				t.Fatalf("got %d %v", status, h)
			}
		}
		if fastest > 200*time.Millisecond {
			t.Errorf("401 after %v at the fastest, want no delay", fastest)
		}
	})
}

// TestDaemonCookie checks the cookie: content, mode 0600, that it
// authenticates, and that a clean stop removes it.
func TestDaemonCookie(t *testing.T) {
	t.Parallel()
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Cookie: true})
	st, err := os.Stat(d.CookiePath())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("cookie mode %v, want 0600", st.Mode().Perm())
	}
	data, err := os.ReadFile(d.CookiePath())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^__cookie__:[0-9a-f]{64}$`).Match(data) {
		t.Errorf("cookie content %q", data)
	}
	auth, _ := d.CookieAuth()
	if status, _, body := post(t, d.URL, auth, `{"method":"echo","params":["c"],"id":1}`); status != 200 ||
		body != `{"result":["c"],"error":null,"id":1}`+"\n" {
		t.Errorf("cookie auth: %d %q", status, body)
	}
	if status, _, _ := post(t, d.URL, basic("__cookie__", "00"), `{}`); status != 401 {
		t.Errorf("wrong cookie: %d", status)
	}
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.CookiePath()); !os.IsNotExist(err) {
		t.Errorf("cookie still present after stop: %v", err)
	}
}

// TestDaemonRPCAuth checks -rpcauth credentials and the startup failure on
// malformed values.
func TestDaemonRPCAuth(t *testing.T) {
	t.Parallel()
	salt := "cb77f0957de88ff388cf817ddbc7273"
	m := hmac.New(sha256.New, []byte(salt))
	m.Write([]byte("secret"))
	value := "alice:" + salt + "$" + hex.EncodeToString(m.Sum(nil))
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-rpcauth=" + value}})
	for _, tc := range []struct {
		auth   string
		status int
	}{
		{basic("alice", "secret"), 200},
		{basic("alice", "Secret"), 401},
		{basic("bob", "secret"), 401},
		{basic("u", "p"), 200}, // -rpcuser/-rpcpassword still work
	} {
		if status, _, _ := post(t, d.URL, tc.auth, `{"method":"uptime","id":1}`); status != tc.status {
			t.Errorf("%s: %d, want %d", tc.auth, status, tc.status)
		}
	}

	for _, bad := range []string{"foo", "foo:bar", "foo:bar:baz", "foo$bar:baz", "foo$bar$baz", ""} {
		d := testenv.StartDaemon(t, &testenv.DaemonOptions{NoWait: true, Args: []string{"-rpcauth=" + bad}})
		code, err := d.ExitCode()
		if err != nil || code == 0 {
			t.Errorf("-rpcauth=%q: exit %d %v, want failure", bad, code, err)
		}
		if !strings.Contains(d.Output(), "rpcauth") {
			t.Errorf("-rpcauth=%q: output %q", bad, d.Output())
		}
	}
}

// TestDaemonStartFailures checks the clear message and non-zero exit for
// a port in use and an unusable data dir.
func TestDaemonStartFailures(t *testing.T) {
	t.Parallel()
	first := testenv.StartDaemon(t, nil)

	// Same port, other data dir.
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{NoWait: true,
		Args: []string{"-rpcport=" + strings.TrimPrefix(first.Addr, "127.0.0.1:")}})
	if code, err := d.ExitCode(); err != nil || code == 0 {
		t.Errorf("port in use: exit %d %v", code, err)
	}
	if !strings.Contains(d.Output(), "address already in use") {
		t.Errorf("port in use: output %q", d.Output())
	}

	// A data dir that is a file.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o600)
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{NoWait: true, DataDir: file})
	if code, err := d.ExitCode(); err != nil || code == 0 {
		t.Errorf("file as datadir: exit %d %v", code, err)
	}
	if !strings.Contains(d.Output(), "data directory") {
		t.Errorf("file as datadir: output %q", d.Output())
	}

	// The same data dir twice.
	d = testenv.StartDaemon(t, &testenv.DaemonOptions{NoWait: true, DataDir: first.DataDir})
	if code, err := d.ExitCode(); err != nil || code == 0 {
		t.Errorf("datadir in use: exit %d %v", code, err)
	}
	if !strings.Contains(d.Output(), "lock") {
		t.Errorf("datadir in use: output %q", d.Output())
	}
}

// TestDaemonStopCall checks that the stop call answers and the process
// exits cleanly, removing its cookie.
func TestDaemonStopCall(t *testing.T) {
	t.Parallel()
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Cookie: true})
	auth, _ := d.CookieAuth()
	status, _, body := post(t, d.URL, auth, `{"method":"stop","id":1}`)
	if status != 200 || !bytes.Contains([]byte(body), []byte(`"error":null`)) {
		t.Fatalf("stop: %d %q", status, body)
	}
	code, err := d.ExitCode()
	if err != nil || code != 0 {
		t.Fatalf("exit %d %v\n%s", code, err, d.Output())
	}
	if _, err := os.Stat(d.CookiePath()); !os.IsNotExist(err) {
		t.Errorf("cookie left behind: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(d.NetDir, "debug.log"))
	if !strings.Contains(string(log), "[NODE] node stopped") {
		t.Errorf("debug.log lacks the stop line:\n%s", log)
	}
}

// TestDaemonRPCWhitelist checks -rpcwhitelist on the running daemon: the
// listed method answers, another gets an empty 403 and a log line naming
// the user and method.
func TestDaemonRPCWhitelist(t *testing.T) {
	t.Parallel()
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-rpcwhitelist=u:uptime,help"}})
	status, _, body := post(t, d.URL, basic("u", "p"), `{"method":"uptime","id":1}`)
	if status != 200 || !strings.Contains(body, `"error":null`) {
		t.Errorf("allowed call: %d %q", status, body)
	}
	status, hdr, body := post(t, d.URL, basic("u", "p"), `{"method":"getrpcinfo","id":2}`)
	if status != 403 || body != "" || hdr.Get("Content-Length") != "0" {
		t.Errorf("denied call: %d %q %v", status, body, hdr)
	}
	log, _ := os.ReadFile(filepath.Join(d.NetDir, "debug.log"))
	if !strings.Contains(string(log), "user=u") || !strings.Contains(string(log), "method=getrpcinfo") {
		t.Errorf("debug.log lacks the refusal:\n%s", log)
	}
}
