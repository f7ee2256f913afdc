package node

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"

	"github.com/descwallet/descwallet/internal/wallet"
)

func TestWalletNotifySubstitutions(t *testing.T) {
	txid := chainhash.Hash{1, 2, 3}
	blk := chainhash.Hash{9, 8, 7}
	tests := []struct {
		name string
		n    wallet.TxNotice
		cmd  string
		want string
	}{
		{"unconfirmed", wallet.TxNotice{Wallet: "w", TxID: txid, Height: -1},
			"x %s %b %h %w", "x " + txid.String() + " unconfirmed -1 'w'"},
		{"confirmed", wallet.TxNotice{Wallet: "", TxID: txid, Height: 123, BlockHash: blk},
			"%h_%b_%s_%w", "123_" + blk.String() + "_" + txid.String() + "_''"},
		{"quote in the name", wallet.TxNotice{Wallet: "a'b", TxID: txid, Height: -1},
			"%w", `'a'"'"'b'`},
		// %w last, as in Core: a name holding a placeholder stays as is.
		{"placeholder in the name", wallet.TxNotice{Wallet: "%s%h", TxID: txid, Height: -1},
			"%w", "'%s%h'"},
	}
	for _, tc := range tests {
		if got := walletNotifyCommand(tc.cmd, tc.n); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestShellEscapeThroughShell checks that the quoted name reaches a
// command whole, whatever it holds.
func TestShellEscapeThroughShell(t *testing.T) {
	for _, name := range []string{"plain", "two words", "o'n$e", `a"b\c`, "$(false)`x`;|&", "''", ""} {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+shellEscape(name)).Output()
		if err != nil || string(out) != name {
			t.Errorf("%q came out as %q (%v)", name, out, err)
		}
	}
}

// syncBuffer is a log sink safe for the workers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNotifierRunsAndNeverBlocks runs commands through the shell, logs a
// failing one as Core does, and keeps queuing at once while every worker
// is stuck in a command that hangs: a full queue drops with a warning.
func TestNotifierRunsAndNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	var logBuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	n := newNotifier("echo %s %h > "+dir+"/%w", "exit 3", log)
	defer n.stop()

	txid := chainhash.Hash{4}
	n.walletTx(wallet.TxNotice{Wallet: "w", TxID: txid, Height: -1})
	n.block(chainhash.Hash{5}, 7)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "w"))
		if string(b) == txid.String()+" -1\n" && strings.Contains(logBuf.String(), "returned 3") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("command output %q, log %q", b, logBuf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Stall every worker, then queue far more than the queue holds.
	stall := newNotifier("sleep 600", "", log)
	start := time.Now()
	for range notifyWorkers + notifyQueue + 100 {
		stall.walletTx(wallet.TxNotice{Wallet: "w", Height: -1})
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("queuing behind stalled commands took %v", el)
	}
	if !strings.Contains(logBuf.String(), "queue full") {
		t.Error("no warning for dropped commands")
	}
	// Stopping kills what still runs after the grace period.
	start = time.Now()
	stall.stop()
	if el := time.Since(start); el > notifyStopGrace+5*time.Second {
		t.Errorf("stop took %v", el)
	}
}

func TestNotifierOff(t *testing.T) {
	if n := newNotifier("", "", slog.New(slog.DiscardHandler)); n != nil {
		t.Fatal("a notifier without commands")
	}
	var n *notifier
	n.walletTx(wallet.TxNotice{})
	n.block(chainhash.Hash{}, 0)
	n.stop()
}

func TestNotifyOptions(t *testing.T) {
	dir := t.TempDir()
	conf := "regtest=1\nwalletnotify=echo %s >> /dev/null\n"
	if err := os.WriteFile(filepath.Join(dir, ConfigFileName), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig([]string{"-datadir=" + dir, "-blocknotify=touch %s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Wallet.Notify != "echo %s >> /dev/null" || cfg.Chain.BlockNotify != "touch %s" {
		t.Errorf("walletnotify %q blocknotify %q", cfg.Wallet.Notify, cfg.Chain.BlockNotify)
	}
	cfg, err = LoadConfig([]string{"-datadir=" + dir, "-nowalletnotify"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Wallet.Notify != "" || cfg.Chain.BlockNotify != "" {
		t.Errorf("negated: walletnotify %q blocknotify %q", cfg.Wallet.Notify, cfg.Chain.BlockNotify)
	}
}

func TestEventConfirmationsOption(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		arg  string
		want []int32
	}{
		{"", []int32{1, 6}},
		{"-eventconfirmations=3", []int32{3}},
		{"-eventconfirmations=100, 2,6,2", []int32{2, 6, 100}},
	} {
		argv := []string{"-datadir=" + dir, "-regtest"}
		if tc.arg != "" {
			argv = append(argv, tc.arg)
		}
		cfg, err := LoadConfig(argv)
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if !slices.Equal(cfg.Wallet.EventDepths, tc.want) {
			t.Errorf("%s: depths %v, want %v", tc.arg, cfg.Wallet.EventDepths, tc.want)
		}
	}
	for _, bad := range []string{"0", "1,x", "", "10001", "-1"} {
		_, err := LoadConfig([]string{"-datadir=" + dir, "-regtest", "-eventconfirmations=" + bad})
		if err == nil || !strings.Contains(err.Error(), "invalid -eventconfirmations="+bad+";") {
			t.Errorf("-eventconfirmations=%s: %v", bad, err)
		}
	}
}

func TestEventRetentionOption(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		arg  string
		want wallet.EventRetention
	}{
		{"", wallet.EventRetention{}},
		{"-eventretention=0", wallet.EventRetention{}},
		{"-eventretention=30d", wallet.EventRetention{Age: 30 * 86400}},
		{"-eventretention=100000", wallet.EventRetention{Count: 100000}},
		{"-eventretention=2w, 500", wallet.EventRetention{Count: 500, Age: 14 * 86400}},
		{"-eventretention=1000,90s", wallet.EventRetention{Count: 1000, Age: 90}},
		{"-eventretention=12h", wallet.EventRetention{Age: 12 * 3600}},
		{"-eventretention=5m", wallet.EventRetention{Age: 300}},
	} {
		argv := []string{"-datadir=" + dir, "-regtest"}
		if tc.arg != "" {
			argv = append(argv, tc.arg)
		}
		cfg, err := LoadConfig(argv)
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if cfg.Wallet.EventRetention != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.arg, cfg.Wallet.EventRetention, tc.want)
		}
	}
	for _, bad := range []string{"x", "-1", "30d,40d", "5,6", "d", "1y", "30d,", "0d"} {
		_, err := LoadConfig([]string{"-datadir=" + dir, "-regtest", "-eventretention=" + bad})
		if err == nil || !strings.Contains(err.Error(), "invalid -eventretention="+bad+";") {
			t.Errorf("-eventretention=%s: %v", bad, err)
		}
	}
}
