package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNode is an HTTP server standing in for descwalletd: it records the
// last request and answers with a fixed status and body.
type fakeNode struct {
	srv    *httptest.Server
	host   string
	port   int
	mu     sync.Mutex
	status int
	body   string
	last   struct {
		path, auth, body, contentType string
	}
}

// newFakeNode starts a fake node answering status and body.
func newFakeNode(t *testing.T, status int, body string) *fakeNode {
	t.Helper()
	f := &fakeNode{status: status, body: body}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.last.path = r.URL.EscapedPath()
		f.last.auth = r.Header.Get("Authorization")
		f.last.body = string(data)
		f.last.contentType = r.Header.Get("Content-Type")
		status, body := f.status, f.body
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(f.srv.Close)
	host, port, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	f.host = host
	f.port, _ = strconv.Atoi(port)
	return f
}

// runCLI runs the client with args and stdin and returns its output.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	status = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), status
}

// basic returns the Authorization header for user:pass.
func basic(userPass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))
}

// TestCLIRequestAndResult checks the request the client sends and how it
// prints a result.
func TestCLIRequestAndResult(t *testing.T) {
	t.Parallel()
	f := newFakeNode(t, 200, `{"jsonrpc":"2.0","result":{"b":[],"a":1.50},"id":1}`)
	dir := t.TempDir()
	out, errOut, status := runCLI(t, "", "-datadir="+dir, "-regtest",
		"-rpcport="+strconv.Itoa(f.port), "-rpcuser=u", "-rpcpassword=p:w",
		"-rpcwallet=my wallet/ü", "echojson", "[1]", `"x"`)
	if status != 0 || errOut != "" {
		t.Fatalf("status %d stderr %q", status, errOut)
	}
	if want := "{\n  \"b\": [\n  ],\n  \"a\": 1.50\n}\n"; out != want {
		t.Fatalf("stdout %q, want %q", out, want)
	}
	if f.last.path != "/wallet/my%20wallet%2F%C3%BC" {
		t.Errorf("path %q", f.last.path)
	}
	if f.last.auth != basic("u:p:w") {
		t.Errorf("auth %q", f.last.auth)
	}
	if want := `{"method":"echojson","params":[[1],"x"],"id":1,"jsonrpc":"2.0"}` + "\n"; f.last.body != want {
		t.Errorf("body %q, want %q", f.last.body, want)
	}
	if f.last.contentType != "application/json" {
		t.Errorf("content type %q", f.last.contentType)
	}
}

// TestCLIErrors checks error output and exit status for RPC errors, HTTP
// failures and an unreachable server.
func TestCLIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		body       string
		wantErr    string
		wantStatus int
	}{
		{"rpc error", 200, `{"jsonrpc":"2.0","error":{"code":-8,"message":"bad"},"id":1}`,
			"error code: -8\nerror message:\nbad\n", 8},
		{"legacy 404", 404, `{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}`,
			"error code: -32601\nerror message:\nMethod not found\n", 32601},
		{"unauthorized", 401, ``, "error: Authorization failed: Incorrect rpcuser or rpcpassword\n", 1},
		{"work queue", 503, `Work queue depth exceeded`, "error: Server response: Work queue depth exceeded\n", 1},
		{"forbidden", 403, ``, "error: server returned HTTP error 403\n", 1},
		{"empty body", 200, ``, "error: no response from server\n", 1},
		{"garbage", 200, `nope`, "error: couldn't parse reply from server\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeNode(t, tt.status, tt.body)
			out, errOut, status := runCLI(t, "", "-datadir="+t.TempDir(), "-regtest",
				"-rpcconnect="+f.host+":"+strconv.Itoa(f.port), "-rpcuser=u", "-rpcpassword=p", "echo")
			if out != "" || errOut != tt.wantErr || status != tt.wantStatus {
				t.Fatalf("stdout %q stderr %q status %d; want stderr %q status %d",
					out, errOut, status, tt.wantErr, tt.wantStatus)
			}
		})
	}

	t.Run("null result", func(t *testing.T) {
		t.Parallel()
		f := newFakeNode(t, 200, `{"result":null,"error":null,"id":1}`)
		out, errOut, status := runCLI(t, "", "-datadir="+t.TempDir(), "-regtest",
			"-rpcport="+strconv.Itoa(f.port), "-rpcpassword=p", "stop")
		if out != "" || errOut != "" || status != 0 {
			t.Fatalf("stdout %q stderr %q status %d", out, errOut, status)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		_, errOut, status := runCLI(t, "", "-datadir="+t.TempDir(), "-regtest",
			"-rpcport="+strconv.Itoa(port), "-rpcpassword=p", "echo")
		want := fmt.Sprintf("error: timeout on transient error: Could not connect to the server 127.0.0.1:%d\n\n"+
			"Make sure the descwalletd server is running and that you are connecting to the correct RPC port.\n"+
			"Use \"descwallet-cli -help\" for more info.\n", port)
		if errOut != want || status != 1 {
			t.Fatalf("stderr %q status %d, want %q", errOut, status, want)
		}
	})
}

