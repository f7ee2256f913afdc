package testenv

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire/v2"

	"github.com/descwallet/descwallet/internal/safego"
)

// Timeouts of the btcd harness.
const (
	// btcdStartTimeout bounds the wait for a started btcd to answer RPC.
	btcdStartTimeout = 60 * time.Second

	// btcdStopTimeout bounds the wait for btcd to exit after SIGINT, after
	// which it is killed.
	btcdStopTimeout = 30 * time.Second

	// btcdStartAttempts is how many times a start is retried with fresh
	// ports when btcd exits before answering (a port taken meanwhile).
	btcdStartAttempts = 3

	// SyncTimeout bounds WaitSynced and WaitHeight.
	SyncTimeout = 60 * time.Second
)

// BtcdOptions tunes StartBtcd. The zero value is a node mining to
// MinerKey's WPKH address.
type BtcdOptions struct {
	// MiningAddr is the address `generate` pays coinbases to; empty means
	// MinerKey().WPKH.Address.
	MiningAddr string

	// Args are extra command-line arguments for btcd.
	Args []string
}

// Btcd is a running btcd on regtest, reachable over JSON-RPC on loopback
// without TLS. Its embedded Client makes raw calls; the helpers below fail
// the test on error. It is stopped and its files removed when the test ends.
type Btcd struct {
	// Client reaches the node's RPC server.
	*Client

	// RPCAddr is the RPC listener, "127.0.0.1:<port>".
	RPCAddr string

	// P2PAddr is the peer-to-peer listener, "127.0.0.1:<port>".
	P2PAddr string

	// User and Pass are the RPC credentials.
	User, Pass string

	// Dir holds the node's config, data and log folders.
	Dir string

	// MiningAddr is the address `generate` pays coinbases to.
	MiningAddr string

	tb   testing.TB
	opts BtcdOptions
	exe  string

	mu   sync.Mutex
	proc *btcdProc

	// nextCoinbase is the height of the last coinbase Fund spent.
	nextCoinbase int64
}

// btcdProc is one run of the btcd process.
type btcdProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // valid once exited is closed
	out    *os.File
}

// StartBtcd builds (once) and starts a btcd on regtest on free loopback
// ports, waits until its RPC server answers, and registers its shutdown with
// tb.Cleanup. opts may be nil.
func StartBtcd(tb testing.TB, opts *BtcdOptions) *Btcd {
	tb.Helper()
	exe, err := BtcdPath()
	if err != nil {
		tb.Fatalf("btcd: %v", err)
	}
	b := &Btcd{
		User: "btcduser",
		Pass: "btcdpass",
		Dir:  tb.TempDir(),
		tb:   tb,
		exe:  exe,
	}
	if opts != nil {
		b.opts = *opts
	}
	b.MiningAddr = b.opts.MiningAddr
	if b.MiningAddr == "" {
		b.MiningAddr = MinerKey().WPKH.Address
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "btcd.conf"), nil,
		0o600); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("btcd %s log tail:\n%s", b.RPCAddr, b.LogTail(40))
		}
		if err := b.Stop(); err != nil {
			tb.Logf("btcd %s stop: %v", b.RPCAddr, err)
		}
	})

	var lastErr error
	for attempt := 0; attempt < btcdStartAttempts; attempt++ {
		if b.RPCAddr, err = freeAddr(); err != nil {
			tb.Fatal(err)
		}
		if b.P2PAddr, err = freeAddr(); err != nil {
			tb.Fatal(err)
		}
		b.Client = &Client{URL: "http://" + b.RPCAddr + "/",
			User: b.User, Pass: b.Pass}
		if lastErr = b.start(); lastErr == nil {
			return b
		}
	}
	tb.Fatalf("btcd did not start: %v\n%s", lastErr, b.LogTail(40))
	return nil
}

// args returns btcd's command line.
func (b *Btcd) args() []string {
	args := []string{
		"--configfile=" + filepath.Join(b.Dir, "btcd.conf"),
		"--regtest",
		"--notls",
		"--rpcuser=" + b.User,
		"--rpcpass=" + b.Pass,
		"--rpclisten=" + b.RPCAddr,
		"--listen=" + b.P2PAddr,
		"--datadir=" + filepath.Join(b.Dir, "data"),
		"--logdir=" + filepath.Join(b.Dir, "logs"),
		"--miningaddr=" + b.MiningAddr,
		"--txindex",
		"--debuglevel=info",
	}
	return append(args, b.opts.Args...)
}

