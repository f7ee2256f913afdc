package methods

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/testenv"
)

// switchProxy forwards TCP connections to a backend while up; while down
// it closes them at once (the backend looks unreachable).
type switchProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func startSwitchProxy(t *testing.T, target string) *switchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.setDown(true) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *switchProxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		return
	}
	b, err := net.Dial("tcp", p.target)
	if err != nil {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[c], p.conns[b] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, c); done <- struct{}{} }()
	go func() { io.Copy(c, b); done <- struct{}{} }()
	<-done
	c.Close()
	b.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, b)
	p.mu.Unlock()
}

// setDown switches the proxy; going down closes the open connections.
func (p *switchProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
	}
}

// TestResubmitChain: a payment made while the backend is unreachable
// stays in the wallet, inactive (its inputs spent, its change in no
// balance);
// when the backend is back the wallet submits it again, btcd's mempool
// takes it, the wallet holds it in the mempool (change trusted), and it is
// mined. Balances and listtransactions are checked at each step.
func TestResubmitChain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts btcd and the daemon")
	}
	t.Parallel()
	b := testenv.StartBtcd(t, nil)
	p := startSwitchProxy(t, b.RPCAddr)
	d := testenv.StartDaemon(t, &testenv.DaemonOptions{Args: []string{"-chainbackend=btcd",
		"-chainrpcconnect=" + p.ln.Addr().String(), "-chainrpcuser=" + b.User,
		"-chainrpcpassword=" + b.Pass, "-chainpoll=100"}})
	h := &spendHarness{t: t, b: b, d: d, w: createWallet(t, d, "w"), blocks: map[chainhash.Hash]*wire.MsgBlock{}}
	b.Fund(wire.NewTxOut(10_000_000, h.newScript()))
	b.Generate(1)
	h.check("receive")

	p.setDown(true)
	stranger := testenv.NewKey("resubmit chain stranger")
	var txid string
	h.call(&txid, "sendtoaddress", stranger.WPKH.Address, 0.03, nil, nil, nil, nil, nil, nil, nil, 2)
	if b.InMempool(txid) {
		t.Fatal("the payment reached btcd through a closed proxy")
	}
	var gt struct {
		Fee     json.Number `json:"fee"`
		Trusted *bool       `json:"trusted"`
	}
	h.call(&gt, "gettransaction", txid)
	if gt.Trusted == nil || *gt.Trusted {
		t.Fatalf("unrelayed payment trusted: %v", gt.Trusted)
	}
	fee, _ := gt.Fee.Float64()
	feeSat := int64(-fee*1e8 + 0.5)
	change := 10_000_000 - 3_000_000 - feeSat
	// As in Core, the change of a wallet transaction outside the mempool
	// counts in no balance until the mempool takes it.
	h.balances("unrelayed", 0, 0)
	h.listed(txid, 0)

	p.setDown(false)
	testenv.Eventually(t, 30*time.Second, func() error {
		if !b.InMempool(txid) {
			return fmt.Errorf("%s not in btcd's mempool", txid)
		}
		return nil
	})
	h.check("resubmitted")
	h.balances("resubmitted", change, 0)
	h.listed(txid, 0)

	b.Generate(1)
	h.check("mined")
	h.balances("mined", change, 0)
	h.listed(txid, 1)
}

// balances waits for getbalances' mine.trusted and untrusted_pending to be
// the given satoshis.
func (h *spendHarness) balances(step string, trusted, pending int64) {
	h.t.Helper()
	testenv.Eventually(h.t, 30*time.Second, func() error {
		var bal struct {
			Mine struct {
				Trusted          float64 `json:"trusted"`
				UntrustedPending float64 `json:"untrusted_pending"`
			} `json:"mine"`
		}
		if err := h.w.CallResult(&bal, "getbalances"); err != nil {
			return err
		}
		gotT := int64(bal.Mine.Trusted*1e8 + 0.5)
		gotP := int64(bal.Mine.UntrustedPending*1e8 + 0.5)
		if gotT != trusted || gotP != pending {
			return fmt.Errorf("%s: trusted %d untrusted_pending %d, want %d %d", step, gotT, gotP, trusted, pending)
		}
		return nil
	})
}

// listed checks listtransactions' send entry of txid: 0.03 paid, with
// the given confirmations.
func (h *spendHarness) listed(txid string, confs int64) {
	h.t.Helper()
	testenv.Eventually(h.t, 30*time.Second, func() error {
		var lt []struct {
			TxID          string  `json:"txid"`
			Category      string  `json:"category"`
			Amount        float64 `json:"amount"`
			Confirmations int64   `json:"confirmations"`
		}
		if err := h.w.CallResult(&lt, "listtransactions"); err != nil {
			return err
		}
		for _, e := range lt {
			if e.TxID == txid && e.Category == "send" {
				if e.Amount != -0.03 || e.Confirmations != confs {
					return fmt.Errorf("send entry %+v, want -0.03 with %d confirmations", e, confs)
				}
				return nil
			}
		}
		return fmt.Errorf("no send entry of %s in %+v", txid, lt)
	})
}