// TestCLICookie checks cookie discovery in the network folder, the
// -rpccookiefile override and the message when no credentials exist.
func TestCLICookie(t *testing.T) {
	t.Parallel()
	f := newFakeNode(t, 200, `{"result":"ok","error":null,"id":1}`)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "regtest"), 0o755); err != nil {
		t.Fatal(err)
	}
	cookie := "__cookie__:" + strings.Repeat("ab", 32)
	if err := os.WriteFile(filepath.Join(dir, "regtest", ".cookie"), []byte(cookie), 0o600); err != nil {
		t.Fatal(err)
	}
	port := "-rpcport=" + strconv.Itoa(f.port)
	out, errOut, status := runCLI(t, "", "-datadir="+dir, "-regtest", port, "echo")
	if out != "ok\n" || status != 0 {
		t.Fatalf("stdout %q stderr %q status %d", out, errOut, status)
	}
	if f.last.auth != basic(cookie) {
		t.Fatalf("auth %q, want the cookie", f.last.auth)
	}

	other := filepath.Join(t.TempDir(), "c")
	os.WriteFile(other, []byte("__cookie__:other\n"), 0o600)
	runCLI(t, "", "-datadir="+dir, "-regtest", port, "-rpccookiefile="+other, "echo")
	if f.last.auth != basic("__cookie__:other") {
		t.Fatalf("auth %q, want the -rpccookiefile cookie", f.last.auth)
	}

	// Signet has no cookie in this data directory: the client sends empty
	// credentials and explains the 401.
	f401 := newFakeNode(t, 401, "")
	_, errOut, status = runCLI(t, "", "-datadir="+dir, "-signet", "-rpcport="+strconv.Itoa(f401.port), "echo")
	want := "error: Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (" +
		filepath.Join(dir, "descwallet.conf") + ")\n"
	if errOut != want || status != 1 {
		t.Fatalf("stderr %q status %d, want %q", errOut, status, want)
	}
	// The server side trims the header's trailing space.
	if strings.TrimSpace(f401.last.auth) != "Basic" {
		t.Fatalf("auth %q, want empty credentials", f401.last.auth)
	}
}

// TestCLIConfigFile checks that rpc settings come from descwallet.conf, with
// network sections, network-only rpcport and the command line winning.
func TestCLIConfigFile(t *testing.T) {
	t.Parallel()
	f := newFakeNode(t, 200, `{"result":"ok","error":null,"id":1}`)
	dir := t.TempDir()
	conf := fmt.Sprintf("# test\nrpcuser=top\nrpcpassword=toppw\nrpcport=1\nregtest=1\n[regtest]\nrpcport=%d\nrpcpassword=regpw\n[main]\nrpcuser=mainuser\n", f.port)
	if err := os.WriteFile(filepath.Join(dir, "descwallet.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, status := runCLI(t, "", "-datadir="+dir, "echo")
	if out != "ok\n" || status != 0 {
		t.Fatalf("stdout %q stderr %q status %d", out, errOut, status)
	}
	if f.last.auth != basic("top:regpw") {
		t.Fatalf("auth %q", f.last.auth)
	}
	runCLI(t, "", "-datadir="+dir, "-rpcuser=cmd", "echo")
	if f.last.auth != basic("cmd:regpw") {
		t.Fatalf("auth %q, want the command line's user", f.last.auth)
	}

	// An explicit -conf that does not exist is an error; a missing default
	// one is not.
	_, errOut, status = runCLI(t, "", "-datadir="+dir, "-conf=nope.conf", "echo")
	if status != 1 || !strings.HasPrefix(errOut, "Error reading configuration file: specified config file") {
		t.Fatalf("stderr %q status %d", errOut, status)
	}
}

// TestCLIArguments checks option and argument handling before any request.
func TestCLIArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStatus int
	}{
		{"no arguments", nil, "Error: too few parameters\n", 1},
		{"no method", []string{"-datadir=" + dir, "-regtest"}, "error: too few parameters (need at least command)\n", 1},
		{"unknown option", []string{"-bogus=1", "echo"}, "Error parsing command line arguments: Invalid parameter -bogus=1\n", 1},
		{"two networks", []string{"-datadir=" + dir, "-regtest", "-testnet", "echo"},
			"Error: Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.\n", 1},
		{"unknown chain", []string{"-datadir=" + dir, "-chain=moon", "echo"}, "Error: Unknown chain moon.\n", 1},
		{"missing datadir", []string{"-datadir=" + filepath.Join(dir, "nope"), "echo"},
			"Error: Specified data directory \"" + filepath.Join(dir, "nope") + "\" does not exist.\n", 1},
		{"bad json", []string{"-datadir=" + dir, "-regtest", "echojson", "{"}, "error: Error parsing JSON: {\n", 1},
		{"help", []string{"-help"}, "", 0},
		{"version", []string{"-version"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, status := runCLI(t, "", tt.args...)
			if errOut != tt.wantErr || status != tt.wantStatus {
				t.Fatalf("stderr %q status %d, want %q status %d", errOut, status, tt.wantErr, tt.wantStatus)
			}
		})
	}
}