// start launches the process and waits until RPC answers or the process
// exits.
func (b *Btcd) start() error {
	out, err := os.OpenFile(filepath.Join(b.Dir, "btcd.out"),
		os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(b.exe, b.args()...)
	cmd.Stdout = out
	cmd.Stderr = out
	configureChild(cmd)
	if err := cmd.Start(); err != nil {
		out.Close()
		return err
	}
	p := &btcdProc{cmd: cmd, exited: make(chan struct{}), out: out}
	safego.Go("btcd wait", func() error {
		defer close(p.exited)
		p.err = cmd.Wait()
		out.Close()
		return nil
	})
	b.mu.Lock()
	b.proc = p
	b.mu.Unlock()

	err = Poll(btcdStartTimeout, func() error {
		select {
		case <-p.exited:
			return Permanent(fmt.Errorf("btcd exited: %v", p.err))
		default:
		}
		_, err := b.Call("getblockcount")
		return err
	})
	if err != nil {
		b.Stop()
	}
	return err
}

// Stop interrupts btcd and waits for it to exit, killing it after a grace
// period. It is safe to call more than once.
func (b *Btcd) Stop() error {
	b.mu.Lock()
	p := b.proc
	b.proc = nil
	b.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p.exited:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
		return nil
	case <-time.After(btcdStopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("btcd did not exit within %v; killed",
			btcdStopTimeout)
	}
}

// Restart stops btcd and starts it again with the same ports and folders.
// btcd discards its regtest chain when it starts, so the node comes back at
// the genesis block.
func (b *Btcd) Restart() {
	b.tb.Helper()
	if err := b.Stop(); err != nil {
		b.tb.Fatal(err)
	}
	b.mu.Lock()
	b.nextCoinbase = 0 // the chain starts again from genesis
	b.mu.Unlock()
	if err := b.start(); err != nil {
		b.tb.Fatalf("btcd restart: %v\n%s", err, b.LogTail(40))
	}
}

// LogTail returns the last n lines btcd wrote to its console.
func (b *Btcd) LogTail(n int) string {
	data, err := os.ReadFile(filepath.Join(b.Dir, "btcd.out"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// MustCall calls method and fails the test on any error.
func (b *Btcd) MustCall(method string, params ...any) json.RawMessage {
	b.tb.Helper()
	raw, err := b.Call(method, params...)
	if err != nil {
		b.tb.Fatalf("btcd %s: %v", method, err)
	}
	return raw
}

// mustResult calls method and decodes its result into out, failing the test
// on any error.
func (b *Btcd) mustResult(out any, method string, params ...any) {
	b.tb.Helper()
	if err := b.CallResult(out, method, params...); err != nil {
		b.tb.Fatalf("btcd %s: %v", method, err)
	}
}

// Generate mines n blocks paying MiningAddr and returns their hashes.
func (b *Btcd) Generate(n int) []string {
	b.tb.Helper()
	var hashes []string
	b.mustResult(&hashes, "generate", n)
	if len(hashes) != n {
		b.tb.Fatalf("btcd generate %d: got %d hashes", n, len(hashes))
	}
	return hashes
}

// GetBlockCount returns the height of the best chain.
func (b *Btcd) GetBlockCount() int64 {
	b.tb.Helper()
	var n int64
	b.mustResult(&n, "getblockcount")
	return n
}

// BestBlockHash returns the hash of the best chain's tip.
func (b *Btcd) BestBlockHash() string {
	b.tb.Helper()
	var h string
	b.mustResult(&h, "getbestblockhash")
	return h
}

// BlockHash returns the hash of the best chain's block at height.
func (b *Btcd) BlockHash(height int64) string {
	b.tb.Helper()
	var h string
	b.mustResult(&h, "getblockhash", height)
	return h
}

// Block returns the block with the given hash, decoded from its raw form.
func (b *Btcd) Block(hash string) *wire.MsgBlock {
	b.tb.Helper()
	var rawHex string
	b.mustResult(&rawHex, "getblock", hash, 0)
	raw, err := hex.DecodeString(rawHex)
	if err != nil {
		b.tb.Fatalf("btcd getblock %s: %v", hash, err)
	}
	var blk wire.MsgBlock
	if err := blk.Deserialize(bytes.NewReader(raw)); err != nil {
		b.tb.Fatalf("btcd getblock %s: decode: %v", hash, err)
	}
	return &blk
}

// Coin is a spendable transaction output.
type Coin struct {
	// TxID is the transaction id in RPC (byte-reversed) hex.
	TxID string

	// Vout is the output index.
	Vout uint32

	// Value is the amount in satoshis.
	Value int64

	// Script is the scriptPubKey.
	Script []byte
}

// Coinbase returns the first output of the coinbase transaction of the best
// chain's block at height: the output `generate` paid to MiningAddr.
func (b *Btcd) Coinbase(height int64) Coin {
	b.tb.Helper()
	blk := b.Block(b.BlockHash(height))
	cb := blk.Transactions[0]
	return Coin{
		TxID:   cb.TxHash().String(),
		Vout:   0,
		Value:  cb.TxOut[0].Value,
		Script: cb.TxOut[0].PkScript,
	}
}

// SendRawTransaction submits a transaction in hex and returns its txid, or
// btcd's rejection as *RPCError.
func (b *Btcd) SendRawTransaction(txHex string) (string, error) {
	var txid string
	err := b.CallResult(&txid, "sendrawtransaction", txHex)
	return txid, err
}

// Connect makes b open a peer connection to other and waits until both see
// it. Blocks then flow between them in both directions.
func (b *Btcd) Connect(other *Btcd) {
	b.tb.Helper()
	b.MustCall("node", "connect", other.P2PAddr, "perm")
	Eventually(b.tb, SyncTimeout, func() error {
		if !b.hasPeer(other.P2PAddr) {
			return fmt.Errorf("btcd %s not connected to %s", b.P2PAddr,
				other.P2PAddr)
		}
		if other.peerCount() == 0 {
			return fmt.Errorf("btcd %s sees no inbound peer",
				other.P2PAddr)
		}
		return nil
	})
}

// Disconnect drops the connection Connect made from b to other and waits
// until b no longer lists it.
func (b *Btcd) Disconnect(other *Btcd) {
	b.tb.Helper()
	b.MustCall("node", "remove", other.P2PAddr)
	Eventually(b.tb, SyncTimeout, func() error {
		if b.hasPeer(other.P2PAddr) {
			return fmt.Errorf("btcd %s still connected to %s",
				b.P2PAddr, other.P2PAddr)
		}
		return nil
	})
}

// peerInfo is the part of getpeerinfo the harness reads.
type peerInfo struct {
	Addr    string `json:"addr"`
	Inbound bool   `json:"inbound"`
}

// peers returns the node's peers.
func (b *Btcd) peers() []peerInfo {
	b.tb.Helper()
	var ps []peerInfo
	b.mustResult(&ps, "getpeerinfo")
	return ps
}

// hasPeer reports whether b has an outbound peer at addr.
func (b *Btcd) hasPeer(addr string) bool {
	for _, p := range b.peers() {
		if p.Addr == addr && !p.Inbound {
			return true
		}
	}
	return false
}

// peerCount returns the number of b's peers.
func (b *Btcd) peerCount() int {
	return len(b.peers())
}

// WaitHeight waits until b's best chain reaches height.
func (b *Btcd) WaitHeight(height int64) {
	b.tb.Helper()
	Eventually(b.tb, SyncTimeout, func() error {
		if h := b.GetBlockCount(); h < height {
			return fmt.Errorf("btcd %s at height %d, want %d",
				b.RPCAddr, h, height)
		}
		return nil
	})
}

// WaitSynced waits until every node has the same best block as the first.
func WaitSynced(tb testing.TB, nodes ...*Btcd) {
	tb.Helper()
	if len(nodes) < 2 {
		return
	}
	Eventually(tb, SyncTimeout, func() error {
		want := nodes[0].BestBlockHash()
		for _, n := range nodes[1:] {
			if got := n.BestBlockHash(); got != want {
				return fmt.Errorf("btcd %s tip %s, btcd %s tip %s",
					nodes[0].RPCAddr, want, n.RPCAddr, got)
			}
		}
		return nil
	})
}
