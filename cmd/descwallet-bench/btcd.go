package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/testenv"
)

// btcdNode is a btcd on regtest the tool started, reachable over JSON-RPC
// on loopback without TLS.
type btcdNode struct {
	// addr is the RPC address, auth the Authorization header value.
	addr, auth string
	// user and pass are the RPC credentials.
	user, pass string

	cmd  *exec.Cmd
	dir  string
	done chan struct{}
}

// startBtcd starts the pinned btcd the integration tests use (bin, when
// not empty, instead) on regtest in a temporary folder on free loopback
// ports, mining to miningAddr, and waits until its RPC server answers.
// btcd discards a regtest chain when it starts, so the node starts at the
// genesis block.
func startBtcd(bin, miningAddr string) (*btcdNode, error) {
	if bin == "" {
		var err error
		if bin, err = testenv.BtcdPath(); err != nil {
			return nil, fmt.Errorf("btcd: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "descwallet-bench-btcd-")
	if err != nil {
		return nil, err
	}
	rpcPort, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p2pPort, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b := &btcdNode{addr: "127.0.0.1:" + strconv.Itoa(rpcPort), user: "bench", pass: "bench", dir: dir,
		done: make(chan struct{})}
	b.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(b.user+":"+b.pass))
	if err := os.WriteFile(filepath.Join(dir, "btcd.conf"), nil, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := os.OpenFile(filepath.Join(dir, "btcd.out"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b.cmd = exec.Command(bin, "--configfile="+filepath.Join(dir, "btcd.conf"), "--regtest", "--notls",
		"--rpcuser="+b.user, "--rpcpass="+b.pass, "--rpclisten="+b.addr,
		"--listen=127.0.0.1:"+strconv.Itoa(p2pPort), "--datadir="+filepath.Join(dir, "data"),
		"--logdir="+filepath.Join(dir, "logs"), "--miningaddr="+miningAddr, "--debuglevel=warn",
		"--rpcmaxclients=64")
	b.cmd.Stdout, b.cmd.Stderr = out, out
	if err := b.cmd.Start(); err != nil {
		out.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	safego.Go("btcd wait", func() error {
		defer close(b.done)
		defer out.Close()
		return b.cmd.Wait()
	})
	for deadline := time.Now().Add(60 * time.Second); ; {
		var n int64
		err := b.call("getblockcount", nil, &n)
		if err == nil {
			return b, nil
		}
		select {
		case <-b.done:
			log, _ := os.ReadFile(filepath.Join(dir, "btcd.out"))
			os.RemoveAll(dir)
			return nil, fmt.Errorf("btcd exited: %s", tail(log, 2000))
		default:
		}
		if time.Now().After(deadline) {
			b.stop()
			return nil, fmt.Errorf("btcd did not answer: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop interrupts btcd, waits for it (killing it after 30 s) and removes
// its folder.
func (b *btcdNode) stop() {
	b.cmd.Process.Signal(os.Interrupt)
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
		b.cmd.Process.Signal(syscall.SIGKILL)
		<-b.done
	}
	os.RemoveAll(b.dir)
}

// daemonArgs are the descwalletd arguments that make it follow b.
func (b *btcdNode) daemonArgs() []string {
	return []string{"-chainbackend=btcd", "-chainrpcconnect=" + b.addr, "-chainrpcuser=" + b.user,
		"-chainrpcpassword=" + b.pass}
}

// call makes one JSON-RPC call to btcd.
func (b *btcdNode) call(method string, params []any, out any) error {
	return call(b.addr, "/", b.auth, method, params, out)
}

// tail returns the last n bytes of data as text.
func tail(data []byte, n int) string {
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}

// maxBatchReply bounds the reply of one JSON-RPC batch.
const maxBatchReply = 256 << 20

// batchCall is one request of a batch.
type batchCall struct {
	Method string
	Params []any
}

// batch sends calls as one JSON-RPC batch over client and returns their
// results in order; the first error reply fails the whole batch.
func batch(client *http.Client, addr, auth string, calls []batchCall) ([]json.RawMessage, error) {
	type request struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  []any  `json:"params"`
	}
	reqs := make([]request, len(calls))
	for i, c := range calls {
		params := c.Params
		if params == nil {
			params = []any{}
		}
		reqs[i] = request{JSONRPC: "1.0", ID: i, Method: c.Method, Params: params}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBatchReply))
	if err != nil {
		return nil, err
	}
	return parseBatchReply(data, len(calls))
}

// parseBatchReply decodes the reply to a batch of n requests with ids 0 to
// n-1 and returns the results by id.
func parseBatchReply(data []byte, n int) ([]json.RawMessage, error) {
	var replies []struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		ID *int `json:"id"`
	}
	if err := json.Unmarshal(data, &replies); err != nil {
		return nil, fmt.Errorf("batch reply: %w: %s", err, tail(data, 200))
	}
	if len(replies) != n {
		return nil, fmt.Errorf("batch of %d requests got %d replies", n, len(replies))
	}
	out := make([]json.RawMessage, n)
	for _, r := range replies {
		if r.ID == nil || *r.ID < 0 || *r.ID >= n || out[*r.ID] != nil {
			return nil, errors.New("batch reply with a missing, unknown or repeated id")
		}
		if r.Error != nil {
			return nil, fmt.Errorf("request %d: error %d: %s", *r.ID, r.Error.Code, r.Error.Message)
		}
		if r.Result == nil {
			r.Result = json.RawMessage("null")
		}
		out[*r.ID] = r.Result
	}
	return out, nil
}
