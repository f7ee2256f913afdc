package node_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// TestStalledReadersDoNotSlowTheNode measures RPC latency and block
// processing (a block mined to the moment the wallet reports it as
// processed) twice on one node: with a healthy webhook and no stream
// readers, then with the webhook endpoint stalling every delivery (it
// takes the request and never answers), four stream readers that never
// read and two long polls waiting. The second phase must not be slower
// beyond noise; once the endpoint answers again it receives every event.
func TestStalledReadersDoNotSlowTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	n := testenv.StartBtcd(t, nil)

	// The endpoint: healthy until stall is set, then holding each
	// request until release is closed.
	secret := "stall secret"
	var stall atomic.Bool
	var stalled atomic.Int64
	release := make(chan struct{})
	rcv := &hookReceiver{t: t, secret: []byte(secret), evs: map[string][]json.RawMessage{}, seen: map[string]map[int64]int{}}
	hook := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stall.Load() {
			stalled.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		rcv.ServeHTTP(w, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: hook}
	go srv.Serve(l)
	defer srv.Close()

	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + n.RPCAddr, "-chainrpcuser=" + n.User, "-chainrpcpassword=" + n.Pass,
		"-chainpoll=50", "-eventwebhook=http://" + l.Addr().String() + "/", "-eventwebhooksecret=" + secret}})
	w, spk := newWalletAddr(t, d, "w")

	// RPC latency, sampled all along by one client.
	var mu sync.Mutex
	var samples []time.Duration
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			t0 := time.Now()
			if _, err := w.Call("getbalances"); err != nil {
				t.Errorf("getbalances: %v", err)
				return
			}
			mu.Lock()
			samples = append(samples, time.Since(t0))
			mu.Unlock()
		}
	}()
	takeSamples := func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		s := samples
		samples = nil
		return s
	}

	// phase pays the wallet and mines a block k times, returning how
	// long the wallet took to process each block.
	phase := func(k int) []time.Duration {
		var out []time.Duration
		for range k {
			n.Fund(wire.NewTxOut(10_000, spk))
			hash := n.Generate(1)[0]
			t0 := time.Now()
			testenv.Eventually(t, 30*time.Second, func() error {
				var info struct {
					Last struct {
						Hash string `json:"hash"`
					} `json:"lastprocessedblock"`
				}
				if err := w.CallResult(&info, "getwalletinfo"); err != nil {
					return err
				}
				if info.Last.Hash != hash {
					return fmt.Errorf("at %s", info.Last.Hash)
				}
				return nil
			})
			out = append(out, time.Since(t0))
		}
		return out
	}

	phase(1) // the first payment matures the miner's coins: not measured
	takeSamples()
	tA := time.Now()
	blocksA := phase(8)
	rpcA := takeSamples()
	durA := time.Since(tA)

	// Stall everything that reads events.
	stall.Store(true)
	dialer := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		return err
	}}
	for range 4 {
		c, err := dialer.Dial("tcp", d.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /wallet/w/events HTTP/1.1\r\nAuthorization: Basic dTpw\r\n\r\n")
	}
	for range 2 {
		c, err := net.Dial("tcp", d.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /wallet/w/events?after=1000000&wait=3600 HTTP/1.1\r\nAuthorization: Basic dTpw\r\n\r\n")
	}
	tB := time.Now()
	blocksB := phase(8)
	rpcB := takeSamples()
	durB := time.Since(tB)
	close(stop)
	sampler.Wait()
	if stalled.Load() == 0 {
		t.Fatal("the endpoint was never reached while stalled")
	}

	med := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	ma, mb := med(rpcA), med(rpcB)
	ba, bb := med(blocksA), med(blocksB)
	t.Logf("RPC getbalances median: %v healthy, %v stalled (%d and %d samples, %.2fx); block processing median: %v healthy, %v stalled (%.2fx)",
		ma, mb, len(rpcA), len(rpcB), float64(mb)/float64(ma), ba, bb, float64(bb)/float64(ba))
	t.Logf("phases %v and %v; RPC max %v healthy, %v stalled; blocks %v / %v", durA, durB, slices.Max(rpcA), slices.Max(rpcB), blocksA, blocksB)
	// Generous bounds, for a shared machine's noise: a reader holding up
	// the node would cost seconds (a stalled post waits 10 s, a stalled
	// stream write the -rpcservertimeout of 30 s).
	if mb > 5*ma+100*time.Millisecond {
		t.Errorf("RPC median %v while stalled, %v before", mb, ma)
	}
	if bb > 5*ba+2*time.Second {
		t.Errorf("block processing median %v while stalled, %v before", bb, ba)
	}

	// The endpoint recovers: every event arrives.
	stall.Store(false)
	close(release)
	testenv.Eventually(t, 60*time.Second, func() error { return sameAsListed(rcv, w, "w") })
}
