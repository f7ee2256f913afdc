// Command descwallet-bench measures descwallet. Its rpc subcommand keeps N
// keep-alive connections busy with echo calls for a while, first against
// descwalletd and then, in the same run, against a bare net/http handler
// doing the same JSON work, and prints both rates and their ratio. Its
// addrinfo subcommand sets up a watch-only wallet of 1000 wpkh scripts and
// measures getaddressinfo (an address of the wallet) beside echo, in the
// same run, on the SQLite store, on PostgreSQL (a throwaway server started
// as the tests start it, or -pgdsn), or on both, printing PostgreSQL's
// ratio to SQLite (with -rounds, both nodes run side by side and are
// measured in turn, and the median ratio is printed). Its bigwallet subcommand measures one watch-only
// wallet of one ranged descriptor over [0, N-1]: the import's time and the
// node's peak RSS, getaddressinfo on random addresses of the range beside
// echo, and, on a btcd fed a chain of realistic blocks (built once and
// cached), rescanblockchain over those blocks against a raw fetch of the
// same blocks over as many batches in flight as the node's chain client
// keeps.
//
//	descwallet-bench rpc [-conns 16] [-duration 10s] [-daemon path | -url URL -user u -password p]
//	descwallet-bench addrinfo [-conns 16] [-duration 10s] [-daemon path] [-store sqlite|postgres|both] [-pgdsn URL] [-rounds 1]
//	descwallet-bench bigwallet [-scripts N] [-blocks M] [-txs 20] [-store sqlite|postgres] [-pgdsn URL] [-cache dir]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/descwallet/descwallet/internal/safego"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == bareServerArg {
		serveBare()
		return
	}
	var run func([]string) error
	if len(os.Args) >= 2 {
		run = subcommands[os.Args[1]]
	}
	if run == nil {
		fmt.Fprintln(os.Stderr, "usage: descwallet-bench rpc|addrinfo|bigwallet [flags] (see -h)")
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// subcommands are the measurements by name.
var subcommands = map[string]func([]string) error{
	"rpc":       runRPC,
	"addrinfo":  runAddrInfo,
	"bigwallet": runBigWallet,
}

// echoBody is the request every connection sends.
const echoBody = `{"jsonrpc":"1.0","id":"bench","method":"echo","params":["hello",1.10,{"a":[1,2,3]}]}`

func runRPC(argv []string) error {
	fs := flag.NewFlagSet("rpc", flag.ExitOnError)
	conns := fs.Int("conns", 16, "keep-alive connections")
	dur := fs.Duration("duration", 10*time.Second, "measuring time per target")
	warm := fs.Duration("warmup", time.Second, "warm-up time per target (not counted)")
	daemon := fs.String("daemon", "", "descwalletd binary to start (default: next to this program, else $PATH)")
	target := fs.String("url", "", "measure an already running node at this URL instead of starting one")
	user := fs.String("user", "u", "RPC user (with -url)")
	pass := fs.String("password", "p", "RPC password (with -url)")
	threads := fs.Int("rpcthreads", 16, "-rpcthreads of the started node")
	fs.Parse(argv)

	addr, auth := "", ""
	if *target != "" {
		u, err := url.Parse(*target)
		if err != nil {
			return err
		}
		addr = u.Host
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(*user+":"+*pass))
	} else {
		d, err := startDaemon(*daemon, *threads)
		if err != nil {
			return err
		}
		defer d.stop()
		addr, auth = d.addr, d.auth
	}

	fmt.Printf("echo over %d keep-alive connections, %v per target\n", *conns, *dur)
	node, err := measure(addr, "/", auth, echoBody, *conns, *warm, *dur)
	if err != nil {
		return fmt.Errorf("descwalletd: %w", err)
	}
	fmt.Printf("descwalletd   %10.0f req/s\n", node)

	bareAddr, closeBare, err := startBare()
	if err != nil {
		return err
	}
	defer closeBare()
	bare, err := measure(bareAddr, "/", auth, echoBody, *conns, *warm, *dur)
	if err != nil {
		return fmt.Errorf("bare handler: %w", err)
	}
	fmt.Printf("bare net/http %10.0f req/s\n", bare)
	fmt.Printf("ratio         %10.2f (descwalletd / bare)\n", node/bare)
	return nil
}

// daemon is a descwalletd the tool started.
type daemon struct {
	// addr is its RPC address, auth the Authorization header value.
	addr, auth string
	// pid is its process id.
	pid int

	cmd *exec.Cmd
	dir string
}

// stop ends the node with SIGTERM, waits for it and removes its data dir.
func (d *daemon) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.cmd.Wait()
	os.RemoveAll(d.dir)
}