// TestCLIStdin checks -stdin, -stdinrpcpass and -named together.
func TestCLIStdin(t *testing.T) {
	t.Parallel()
	f := newFakeNode(t, 200, `{"result":[],"error":null,"id":1}`)
	base := []string{"-datadir=" + t.TempDir(), "-regtest", "-rpcport=" + strconv.Itoa(f.port), "-rpcuser=u"}

	_, errOut, status := runCLI(t, "secret\n\"b\"\r\n[3]\n", append(base, "-stdinrpcpass", "-stdin", "echojson", "1")...)
	if status != 0 {
		t.Fatalf("stderr %q", errOut)
	}
	if f.last.auth != basic("u:secret") {
		t.Fatalf("auth %q", f.last.auth)
	}
	if !strings.Contains(f.last.body, `"params":[1,"b",[3]]`) {
		t.Fatalf("body %q", f.last.body)
	}

	_, errOut, status = runCLI(t, "arg1=x=y\nlast\n", append(base, "-rpcpassword=p", "-named", "-stdin", "echo", "arg0=a")...)
	if status != 0 {
		t.Fatalf("stderr %q", errOut)
	}
	if !strings.Contains(f.last.body, `"params":{"arg0":"a","arg1":"x=y","args":["last"]}`) {
		t.Fatalf("body %q", f.last.body)
	}

	_, errOut, status = runCLI(t, "", append(base, "-stdinrpcpass", "echo")...)
	if status != 1 || errOut != "error: -stdinrpcpass specified but failed to read from standard input\n" {
		t.Fatalf("stderr %q status %d", errOut, status)
	}
}

// TestSplitHostPort checks -rpcconnect parsing.
func TestSplitHostPort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		host string
		port int
	}{
		{"127.0.0.1", "127.0.0.1", 9},
		{"127.0.0.1:80", "127.0.0.1", 80},
		{"localhost:0", "localhost:0", 9},
		{"[::1]", "::1", 9},
		{"[::1]:81", "::1", 81},
		{"::1", "::1", 9},
		{"host:x", "host:x", 9},
	}
	for _, tt := range tests {
		h, p := splitHostPort(tt.in, 9)
		if h != tt.host || p != tt.port {
			t.Errorf("%s: got %s %d, want %s %d", tt.in, h, p, tt.host, tt.port)
		}
	}
}

// TestCLITimeout checks -rpcclienttimeout against a server that never
// answers.
func TestCLITimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	_, errOut, status := runCLI(t, "", "-datadir="+t.TempDir(), "-regtest", "-rpcport="+port,
		"-rpcpassword=p", "-rpcclienttimeout=1", "echo")
	want := "error: timeout on transient error: Could not connect to the server 127.0.0.1:" + port +
		" (error code 0 - \"timeout reached\")\n\n"
	if status != 1 || !strings.HasPrefix(errOut, want) {
		t.Fatalf("stderr %q status %d, want prefix %q", errOut, status, want)
	}
}
