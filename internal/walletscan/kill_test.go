package walletscan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/descwallet/descwallet/descriptor"
	"github.com/descwallet/descwallet/internal/testenv"
)

// gate is a TCP proxy to a backend that can be shut: while shut it drops
// the connections it carries and holds new ones without forwarding them,
// so that a node's calls to the backend hang.
type gate struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	shut  bool
	conns map[net.Conn]bool
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() {
		ln.Close()
		g.close()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(c)
		}
	}()
	return g
}

func (g *gate) addr() string { return g.ln.Addr().String() }

func (g *gate) serve(c net.Conn) {
	g.mu.Lock()
	g.conns[c] = true
	shut := g.shut
	g.mu.Unlock()
	if shut {
		return // held: closed at the next setShut(false) or the end
	}
	up, err := net.Dial("tcp", g.target)
	if err != nil {
		c.Close()
		return
	}
	g.mu.Lock()
	g.conns[up] = true
	g.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// setShut shuts or opens the gate; both drop the connections it carries.
func (g *gate) setShut(shut bool) {
	g.mu.Lock()
	g.shut = shut
	g.mu.Unlock()
	g.close()
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		c.Close()
		delete(g.conns, c)
	}
}

// TestImportRescanKill9 kills the daemon with SIGKILL while an
// importdescriptors call with a rescan runs, at random points (deriving a
// large range, storing the elements, rescanning) and once in the gap
// between the elements' commit and the start of the rescan (forced by
// making the backend hang there). After each restart: an import the call
// acknowledged is there with its whole history; an import stored but not
// acknowledged finishes its rescan; one not stored left nothing.
func TestImportRescanKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a btcd and the daemon")
	}
	key := testenv.NewKey("walletscan kill key")
	b := testenv.StartBtcd(t, &testenv.BtcdOptions{MiningAddr: key.WPKH.Address})
	b.Generate(150)
	g := newGate(t, b.RPCAddr)
	dir := t.TempDir()
	var wallets []string
	start := func() *testenv.Daemon {
		args := []string{"-chainbackend=btcd", "-chainrpcconnect=" + g.addr(), "-chainrpcuser=" + b.User,
			"-chainrpcpassword=" + b.Pass, "-chainpoll=100"}
		for _, w := range wallets {
			args = append(args, "-wallet="+w)
		}
		return testenv.StartDaemon(t, &testenv.DaemonOptions{DataDir: dir, Args: args})
	}
	walletClient := func(d *testenv.Daemon, w string) *testenv.Client {
		return &testenv.Client{URL: d.URL + "wallet/" + w, User: "u", Pass: "p"}
	}
	desc := descriptor.AddChecksum("wpkh(" + key.PubKeyHex + ")")
	request := []map[string]any{
		{"desc": bigRange(), "timestamp": 0, "range": []int{0, 20000}},
		{"desc": desc, "timestamp": 0},
	}
	type summary struct {
		Descs   int
		TxCount int
		Mine    map[string]json.Number
	}
	read := func(c *testenv.Client) (summary, error) {
		var s summary
		var ld struct {
			Descriptors []json.RawMessage `json:"descriptors"`
		}
		if err := c.CallResult(&ld, "listdescriptors"); err != nil {
			return s, err
		}
		s.Descs = len(ld.Descriptors)
		var wi struct {
			TxCount  int             `json:"txcount"`
			Scanning json.RawMessage `json:"scanning"`
		}
		if err := c.CallResult(&wi, "getwalletinfo"); err != nil {
			return s, err
		}
		if string(wi.Scanning) != "false" {
			return s, errors.New("still scanning")
		}
		s.TxCount = wi.TxCount
		var bal struct {
			Mine map[string]json.Number `json:"mine"`
		}
		if err := c.CallResult(&bal, "getbalances"); err != nil {
			return s, err
		}
		s.Mine = bal.Mine
		return s, nil
	}

	// The reference: the same import, not interrupted; how long it takes
	// bounds the random kill points.
	d := start()
	var cw json.RawMessage
	if err := d.CallResult(&cw, "createwallet", "ref", true, true); err != nil {
		t.Fatal(err)
	}
	wallets = append(wallets, "ref")
	t0 := time.Now()
	if _, err := walletClient(d, "ref").Call("importdescriptors", request); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	want, err := read(walletClient(d, "ref"))
	if err != nil || want.TxCount != 150 || want.Descs != 2 {
		t.Fatalf("reference import: %+v %v", want, err)
	}
	t.Logf("an uninterrupted import takes %v", took)

	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	const rounds = 6
	for round := 0; round <= rounds; round++ {
		name := "w" + strconv.Itoa(round)
		if err := d.CallResult(&cw, "createwallet", name, true, true); err != nil {
			t.Fatal(err)
		}
		wallets = append(wallets, name)
		c := walletClient(d, name)
		acked := make(chan bool, 1)
		go func() {
			res, err := c.Call("importdescriptors", request)
			acked <- err == nil && string(res) == `[{"success":true},{"success":true}]`
		}()
		what := ""
		if round == rounds {
			// The gap: the elements are stored, the backend hangs
			// before the rescan's heights are known.
			what = "in the gap before the rescan"
			g.setShut(true)
			testenv.Eventually(t, 60*time.Second, func() error {
				var ld struct {
					Descriptors []json.RawMessage `json:"descriptors"`
				}
				if err := c.CallResult(&ld, "listdescriptors"); err != nil {
					return err
				}
				if len(ld.Descriptors) != 2 {
					return fmt.Errorf("%d descriptors stored", len(ld.Descriptors))
				}
				return nil
			})
			time.Sleep(200 * time.Millisecond)
		} else {
			delay := time.Duration(rng.Int63n(int64(took)))
			what = fmt.Sprintf("after %v", delay)
			time.Sleep(delay)
		}
		d.Kill()
		ack := false
		select {
		case ack = <-acked:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the import call did not end with the daemon", round)
		}
		g.setShut(false)
		d = start()
		c = walletClient(d, name)
		err := testenv.Poll(60*time.Second, func() error {
			got, err := read(c)
			if err != nil {
				return err
			}
			switch {
			case ack && (got.Descs != 2 || got.TxCount != want.TxCount):
				return fmt.Errorf("acknowledged import: %+v, want %+v", got, want)
			case got.Descs == 0 && got.TxCount == 0:
			case got.Descs == 1 && got.TxCount == 0:
				// Only the first element (no history) stored.
			case got.Descs == 2 && got.TxCount == want.TxCount:
				if fmt.Sprint(got.Mine) != fmt.Sprint(want.Mine) {
					return fmt.Errorf("balances %v, want %v", got.Mine, want.Mine)
				}
			default:
				return fmt.Errorf("%+v, want nothing or %+v", got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d, killed %s (acknowledged %v): after restart %v", round, what, ack, err)
		}
		got, _ := read(c)
		t.Logf("round %d, killed %s: acknowledged %v, after restart %d descriptors, %d transactions",
			round, what, ack, got.Descs, got.TxCount)
		if round == rounds && (got.Descs != 2 || got.TxCount != want.TxCount) {
			t.Errorf("killed in the gap: %+v after restart, want %+v", got, want)
		}
	}
}