// daemonPath returns bin, else the descwalletd next to this program, else
// the one in $PATH.
func daemonPath(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	self, _ := os.Executable()
	bin = filepath.Join(filepath.Dir(self), "descwalletd")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if p, err := exec.LookPath("descwalletd"); err == nil {
		return p, nil
	}
	return "", errors.New("descwalletd not found: build it (make build) or pass -daemon")
}

// startDaemon starts descwalletd on regtest in a temporary data dir on a
// free port, with the extra arguments, and waits until it accepts
// connections.
func startDaemon(bin string, threads int, extra ...string) (*daemon, error) {
	bin, err := daemonPath(bin)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "descwallet-bench-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	args := append([]string{"-regtest", "-datadir=" + dir, "-rpcport=" + strconv.Itoa(port),
		"-rpcuser=u", "-rpcpassword=p", "-rpcthreads=" + strconv.Itoa(threads)}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	d := &daemon{addr: "127.0.0.1:" + strconv.Itoa(port), pid: cmd.Process.Pid, cmd: cmd, dir: dir,
		auth: "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("tcp", d.addr); err == nil {
			c.Close()
			return d, nil
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, errors.New("descwalletd did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// bareServerArg makes the program serve the bare handler (a child process
// of the rpc subcommand) instead of measuring.
const bareServerArg = "serve-bare-baseline"

// startBare runs the bare handler in a child process of its own, as the
// daemon runs in its own process, so that both sides of the comparison pay
// the same scheduling costs, and returns its address and a stop function.
func startBare() (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, bareServerArg)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("bare handler did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// serveBare serves the same echo with a plain net/http handler and
// encoding/json (decode the request, check the credentials, encode the
// legacy reply), prints its address and runs until it is signalled.
func serveBare() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	type request struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	type reply struct {
		Result any             `json:"result"`
		Error  any             `json:"error"`
		ID     json.RawMessage `json:"id"`
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var req request
		if err := json.NewDecoder(io.LimitReader(r.Body, 32<<20)).Decode(&req); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		json.NewEncoder(&buf).Encode(reply{Result: req.Params, ID: req.ID})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes())
	})
	srv := &http.Server{Handler: h}
	safego.Go("baseline server", func() error { return srv.Serve(l) })
	fmt.Println(l.Addr().String())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	srv.Shutdown(context.Background())
}

// measure runs conns connections, each sending one request (body, to path)
// at a time, for warm+dur and returns the rate over dur.
func measure(addr, path, auth, body string, conns int, warm, dur time.Duration) (float64, error) {
	return measureBodies(addr, path, auth, []string{body}, conns, warm, dur)
}

// measureBodies is measure over several requests: each connection sends
// them in turn, starting at its own place in the list.
func measureBodies(addr, path, auth string, bodies []string, conns int, warm, dur time.Duration) (float64, error) {
	if len(bodies) == 0 {
		return 0, errors.New("no request to send")
	}
	reqs := make([][]byte, len(bodies))
	for i, body := range bodies {
		reqs[i] = []byte("POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: " + auth +
			"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) +
			"\r\n\r\n" + body)
	}
	var (
		counting atomic.Bool
		stop     atomic.Bool
		count    atomic.Int64
		wg       sync.WaitGroup
		firstErr error
		errOnce  sync.Once
	)
	for conn := range conns {
		next := conn * len(reqs) / conns
		c, err := net.Dial("tcp", addr)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			return 0, err
		}
		wg.Add(1)
		safego.Go("load connection", func() error {
			defer wg.Done()
			defer c.Close()
			rd := bufio.NewReaderSize(c, 16<<10)
			for !stop.Load() {
				req := reqs[next]
				if next++; next == len(reqs) {
					next = 0
				}
				if _, err := c.Write(req); err != nil {
					errOnce.Do(func() { firstErr = err })
					return nil
				}
				if err := readReply(rd); err != nil {
					errOnce.Do(func() { firstErr = err })
					return nil
				}
				if counting.Load() {
					count.Add(1)
				}
			}
			return nil
		})
	}
	time.Sleep(warm)
	counting.Store(true)
	start := time.Now()
	time.Sleep(dur)
	counting.Store(false)
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(count.Load()) / elapsed.Seconds(), nil
}

// readReply reads one HTTP/1.1 response with a Content-Length body and
// checks its status is 200.
func readReply(rd *bufio.Reader) error {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 12 || string(line[9:12]) != "200" {
		return fmt.Errorf("unexpected status line %q", line)
	}
	n := -1
	for {
		h, err := rd.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(h) <= 2 {
			break
		}
		if len(h) > 16 && (h[0] == 'C' || h[0] == 'c') && bytes.EqualFold(h[:15], []byte("Content-Length:")) {
			n, err = strconv.Atoi(string(bytes.TrimSpace(h[15:])))
			if err != nil {
				return err
			}
		}
	}
	if n < 0 {
		return errors.New("reply without Content-Length")
	}
	_, err = rd.Discard(n)
	return err
}
