package node

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/descwallet/descwallet/internal/safego"
	"github.com/descwallet/descwallet/internal/wallet"
)

// Bounds of the notification commands (-walletnotify, -blocknotify). Core
// starts a detached thread per command; here a few workers run them from a
// bounded queue, so that a burst of transactions or a command that hangs
// never holds up the wallet or the chain follower: a command that finds
// the queue full is dropped with a warning.
const (
	notifyWorkers   = 4
	notifyQueue     = 1024
	notifyTimeout   = 10 * time.Minute // one command's longest run
	notifyStopGrace = 5 * time.Second  // queued commands left to run at stop
)

// notifier runs the notification commands through the shell.
type notifier struct {
	walletCmd, blockCmd string
	log                 *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	queue  chan string
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// newNotifier starts the workers; nil when neither command is set.
func newNotifier(walletCmd, blockCmd string, log *slog.Logger) *notifier {
	if walletCmd == "" && blockCmd == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &notifier{walletCmd: walletCmd, blockCmd: blockCmd, log: log,
		ctx: ctx, cancel: cancel, queue: make(chan string, notifyQueue)}
	for range notifyWorkers {
		n.wg.Add(1)
		safego.Go("notify command", func() error {
			defer n.wg.Done()
			for cmd := range n.queue {
				n.run(cmd)
			}
			return nil
		})
	}
	return n
}

// walletTx queues -walletnotify for a wallet transaction, with Core's
// substitutions: %s the txid, %b the block hash or "unconfirmed", %h the
// height or -1, %w the wallet name quoted for the shell.
func (n *notifier) walletTx(t wallet.TxNotice) {
	if n == nil || n.walletCmd == "" {
		return
	}
	n.enqueue(walletNotifyCommand(n.walletCmd, t))
}

// block queues -blocknotify for a new best block (%s its hash).
func (n *notifier) block(hash chainhash.Hash, _ int32) {
	if n == nil || n.blockCmd == "" {
		return
	}
	n.enqueue(strings.ReplaceAll(n.blockCmd, "%s", hash.String()))
}

// walletNotifyCommand substitutes in Core's order: %s, then %b and %h,
// then %w (so that a wallet name holding "%s" stays as it is).
func walletNotifyCommand(cmd string, t wallet.TxNotice) string {
	cmd = strings.ReplaceAll(cmd, "%s", t.TxID.String())
	if t.Confirmed() {
		cmd = strings.ReplaceAll(cmd, "%b", t.BlockHash.String())
		cmd = strings.ReplaceAll(cmd, "%h", strconv.Itoa(int(t.Height)))
	} else {
		cmd = strings.ReplaceAll(cmd, "%b", "unconfirmed")
		cmd = strings.ReplaceAll(cmd, "%h", "-1")
	}
	return strings.ReplaceAll(cmd, "%w", shellEscape(t.Wallet))
}

// shellEscape quotes s for a POSIX shell as Core's ShellEscape does: in
// single quotes, each single quote written '"'"'.
func shellEscape(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func (n *notifier) enqueue(cmd string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	select {
	case n.queue <- cmd:
	default:
		n.log.Warn("notification command dropped: queue full", "queued", notifyQueue)
	}
}

// run runs one command as system(3) does (/bin/sh -c) and logs a failure
// as Core's runCommand does.
func (n *notifier) run(cmd string) {
	ctx, cancel := context.WithTimeout(n.ctx, notifyTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	err := c.Run()
	if err == nil {
		return
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	n.log.Warn("runCommand error: system(" + cmd + ") returned " + strconv.Itoa(code))
}

// stop lets the queued commands run for a short grace, then kills what is
// left and waits for the workers.
func (n *notifier) stop() {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.queue)
	}
	n.mu.Unlock()
	done := make(chan struct{})
	safego.Go("notify stop", func() error { n.wg.Wait(); close(done); return nil })
	select {
	case <-done:
	case <-time.After(notifyStopGrace):
		n.cancel()
		<-done
	}
	n.cancel()
}
